import { readFileSync, statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { toHttpExchange } from '../../processors/verdicts/observation.js';
import {
  buildReport,
  catalogueJson,
  checkA2ACard,
  checkServerJson,
  detectKind,
  getRule,
  judgeA2AObservation,
  judgeMcpEndpoint,
  readChain,
  renderRuleList,
  renderSarif,
  renderTerminal,
  signVerdict,
  type A2AObservation,
  type CheckRun,
  type McpObservation,
  type TargetKind,
  type Verdict,
} from '../../conformance/index.js';

/**
 * `veronikai check <file|url>`: an agent owner checks their own card, server.json or endpoint.
 * Exit codes (see EXIT_CODES_HELP): 0 pass or n/a (and listing/help), 1 a selected rule failed,
 * 2 a usage error, an internal error, or a selected rule that was unable to complete. Any
 * error during a check that is not a usage error (the signing key cannot be loaded, a renderer
 * throws, …) exits 2 with a message: it never reads as a conformance failure (1).
 */

export const EXIT_CODES_HELP = `
Exit codes:
  0  the selected rules passed, or legitimately do not apply (n/a); also --list-rules and --help
  1  at least one selected conformance rule failed
  2  a usage error or an internal error, or a selected rule was unable to complete: the check
     could not finish fairly, a prerequisite failed, or the rule needs an input this check does
     not have (a live GET on a file: check the URL instead; a server.json on --kind mcp)

A mixed outcome (one rule failed, another could not complete) exits 1 in every output format
(terminal, --json, --format sarif): report version 1 lets a definite failure win. The
incomplete parts are still reported.
`;

/** Local files above this are refused (a card is read up to 512 KB by the crawler). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

interface CheckOptions {
  kind?: 'card' | 'server-json' | 'mcp';
  json?: boolean;
  format?: 'terminal' | 'json' | 'sarif';
  rule?: string;
  listRules?: boolean;
  sign?: boolean;
  dataDir?: string;
  contact?: string;
  transport?: 'streamable-http' | 'sse';
  allowLoopback?: boolean;
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('check an A2A agent card, an MCP server.json, or a live URL against the VeronikAI suites')
    .argument('[target]', 'a file, or an http(s) URL fetched with the crawler\'s bounded GET-only chain')
    .addOption(new Option('--kind <kind>', 'what the target is (default: detected; a URL is a card unless it ends in server.json)').choices(['card', 'server-json', 'mcp']))
    .option('--json', 'write the JSON report (report version 1)')
    .addOption(new Option('--format <format>', 'output format').choices(['terminal', 'json', 'sarif']))
    .option('--rule <id>', 'evaluate one rule (exact, case-sensitive ID) and report the others as excluded')
    .option('--list-rules', 'list the rule catalogue (as JSON with --json or --format json); takes no target')
    .option('--sign', 'attach Ed25519 attestations (key: VERONIKAI_SIGNING_KEY, VERONIKAI_SIGNING_KEY_FILE or the data dir)')
    .option('--data-dir <dir>', 'where the signing key lives (env VERONIKAI_DATA_DIR; default .veronikai)')
    .option('--contact <email>', 'contact address carried in the User-Agent of URL checks (env VERONIKAI_CONTACT)')
    .addOption(new Option('--transport <type>', 'declared transport of an MCP endpoint (--kind mcp)').choices(['streamable-http', 'sse']))
    .option('--allow-loopback', 'let a URL check reach 127.0.0.0/8 and ::1 (local testing); no other private address is ever reached')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (target: string | undefined, opts: CheckOptions) => {
      process.exitCode = await runCheck(target, opts);
    });
}

export async function runCheck(target: string | undefined, opts: CheckOptions): Promise<number> {
  if (opts.json && opts.format && opts.format !== 'json') throw new UsageError('--json cannot be combined with --format ' + opts.format);
  const format = opts.json ? 'json' : (opts.format ?? 'terminal');

  if (opts.listRules) {
    if (target !== undefined || opts.rule) throw new UsageError('--list-rules takes no target and cannot be combined with --rule');
    if (format === 'sarif') throw new UsageError('--list-rules supports terminal and json output');
    process.stdout.write(format === 'json' ? JSON.stringify(catalogueJson(), null, 2) + '\n' : renderRuleList());
    return 0;
  }
  if (target === undefined || target.trim() === '') throw new UsageError('check needs a file or an http(s) URL (or --list-rules)');
  if (opts.rule !== undefined && !getRule(opts.rule)) throw new UsageError(`unknown rule "${opts.rule}" (see veronikai check --list-rules)`);
  if (opts.transport && opts.kind !== 'mcp') throw new UsageError('--transport applies to --kind mcp only');

  const ctx = { subject: target, observedAt: new Date().toISOString() };
  const isUrl = /^https?:\/\//i.test(target);

  // Everything after the usage checks: an error that is not a usage error means the check could
  // not complete (exit 2), never that a conformance rule failed (exit 1).
  let stage = 'loading the configuration';
  try {
    const config = loadConfig({ dataDir: opts.dataDir, contact: opts.contact });
    stage = 'running the check';
    const run = isUrl ? await checkUrl(target, opts, config.contact, ctx) : checkFile(target, opts, ctx);
    run.selectedRule = opts.rule ?? null;

    if (opts.sign) {
      stage = 'signing the verdicts';
      const { loadSigningKey } = await import('../../signing/keys.js');
      const key = loadSigningKey({ dataDir: config.dataDir });
      run.attestations = run.verdicts.map((v) => signVerdict(v, key.privateKey));
    }

    stage = 'writing the report';
    const report = buildReport(run);
    // Rendered in full before anything is written, so a failing renderer leaves no partial report.
    const out =
      format === 'json' ? JSON.stringify(report, null, 2) + '\n'
      : format === 'sarif' ? JSON.stringify(renderSarif(run, report), null, 2) + '\n'
      : renderTerminal(run, report);
    process.stdout.write(out);
    return report.exitCode;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const what = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);
    process.stderr.write(`veronikai: the check could not complete (error while ${stage}): ${what}\n`);
    return 2;
  }
}

function checkFile(path: string, opts: CheckOptions, ctx: { subject: string; observedAt: string }): CheckRun {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${path} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (size > MAX_FILE_BYTES) throw new UsageError(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
  if (opts.kind === 'mcp') throw new UsageError('--kind mcp checks a live endpoint: give its http(s) URL');
  const text = readFileSync(path, 'utf8');
  const kind: TargetKind = opts.kind === 'card' ? 'a2a-card' : opts.kind === 'server-json' ? 'mcp-server-json' : detectKind(text, path);
  const verdicts: Verdict[] =
    kind === 'a2a-card'
      ? (({ card, structure }) => [card, structure])(checkA2ACard({ text }, ctx))
      : [checkServerJson({ text }, ctx)];
  return { input: path, kind, scope: 'document', verdicts, text };
}

async function checkUrl(url: string, opts: CheckOptions, contact: string, ctx: { subject: string; observedAt: string }): Promise<CheckRun> {
  const probe = await import('../../producers/probe/index.js');
  const policy = opts.allowLoopback ? { allowLoopback: true } : {};
  const pathname = (() => {
    try {
      return new URL(url).pathname;
    } catch {
      throw new UsageError(`not a valid URL: ${url}`);
    }
  })();
  const kind = opts.kind ?? (/server\.json$/i.test(pathname) ? 'server-json' : 'card');

  if (kind === 'mcp') {
    const res = await probe.probeMcpEndpoint(url, { contact, ...policy });
    const obs: McpObservation = {
      remote: { type: opts.transport ?? 'streamable-http', url },
      get: toHttpExchange(res.final),
      metadata: res.metadata ? toHttpExchange(res.metadata) : null,
      robots: 'unknown',
      canary: 'unknown',
      serverJson: null,
    };
    const { uptime, verdict } = judgeMcpEndpoint(obs, ctx);
    return { input: url, kind: 'mcp-endpoint', scope: 'live', verdicts: [verdict], uptime };
  }

  if (kind === 'server-json') {
    const res = await probe.fetchBounded(url, { contact, ...policy, accept: 'application/json', maxBytes: probe.limits.CARD_MAX_BYTES, overCap: 'error' });
    const final = toHttpExchange(res.final);
    if (final.status !== 200 || typeof final.body !== 'string') {
      const why = final.status === null ? `no answer (${final.errorClass ?? 'network error'})` : `HTTP ${final.status}`;
      throw new Error(`could not fetch the server.json: ${why}`);
    }
    const verdict = checkServerJson({ text: final.body }, ctx);
    return { input: url, kind: 'mcp-server-json', scope: 'document', verdicts: [verdict], text: final.body };
  }

  const res = await probe.fetchA2ACardChain(url, { contact, ...policy });
  const obs: A2AObservation = { exchanges: res.exchanges.map(toHttpExchange), robots: 'unknown', canary: 'unknown' };
  const { uptime, card, structure } = judgeA2AObservation(obs, ctx);
  const chain = readChain(obs);
  const text = chain.kind === 'card' ? chain.exchange.body : undefined;
  const run: CheckRun = { input: url, kind: 'a2a-card', scope: 'live', verdicts: [card, structure], uptime };
  if (text !== undefined) run.text = text;
  return run;
}
