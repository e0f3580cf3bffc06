import { Option, type Command } from 'commander';
import { loadConfig, parseDuration, UsageError } from '../../config.js';
import type { ProbeEvent } from '../../events/types.js';
import { probeOnce } from '../../runtime/usecases/probe-once.js';
import { addSettings, overridesFrom } from '../settings.js';

/**
 * `veronikai probe <url> --protocol a2a|mcp [--json]`: one probe outside Kafka, exactly as a
 * probe worker makes it (robots.txt, per-host limits, GET only, bounded reads, SSRF guard),
 * printed as the Probe event. With --json the event is written as JSON, what it keeps of each body
 * (`bodyKept`: the MCP excerpt; a document only by its hash) as base64.
 *
 * `--allow-loopback` permits 127.0.0.0/8 and ::1 targets for local testing; nothing else the
 * guard refuses can be permitted from the command line.
 *
 * Canary targets come from VERONIKAI_CANARY_URLS / --canary-url; without them the event's canary is `unknown`.
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
  const cmd = program
    .command('probe')
    .description('probe one agent once, outside Kafka, as the probe workers do, and print the probe event')
    .argument('<url>', 'the A2A card URL or the MCP endpoint URL')
    .addOption(new Option('--protocol <protocol>', 'what the URL is').choices(['a2a', 'mcp']).makeOptionMandatory())
    .option('--json', 'print the probe event as JSON (kept body excerpts base64; documents by hash)')
    .option('--timeout <duration>', 'limit on each exchange, e.g. 5s or 500ms (at most 10s, the default)');
  addSettings(cmd, ['contact', 'canaryUrl', 'allowLoopback']).action(async (url: string, opts: ProbeOptions) => {
    process.exitCode = await runProbe(url, opts);
  });
}

/** The event as JSON-ready data: kept bodies (excerpts) as base64 strings, everything else as is. */
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
    lines.push(
      `  [${e.role}] GET ${e.url} → ${what} (${e.bodyBytes} bytes${e.bodyTruncated ? ', truncated' : ''}, ${e.durationMs} ms${extra})`,
    );
    if (e.errorMessage) lines.push(`      ${e.errorMessage}`);
  }
  return lines.join('\n') + '\n';
}

export async function runProbe(url: string, opts: ProbeOptions): Promise<number> {
  if (opts.protocol !== 'a2a' && opts.protocol !== 'mcp') throw new UsageError('--protocol must be a2a or mcp');
  if (!/^https?:\/\//i.test(url)) throw new UsageError(`probe needs an absolute http(s) URL, got "${url}"`);
  const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout', { max: MAX_TIMEOUT_MS });
  const config = loadConfig(overridesFrom(opts as unknown as Record<string, unknown>));
  const event = await probeOnce(config, {
    protocol: opts.protocol,
    url,
    allowLoopback: opts.allowLoopback === true,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  process.stdout.write(opts.json ? JSON.stringify(probeEventJson(event), null, 2) + '\n' : render(event));
  return event.errorClass === null ? 0 : 1;
}
