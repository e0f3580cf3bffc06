import type { Result } from '../types.js';
import { CHECKER_VERSION, REPORT_VERSION } from '../version.js';
import {
  fingerprints,
  localArtifact,
  originalUriBaseIds,
  SARIF_SCHEMA_URI,
  SARIF_VERSION,
  type ArtifactLocation,
  type SarifOptions,
} from '../sarif.js';
import { AGENT_PLUGINS_VERSION, PLUGIN_RULES, PLUGIN_SUITE, getPluginRule } from './catalogue.js';
import type { PluginComponents, PluginEvaluation, PluginFinding, PluginIncomplete, PluginRuleOutcome } from './engine.js';

/**
 * What `veronikai check DIR` prints for an Agent Plugins package: terminal text, the JSON
 * report, or SARIF 2.1.0. Pure; the same result and exit code in every format:
 * - 0 `pass` (a QUALIFIED PASS; with --rule a LIMITED PASS) or `n/a`;
 * - 1 `fail`: a rule failed;
 * - 2 `unknown`: a rule was unable to complete (a `${PLUGIN_DATA}` cwd, an unreadable path, a
 *   bound of the reader), or the selected rule could not be evaluated because a prerequisite
 *   failed. Never guessed as a pass.
 * Mixed outcomes follow report version 1 of src/conformance/report.ts: a definite failure wins
 * over an incomplete rule (exit 1); the incomplete parts stay in the report.
 */

export interface PluginReport {
  reportVersion: typeof REPORT_VERSION;
  tool: { name: 'veronikai check'; checker: string };
  target: { input: string; kind: 'agent-plugin'; scope: 'document' };
  suite: { id: string; version: number; specification: string };
  selectedRule: string | null;
  result: Result;
  exitCode: 0 | 1 | 2;
  /** Why a pass is qualified (or limited); starts with `UNABLE TO COMPLETE: <why>.` when the result is unknown. */
  qualification: string;
  components: PluginComponents;
  /** Counts of distinct rules, never of files or servers. */
  summary: { passed: number; failed: number; unableToComplete: number; blocked: number; notApplicable: number; excluded: number };
  rules: Array<{ id: string; severity: 'fail' | 'warn'; outcome: PluginRuleOutcome; section: string }>;
  findings: PluginFinding[];
  omittedFindings: number;
  incomplete: PluginIncomplete[];
}

/** A directory holding several packages (`--recursive`): one report per package. */
export interface PluginReportSet {
  reportVersion: typeof REPORT_VERSION;
  tool: { name: 'veronikai check'; checker: string };
  target: { input: string; kind: 'agent-plugin-collection'; scope: 'document' };
  result: Result;
  exitCode: 0 | 1 | 2;
  /** Why the set could not complete, when no package was found or the search stopped at a bound. */
  note: string | null;
  packages: Array<{ path: string; report: PluginReport }>;
}

const STATIC =
  'static checks only: files were read, no command was run, no configured server was contacted and no schema was downloaded; a pass does not certify runtime or client behaviour';
const RANK: Record<Result, number> = { fail: 3, unknown: 2, pass: 1, 'n/a': 0 };
const exitOf = (r: Result): 0 | 1 | 2 => (r === 'fail' ? 1 : r === 'unknown' ? 2 : 0);

export function buildPluginReport(input: string, ev: PluginEvaluation): PluginReport {
  const rules = ev.rules.map((r) => ({ ...r, section: getPluginRule(r.id)!.section }));
  const count = (o: PluginRuleOutcome): number => rules.filter((r) => r.outcome === o).length;
  const summary = {
    passed: count('pass'),
    failed: count('fail'),
    unableToComplete: count('unable-to-complete'),
    blocked: count('blocked'),
    notApplicable: count('not-applicable'),
    excluded: count('excluded'),
  };
  const selected = ev.selectedRule;
  let result: Result;
  let incomplete: string | null = null;
  if (selected) {
    const line = rules.find((r) => r.id === selected)!;
    if (line.outcome === 'fail') result = 'fail';
    else if (line.outcome === 'pass') result = 'pass';
    else if (line.outcome === 'not-applicable') result = 'n/a';
    else {
      result = 'unknown';
      if (line.outcome === 'blocked') {
        const pre = rules.filter((r) => r.id !== selected && (r.outcome === 'fail' || r.outcome === 'unable-to-complete')).map((r) => r.id);
        incomplete = `${selected} could not be evaluated: its prerequisite ${pre.join(', ')} ${pre.some((id) => rules.find((r) => r.id === id)!.outcome === 'fail') ? 'failed' : 'was unable to complete'}`;
      } else
        incomplete = `${selected} was unable to complete: ${
          ev.incomplete
            .filter((i) => i.ruleId === selected)
            .map((i) => i.reason)
            .join('; ') || 'see the report'
        }`;
    }
  } else if (summary.failed > 0) result = 'fail';
  else if (summary.unableToComplete > 0 || summary.blocked > 0) {
    result = 'unknown';
    incomplete = `${rules
      .filter((r) => r.outcome === 'unable-to-complete')
      .map((r) => r.id)
      .join(', ')} ${summary.unableToComplete === 1 ? 'was' : 'were'} unable to complete: ${ev.incomplete.map((i) => i.reason).join('; ')}`;
  } else if (summary.passed > 0) result = 'pass';
  else result = 'n/a';

  let qualification = `PASS is qualified: ${STATIC}.`;
  if (selected)
    qualification = `LIMITED: only ${selected} and the ${rules.filter((r) => r.id !== selected && r.outcome !== 'excluded').length} rules it needs were evaluated; ${summary.excluded} other rules were excluded. ${qualification}`;
  if (incomplete !== null) qualification = `UNABLE TO COMPLETE: ${incomplete}. ${qualification}`;
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: 'veronikai check', checker: CHECKER_VERSION },
    target: { input, kind: 'agent-plugin', scope: 'document' },
    suite: { id: PLUGIN_SUITE.id, version: PLUGIN_SUITE.version, specification: `Agent Plugins ${AGENT_PLUGINS_VERSION}` },
    selectedRule: selected,
    result,
    exitCode: exitOf(result),
    qualification,
    components: ev.components,
    summary,
    rules,
    findings: ev.findings,
    omittedFindings: ev.omittedFindings,
    incomplete: ev.incomplete,
  };
}

export function buildPluginReportSet(
  input: string,
  packages: Array<{ path: string; report: PluginReport }>,
  note: string | null = null,
): PluginReportSet {
  let result: Result = packages.length === 0 || note !== null ? 'unknown' : 'n/a';
  for (const p of packages) if (RANK[p.report.result] > RANK[result]) result = p.report.result;
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: 'veronikai check', checker: CHECKER_VERSION },
    target: { input, kind: 'agent-plugin-collection', scope: 'document' },
    result,
    exitCode: exitOf(result),
    note: note ?? (packages.length === 0 ? 'no plugin package (a directory with plugin.json) was found' : null),
    packages,
  };
}

// ---------------------------------------------------------------- terminal

const STATE_WORDS: Record<string, string> = {
  valid: 'present (valid)',
  invalid: 'present (invalid)',
  absent: 'absent',
  incomplete: 'present (could not be read completely)',
  'not-checked': 'not checked',
};

function joinPath(dir: string, file: string): string {
  const d = dir.replace(/\\/g, '/').replace(/\/+$/, '');
  return d === '' || d === '.' ? file : `${d}/${file}`;
}

export function renderPluginTerminal(report: PluginReport): string {
  const L: string[] = [];
  const c = report.components;
  L.push(`VeronikAI check - Agent Plugins ${AGENT_PLUGINS_VERSION} package`);
  L.push(`Target: ${report.target.input}`);
  L.push(`Checker: ${report.tool.checker}; ${report.suite.id} v${report.suite.version}`);
  L.push('Components:');
  L.push(`  Manifest: ${STATE_WORDS[c.manifest]}`);
  L.push(
    `  Skills: ${STATE_WORDS[c.skills.state]}${c.skills.discovered > 0 ? ` - ${c.skills.valid} of ${c.skills.discovered} skills valid` : ''}`,
  );
  L.push(
    `  MCP configuration: ${STATE_WORDS[c.mcp.state]}${c.mcp.servers > 0 ? ` - ${c.mcp.valid} of ${c.mcp.servers} servers valid` : ''}`,
  );
  L.push('');
  for (const f of report.findings) {
    const where = joinPath(report.target.input, f.location);
    const pos = f.line !== null ? ` (line ${f.line}, column ${f.column})` : '';
    L.push(`✗ FAIL ${f.ruleId} ${where}${pos}`);
    L.push(`  ${f.message}`);
    L.push(`  Spec: ${f.spec.section} ${f.spec.url}`);
  }
  if (report.omittedFindings > 0) L.push(`  … and ${report.omittedFindings} more findings (see --json)`);
  for (const i of report.incomplete) {
    L.push(`? UNABLE TO COMPLETE ${i.ruleId} ${joinPath(report.target.input, i.location)}`);
    L.push(`  ${i.reason}.`);
  }
  if (report.findings.length > 0 || report.incomplete.length > 0) L.push('');
  const s = report.summary;
  const parts = [`${s.passed} passed`, `${s.failed} failed`];
  if (s.unableToComplete) parts.push(`${s.unableToComplete} unable to complete`);
  if (s.blocked) parts.push(`${s.blocked} blocked by a failed prerequisite`);
  if (s.notApplicable) parts.push(`${s.notApplicable} not applicable`);
  if (s.excluded) parts.push(`${s.excluded} excluded`);
  const counts = `rules: ${parts.join(', ')}`;
  switch (report.result) {
    case 'pass':
      L.push(`✓ ${report.selectedRule ? 'LIMITED PASS' : 'QUALIFIED PASS'} - ${counts}.`);
      L.push(report.qualification);
      break;
    case 'fail':
      L.push(`✗ FAIL - ${counts}.`);
      break;
    case 'unknown':
      L.push(`? UNABLE TO COMPLETE - ${counts}.`);
      L.push(report.qualification.split('. PASS is qualified')[0]!.replace(/^UNABLE TO COMPLETE: /, '') + '.');
      break;
    case 'n/a':
      L.push(
        `- NOT APPLICABLE - ${report.selectedRule ? `${report.selectedRule} has nothing to judge in this package` : 'nothing to judge'} (${counts}).`,
      );
      if (report.selectedRule) L.push(report.qualification);
      break;
  }
  return L.join('\n') + '\n';
}

export function renderPluginSetTerminal(set: PluginReportSet): string {
  const parts = set.packages.map((p) => renderPluginTerminal(p.report));
  const tally = (r: Result): number => set.packages.filter((p) => p.report.result === r).length;
  const L = [
    `${set.packages.length} plugin package${set.packages.length === 1 ? '' : 's'} under ${set.target.input}: ${tally('pass')} passed, ${tally('fail')} failed, ${tally('unknown')} unable to complete, ${tally('n/a')} not applicable.`,
  ];
  if (set.note) L.push(`? ${set.note}.`);
  return (parts.length ? parts.join('\n') + '\n' : '') + L.join('\n') + '\n';
}

export function renderPluginRuleList(): string {
  const L = [`${PLUGIN_SUITE.id} v${PLUGIN_SUITE.version} (Agent Plugins ${AGENT_PLUGINS_VERSION})`];
  for (const r of PLUGIN_RULES) {
    L.push(`  ${r.id.padEnd(15)} ${r.severity.padEnd(4)} doc  ${r.title}`);
    L.push(`  ${''.padEnd(15)} ${r.section} ${r.link}`);
  }
  return L.join('\n') + '\n';
}

// ---------------------------------------------------------------- SARIF 2.1.0

function driverRule(id: string): object {
  const r = getPluginRule(id)!;
  return {
    id: r.id,
    name: r.title.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : '')),
    shortDescription: { text: r.title },
    fullDescription: { text: r.description },
    helpUri: r.link,
    help: { text: `${r.description} Spec: ${r.section} ${r.link}` },
    defaultConfiguration: { level: r.severity === 'fail' ? 'error' : 'warning' },
    properties: { suite: PLUGIN_SUITE.id, suiteVersion: PLUGIN_SUITE.version, basis: r.basis, needs: r.needs },
  };
}

function sarifResults(
  report: PluginReport,
  ruleIds: string[],
  base: string,
  opts: SarifOptions,
): Array<{ artifact: ArtifactLocation; result: Record<string, unknown> }> {
  return report.findings.map((f) => {
    const artifact = localArtifact(joinPath(base, f.file), opts);
    return {
      artifact,
      result: {
        ruleId: f.ruleId,
        ruleIndex: ruleIds.indexOf(f.ruleId),
        level: f.severity === 'fail' ? 'error' : 'warning',
        message: { text: `${f.message} (spec: ${f.spec.section} ${f.spec.url})` },
        locations: [
          {
            physicalLocation: {
              artifactLocation: artifact,
              ...(f.line !== null ? { region: { startLine: f.line, startColumn: f.column ?? 1 } } : {}),
            },
            ...(f.pointer !== null ? { logicalLocations: [{ fullyQualifiedName: f.location, kind: 'element' }] } : {}),
          },
        ],
        properties: { jsonPointer: f.pointer, location: f.location, specUrl: f.spec.url },
      },
    };
  });
}

/**
 * SARIF 2.1.0 for one package report or a set (one run). File paths inside `opts.root` (the
 * working directory) are relative to %SRCROOT%; without a root they stay input-relative.
 */
export function renderPluginSarif(report: PluginReport | PluginReportSet, opts: SarifOptions = {}): object {
  const reports: Array<{ base: string; report: PluginReport }> =
    'packages' in report ? report.packages.map((p) => ({ base: p.path, report: p.report })) : [{ base: report.target.input, report }];
  const ruleIds = PLUGIN_RULES.map((r) => r.id);
  const found = reports.flatMap((r) => sarifResults(r.report, ruleIds, r.base, opts));
  const prints = fingerprints(
    found.map(({ artifact, result }) => ({
      ruleId: String(result.ruleId),
      artifact,
      place: String((result.properties as { location: string }).location),
    })),
  );
  const results = found.map(({ result }, i) => ({ ...result, partialFingerprints: prints[i]! }));
  const notes = reports.flatMap((r) =>
    r.report.incomplete.map((i) => ({
      level: 'error',
      message: { text: `${i.ruleId} unable to complete at ${joinPath(r.base, i.location)}: ${i.reason}.` },
    })),
  );
  if ('packages' in report && report.note) notes.push({ level: 'error', message: { text: `${report.note}.` } });
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: { driver: { name: 'VeronikAI', version: CHECKER_VERSION, rules: ruleIds.map(driverRule) } },
        ...originalUriBaseIds(
          found.map((r) => r.artifact),
          opts,
        ),
        invocations: [
          {
            executionSuccessful: report.exitCode !== 2,
            exitCode: report.exitCode,
            ...(notes.length > 0 ? { toolExecutionNotifications: notes } : {}),
          },
        ],
        results,
        properties: {
          result: report.result,
          suite: { id: PLUGIN_SUITE.id, version: PLUGIN_SUITE.version },
          qualifications: reports.map((r) => ({
            target: r.report.target.input,
            result: r.report.result,
            qualification: r.report.qualification,
          })),
        },
      },
    ],
  };
}
