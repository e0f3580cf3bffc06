import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { checkFile, checkUrl } from '../../runtime/usecases/check.js';
import { checkPluginDirectory, isDirectory } from '../../runtime/usecases/plugin-package.js';
import { addSettings, overridesFrom } from '../settings.js';
import {
  buildReport,
  catalogueJson,
  getRule,
  renderRuleList,
  renderSarif,
  renderPluginJUnit,
  renderPluginSarif,
  renderCheckJUnit,
  renderPluginSetTerminal,
  renderPluginTerminal,
  renderTerminal,
  PLUGIN_SUITE_KEY,
  signVerdict,
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
(terminal, --json, --format sarif or junit): report version 1 lets a definite failure win. The
incomplete parts are still reported.
`;

type OutputFormat = 'terminal' | 'json' | 'sarif' | 'junit';

interface CheckOptions {
  kind?: 'card' | 'server-json' | 'mcp' | 'plugin';
  recursive?: boolean;
  json?: boolean;
  format?: OutputFormat;
  rule?: string;
  listRules?: boolean;
  sign?: boolean;
  dataDir?: string;
  contact?: string;
  signingKeyFile?: string;
  transport?: 'streamable-http' | 'sse';
  allowLoopback?: boolean;
}

export function registerCheckCommand(program: Command): void {
  const cmd = program
    .command('check')
    .description('check an A2A agent card, an MCP server.json, or a live URL against the VeronikAI suites')
    .argument('[target]', "a file, or an http(s) URL fetched with the crawler's bounded GET-only chain")
    .addOption(
      new Option(
        '--kind <kind>',
        'what the target is (default: detected; a directory is an Agent Plugins package; a URL is a card unless it ends in server.json)',
      ).choices(['card', 'server-json', 'mcp', 'plugin']),
    )
    .option('--recursive', 'with a directory: check every Agent Plugins package below it, each reported on its own')
    .option('--json', 'write the JSON report (report version 1)')
    .addOption(
      new Option('--format <format>', 'output format (junit: JUnit XML, one test case per rule)').choices([
        'terminal',
        'json',
        'sarif',
        'junit',
      ]),
    )
    .option('--rule <id>', 'evaluate one rule (exact, case-sensitive ID) and report the others as excluded')
    .option('--list-rules', 'list the rule catalogue (as JSON with --json or --format json); takes no target')
    .option('--sign', 'attach Ed25519 attestations (key: VERONIKAI_SIGNING_KEY, VERONIKAI_SIGNING_KEY_FILE or the data dir)')
    .addOption(new Option('--transport <type>', 'declared transport of an MCP endpoint (--kind mcp)').choices(['streamable-http', 'sse']))
    .addHelpText('after', EXIT_CODES_HELP);
  // The data dir holds the signing key (--sign); the contact goes in the User-Agent of URL checks.
  addSettings(cmd, ['dataDir', 'contact', 'signingKeyFile', 'allowLoopback']).action(
    async (target: string | undefined, opts: CheckOptions) => {
      process.exitCode = await runCheck(target, opts);
    },
  );
}

export async function runCheck(target: string | undefined, opts: CheckOptions): Promise<number> {
  if (opts.json && opts.format && opts.format !== 'json') throw new UsageError('--json cannot be combined with --format ' + opts.format);
  const format = opts.json ? 'json' : (opts.format ?? 'terminal');

  if (opts.listRules) {
    if (target !== undefined || opts.rule) throw new UsageError('--list-rules takes no target and cannot be combined with --rule');
    if (format === 'sarif' || format === 'junit') throw new UsageError('--list-rules supports terminal and json output');
    process.stdout.write(format === 'json' ? JSON.stringify(catalogueJson(), null, 2) + '\n' : renderRuleList());
    return 0;
  }
  if (target === undefined || target.trim() === '')
    throw new UsageError('check needs a file, a plugin package directory or an http(s) URL (or --list-rules)');
  if (opts.rule !== undefined && !getRule(opts.rule))
    throw new UsageError(`unknown rule "${opts.rule}" (see veronikai check --list-rules)`);
  if (opts.transport && opts.kind !== 'mcp') throw new UsageError('--transport applies to --kind mcp only');
  const isUrl = /^https?:\/\//i.test(target);
  if (opts.kind === 'plugin' || (!isUrl && opts.kind === undefined && isDirectory(target))) return checkPlugin(target, opts, format);
  if (opts.recursive) throw new UsageError('--recursive applies to a directory of Agent Plugins packages');
  if (opts.rule !== undefined && getRule(opts.rule)?.suite === PLUGIN_SUITE_KEY)
    throw new UsageError(`${opts.rule} is a plugin package rule: give a package directory`);

  const ctx = { subject: target, observedAt: new Date().toISOString() };

  // Everything after the usage checks: an error that is not a usage error means the check could
  // not complete (exit 2), never that a conformance rule failed (exit 1).
  let stage = 'loading the configuration';
  try {
    const config = loadConfig(overridesFrom(opts as Record<string, unknown>));
    stage = 'running the check';
    const targetOpts = { ...opts, kind: opts.kind };
    const run = isUrl ? await checkUrl(target, targetOpts, config.contact, ctx) : checkFile(target, targetOpts, ctx);
    run.selectedRule = opts.rule ?? null;

    if (opts.sign) {
      stage = 'signing the verdicts';
      const { loadSigningKey } = await import('../../signing/keys.js');
      const key = loadSigningKey({ dataDir: config.dataDir, key: config.signingKey });
      run.attestations = run.verdicts.map((v) => signVerdict(v, key.privateKey));
    }

    stage = 'writing the report';
    const report = buildReport(run);
    // Rendered in full before anything is written, so a failing renderer leaves no partial report.
    const out =
      format === 'json'
        ? JSON.stringify(report, null, 2) + '\n'
        : format === 'sarif'
          ? JSON.stringify(renderSarif(run, report, { root: process.cwd() }), null, 2) + '\n'
          : format === 'junit'
            ? renderCheckJUnit(run, report)
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

/**
 * An Agent Plugins package, checked statically: nothing is executed, no configured
 * server is contacted. A pass is a QUALIFIED PASS: it cannot certify runtime or client behaviour.
 */
function checkPlugin(target: string, opts: CheckOptions, format: OutputFormat): number {
  if (opts.sign || opts.transport || opts.allowLoopback)
    throw new UsageError('--sign, --transport and --allow-loopback do not apply to a plugin package');
  if (opts.rule !== undefined && getRule(opts.rule)?.suite !== PLUGIN_SUITE_KEY)
    throw new UsageError(`${opts.rule} is not a plugin package rule (see veronikai check --list-rules)`);
  const res = checkPluginDirectory(target, { rule: opts.rule ?? null, recursive: Boolean(opts.recursive) });
  const out =
    format === 'json'
      ? JSON.stringify(res.report, null, 2) + '\n'
      : format === 'sarif'
        ? JSON.stringify(renderPluginSarif(res.report, { root: process.cwd() }), null, 2) + '\n'
        : format === 'junit'
          ? renderPluginJUnit(res.report)
          : res.recursive
            ? renderPluginSetTerminal(res.report)
            : renderPluginTerminal(res.report);
  process.stdout.write(out);
  return res.exitCode;
}
