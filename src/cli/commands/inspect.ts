import { Option, type Command } from 'commander';
import { loadConfig, parseCount, parseDuration, UsageError } from '../../config.js';
import { renderInspectJUnit, renderInspectSarif, renderInspectTerminal } from '../../conformance/inspect/index.js';
import { INSPECT_REQUEST_BUDGET, INSPECT_TIME_LIMIT_MS, runInspect } from '../../runtime/usecases/inspect.js';
import { addSettings, overridesFrom } from '../settings.js';

/**
 * `veronikai inspect <url>`: an owner confirms their own MCP server or A2A agent the way a real
 * client would (JSON-RPC POSTs allowed, no tool ever called). Parses flags, calls the runtime,
 * prints. Header values given with --header are never logged or printed.
 */

export const INSPECT_EXIT_CODES_HELP = `
Exit codes (as veronikai check):
  0  every rule passed (warnings allowed)
  1  at least one fail-severity rule failed (including: the requested protocol was not detected)
  2  a usage error or an internal error, or the inspect could not complete (no answer at all,
     the time limit or the request budget ran out before a definite failure)

--header values (e.g. 'Authorization: Bearer …' for your own server) are sent only to the
origin of the URL you give, and never logged, recorded or printed.
`;

interface InspectCliOptions {
  protocol?: 'mcp' | 'a2a' | 'auto';
  header?: string[];
  json?: boolean;
  format?: 'terminal' | 'json' | 'sarif' | 'junit';
  allowLoopback?: boolean;
  timeLimit?: string;
  maxRequests?: string;
  contact?: string;
  dataDir?: string;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerInspectCommand(program: Command): void {
  const cmd = program
    .command('inspect')
    .description('inspect your own MCP server or A2A agent as a client would: protocol states, era, auth discovery, card lint')
    .argument('<url>', 'the MCP endpoint or the A2A agent (origin or card URL), http(s)')
    .addOption(
      new Option('--protocol <protocol>', 'what to inspect; auto tries both from the URL').choices(['mcp', 'a2a', 'auto']).default('auto'),
    )
    .option('--header <header>', "request header 'Name: value' for your own server (repeatable; never logged or printed)", collect)
    .option('--json', 'write the JSON report')
    .addOption(
      new Option('--format <format>', 'output format (junit: JUnit XML, one test case per rule)').choices([
        'terminal',
        'json',
        'sarif',
        'junit',
      ]),
    )
    .option('--time-limit <duration>', `time limit of the whole inspect (default ${INSPECT_TIME_LIMIT_MS / 1000}s)`)
    .option('--max-requests <n>', `request budget of the whole inspect (default ${INSPECT_REQUEST_BUDGET})`)
    .addHelpText('after', INSPECT_EXIT_CODES_HELP);
  addSettings(cmd, ['contact', 'allowLoopback']).action(async (url: string, opts: InspectCliOptions) => {
    process.exitCode = await runInspectCommand(url, opts);
  });
}

/** 'Name: value' → [name, value]; refuses anything else (the value itself is never echoed). */
export function parseHeaderFlag(text: string): [string, string] {
  const i = text.indexOf(':');
  const name = i > 0 ? text.slice(0, i).trim() : '';
  const value = i > 0 ? text.slice(i + 1).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || value === '' || /[\r\n\0]/.test(value)) {
    throw new UsageError(`--header expects 'Name: value'${name ? ` (got a malformed header named "${name.slice(0, 40)}")` : ''}`);
  }
  return [name.toLowerCase(), value];
}

export async function runInspectCommand(url: string, opts: InspectCliOptions): Promise<number> {
  if (opts.json && opts.format && opts.format !== 'json') throw new UsageError('--json cannot be combined with --format ' + opts.format);
  const format = opts.json ? 'json' : (opts.format ?? 'terminal');
  if (!/^https?:\/\//i.test(url)) throw new UsageError('inspect needs an http(s) URL');
  try {
    new URL(url);
  } catch {
    throw new UsageError('inspect needs a valid http(s) URL');
  }
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const [n, v] = parseHeaderFlag(h);
    headers[n] = v;
  }
  const timeLimitMs = opts.timeLimit
    ? parseDuration(opts.timeLimit, '--time-limit', { min: 1000, max: 15 * 60_000 })
    : INSPECT_TIME_LIMIT_MS;
  const requestBudget = opts.maxRequests ? parseCount(opts.maxRequests, '--max-requests', 1) : INSPECT_REQUEST_BUDGET;
  const config = loadConfig(overridesFrom(opts as Record<string, unknown>));
  try {
    const report = await runInspect(url, {
      protocol: opts.protocol ?? 'auto',
      headers,
      timeLimitMs,
      requestBudget,
      contact: config.contact,
      ...(opts.allowLoopback ? { allowLoopback: true } : {}),
    });
    const out =
      format === 'json'
        ? JSON.stringify(report, null, 2) + '\n'
        : format === 'sarif'
          ? JSON.stringify(renderInspectSarif(report), null, 2) + '\n'
          : format === 'junit'
            ? renderInspectJUnit(report)
            : renderInspectTerminal(report);
    process.stdout.write(out);
    return report.exitCode;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    process.stderr.write(`veronikai: the inspect could not complete: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}
