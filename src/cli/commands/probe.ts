import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import type { ProbeEvent } from '../../events/types.js';

/**
 * `veronikai probe <url> --protocol a2a|mcp [--json]`: one probe outside Kafka, exactly as a
 * probe worker makes it (robots.txt, per-host limits, GET only, bounded reads, SSRF guard),
 * printed as the Probe event. With --json the event is written as JSON, bodies as base64.
 *
 * `--allow-loopback` permits 127.0.0.0/8 and ::1 targets for local testing; nothing else the
 * guard refuses can be permitted from the command line.
 *
 * Canary targets come from VERONIKAI_CANARY_URLS; without them the event's canary is `unknown`.
 *
 * Exit codes: 0 the probe got its answer (the event has no error class, whatever the HTTP
 * status); 1 the event carries an error class (network error, refused address, robots.txt,
 * host skipped…); 2 usage error.
 */

interface ProbeOptions {
  protocol: 'a2a' | 'mcp';
  json?: boolean;
  allowLoopback?: boolean;
  contact?: string;
  timeout?: string;
}

const MAX_TIMEOUT_MS = 10_000;

export function registerProbeCommand(program: Command): void {
  program
    .command('probe')
    .description('probe one agent once, outside Kafka, as the probe workers do, and print the probe event')
    .argument('<url>', 'the A2A card URL or the MCP endpoint URL')
    .addOption(new Option('--protocol <protocol>', 'what the URL is').choices(['a2a', 'mcp']).makeOptionMandatory())
    .option('--json', 'print the probe event as JSON (bodies base64)')
    .option('--allow-loopback', 'permit loopback targets (127.0.0.0/8, ::1) for local testing; nothing else is ever permitted')
    .option('--contact <email>', 'contact address carried in the User-Agent (env VERONIKAI_CONTACT)')
    .option('--timeout <duration>', 'limit on each exchange, e.g. 5s or 500ms (at most 10s, the default)')
    .action(async (url: string, opts: ProbeOptions) => {
      process.exitCode = await runProbe(url, opts);
    });
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)(ms|s)?$/.exec(value.trim());
  if (!m) throw new UsageError(`--timeout expects a duration such as 5s or 500ms, got "${value}"`);
  const ms = Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
  if (ms < 1 || ms > MAX_TIMEOUT_MS) throw new UsageError(`--timeout must be between 1ms and 10s, got "${value}"`);
  return ms;
}

/** The event as JSON-ready data: bodies as base64 strings, everything else as is. */
export function probeEventJson(event: ProbeEvent): Record<string, unknown> {
  return {
    ...event,
    exchanges: event.exchanges.map((e) => ({ ...e, body: e.body.toString('base64') })),
  };
}

function render(event: ProbeEvent): string {
  const lines = [
    `probe ${event.protocol} ${event.targetUrl}`,
    `  robots: ${event.robots}   canary: ${event.canary}   error: ${event.errorClass ?? 'none'}   retries: ${event.retries}`,
  ];
  if (event.exchanges.length === 0) lines.push('  no request was sent');
  for (const e of event.exchanges) {
    const what = e.status !== null ? `HTTP ${e.status}` : `no answer (${e.errorClass ?? 'error'})`;
    const extra = e.status !== null && e.errorClass ? `, ${e.errorClass}` : '';
    lines.push(`  [${e.role}] GET ${e.url} → ${what} (${e.bodyBytes} bytes${e.bodyTruncated ? ', truncated' : ''}, ${e.durationMs} ms${extra})`);
    if (e.errorMessage) lines.push(`      ${e.errorMessage}`);
  }
  return lines.join('\n') + '\n';
}

export async function runProbe(url: string, opts: ProbeOptions): Promise<number> {
  if (opts.protocol !== 'a2a' && opts.protocol !== 'mcp') throw new UsageError('--protocol must be a2a or mcp');
  if (!/^https?:\/\//i.test(url)) throw new UsageError(`probe needs an absolute http(s) URL, got "${url}"`);
  const timeoutMs = parseTimeout(opts.timeout);
  const config = loadConfig({ contact: opts.contact });
  const { ProbeEngine } = await import('../../producers/probe/probe-agent.js');
  const { Canary, canaryTargetsFromEnv } = await import('../../producers/canary.js');

  const allowLoopback = opts.allowLoopback === true;
  let targets: string[];
  try {
    targets = canaryTargetsFromEnv();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const canary = targets.length
    ? new Canary({ targets, contact: config.contact, ...(allowLoopback ? { allowLoopback } : {}) })
    : null;
  const engine = new ProbeEngine({
    contact: config.contact,
    ...(allowLoopback ? { allowLoopback } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    canary,
  });
  const runId = `cli-${Date.now()}`;
  await engine.beforeRun(runId);
  const event = await engine.probe({ protocol: opts.protocol, url, runId });
  process.stdout.write(opts.json ? JSON.stringify(probeEventJson(event), null, 2) + '\n' : render(event));
  return event.errorClass === null ? 0 : 1;
}
