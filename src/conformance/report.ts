import type { Attestation } from './attestation.js';
import { CATALOGUE, getRule, RULES, type Rule } from './catalogue.js';
import { locatePointers, type TextPosition } from '../core/json-locate.js';
import type { Finding, Result } from './types.js';
import type { UptimeVerdict } from './uptime.js';
import {
  fingerprints,
  localArtifact,
  originalUriBaseIds,
  SARIF_SCHEMA_URI,
  SARIF_VERSION,
  urlArtifact,
  type SarifOptions,
} from './sarif.js';
import { displayLocation, type Verdict } from './verdict.js';
import { CHECKER_VERSION, REPORT_VERSION, SUITES, type SuiteKey } from './version.js';

/**
 * What `veronikai check` prints: terminal text, a versioned JSON report, or SARIF 2.1.0.
 * Pure: the CLI gathers the inputs and writes the output.
 *
 * Result and exit code (the same in every output format; the CLI exits with `exitCode`):
 * - 0 `pass` or `n/a`: the selected rules passed or legitimately do not apply;
 * - 1 `fail`: at least one selected conformance rule failed;
 * - 2 `unknown`: a selected rule was unable to complete — the check could not finish fairly,
 *   a prerequisite failed (`blocked`), or the selected rule needs an input this check does not
 *   have (a live GET on a file check, a server.json on an endpoint check: `not-run`). Such a
 *   rule is INCOMPLETE, never guessed as a pass or as not applicable.
 *
 * Mixed outcomes (report version 1 contract): when one verdict fails and another is incomplete
 * (or one suite fails while part of it could not run), the result is `fail` and the exit code 1,
 * in terminal, JSON and SARIF output alike: a definite failure wins over an incomplete check.
 * The incomplete parts stay visible (verdict reasons, `not-run` rule outcomes).
 */

export type TargetKind = 'a2a-card' | 'mcp-server-json' | 'mcp-endpoint';
export type RuleOutcome = 'pass' | 'fail' | 'warn' | 'blocked' | 'not-run' | 'not-applicable' | 'excluded';

export interface CheckRun {
  /** The file path or URL as the user gave it. */
  input: string;
  kind: TargetKind;
  /** `document`: a file, nothing called; `live`: judged from a GET-only fetch. */
  scope: 'document' | 'live';
  verdicts: Verdict[];
  uptime?: UptimeVerdict | null;
  selectedRule?: string | null;
  /** Document text, used only to turn JSON pointers into line/column. */
  text?: string;
  attestations?: Attestation[];
}

export interface RuleLine {
  id: string;
  suite: string;
  severity: Rule['severity'];
  outcome: RuleOutcome;
}

export interface CheckReport {
  reportVersion: typeof REPORT_VERSION;
  tool: { name: 'veronikai check'; checker: string };
  target: { input: string; kind: TargetKind; scope: 'document' | 'live' };
  selectedRule: string | null;
  result: Result;
  exitCode: 0 | 1 | 2;
  /**
   * Why a pass is qualified (or a result limited); always present. When a selected rule was
   * unable to complete it starts with `UNABLE TO COMPLETE: <why>.`
   */
  qualification: string;
  summary: { passed: number; failed: number; warned: number; blocked: number; notRun: number; notApplicable: number; excluded: number };
  rules: RuleLine[];
  verdicts: Verdict[];
  uptime: UptimeVerdict | null;
  attestations: Attestation[];
}

const SUITE_OF_ID = new Map<string, SuiteKey>(Object.entries(SUITES).map(([k, s]) => [s.id, k as SuiteKey]));

function suiteKeyOf(v: Verdict): SuiteKey | undefined {
  return SUITE_OF_ID.get(v.suite.id);
}

function outcomeOf(rule: Rule, v: Verdict | undefined, selected: string | null, kind: TargetKind): RuleOutcome {
  if (selected && rule.id !== selected) return 'excluded';
  if (!v) return 'not-applicable';
  // rulesFlagged counts findings past the findings cap too: a capped rule is never a pass.
  if (v.rulesFlagged.includes(rule.id)) return rule.severity === 'fail' ? 'fail' : 'warn';
  if (v.rulesEvaluated.includes(rule.id)) return 'pass';
  if (failedPrerequisites(rule.id, v).length > 0) return 'blocked';
  if (notRunWhy(rule, v, kind) !== null) return 'not-run';
  return 'not-applicable';
}

/** The prerequisites of rule `id` (transitively) that failed in its suite's verdict. */
function failedPrerequisites(id: string, v: Verdict): string[] {
  const needs = CATALOGUE.closure(id);
  return v.rulesFlagged.filter((f) => f !== id && needs.has(f));
}

/** Why `rule` was not run on this verdict, or null when it simply does not apply. */
function notRunWhy(rule: Rule, v: Verdict, kind: TargetKind): string | null {
  if (v.result === 'unknown') {
    const why = v.reasons.find((r) => r.startsWith('unknown: '));
    return `the check could not complete${why ? ` (${why.slice('unknown: '.length)})` : ''}`;
  }
  if (rule.needs === 'live' && v.scope === 'document') {
    return 'it needs a live GET, and a file check fetches nothing: check the URL instead';
  }
  if (kind === 'mcp-endpoint' && rule.suite === 'mcp' && rule.needs === 'document') {
    return 'it needs a server.json, and an endpoint check (--kind mcp) reads none: check the server.json instead';
  }
  return null;
}

/** Why the selected rule could not complete (the result is then `unknown`, exit 2), or null. */
function incompleteWhy(rules: RuleLine[], bySuite: Map<SuiteKey, Verdict>, selected: string | null, kind: TargetKind): string | null {
  if (!selected) return null;
  const line = rules.find((r) => r.id === selected);
  const rule = getRule(selected);
  const v = rule ? bySuite.get(rule.suite) : undefined;
  if (!line || !rule || !v) return null;
  if (line.outcome === 'blocked') {
    return `${selected} could not be evaluated: its prerequisite ${failedPrerequisites(selected, v).join(', ')} failed`;
  }
  if (line.outcome === 'not-run') return `${selected} was not run: ${notRunWhy(rule, v, kind) ?? 'the check could not complete'}`;
  return null;
}

function bySuiteOf(verdicts: Verdict[]): Map<SuiteKey, Verdict> {
  const m = new Map<SuiteKey, Verdict>();
  for (const v of verdicts) {
    const k = suiteKeyOf(v);
    if (k) m.set(k, v);
  }
  return m;
}

/** Why the report's selected rule was unable to complete, or null (also null unless the result is `unknown`). */
function incompleteOf(run: CheckRun, report: CheckReport): string | null {
  if (report.result !== 'unknown') return null;
  return incompleteWhy(report.rules, bySuiteOf(report.verdicts), report.selectedRule, run.kind);
}

const RANK: Record<Result, number> = { fail: 3, unknown: 2, pass: 1, 'n/a': 0 };

export function buildReport(run: CheckRun): CheckReport {
  const selected = run.selectedRule ?? null;
  const bySuite = bySuiteOf(run.verdicts);
  const rules: RuleLine[] = [];
  for (const r of RULES) {
    if (!bySuite.has(r.suite)) continue;
    rules.push({
      id: r.id,
      suite: SUITES[r.suite].id,
      severity: r.severity,
      outcome: outcomeOf(r, bySuite.get(r.suite), selected, run.kind),
    });
  }
  const count = (o: RuleOutcome): number => rules.filter((r) => r.outcome === o).length;
  const summary = {
    passed: count('pass'),
    failed: count('fail'),
    warned: count('warn'),
    blocked: count('blocked'),
    notRun: count('not-run'),
    notApplicable: count('not-applicable'),
    excluded: count('excluded'),
  };

  let result: Result;
  const incomplete = incompleteWhy(rules, bySuite, selected, run.kind);
  if (selected) {
    const line = rules.find((r) => r.id === selected);
    if (!line)
      result = 'n/a'; // the rule belongs to another protocol's suite: legitimately not applicable
    else if (line.outcome === 'fail') result = 'fail';
    else if (line.outcome === 'pass' || line.outcome === 'warn') result = 'pass';
    else if (incomplete !== null)
      result = 'unknown'; // blocked or not run: INCOMPLETE, not guessed
    else result = 'n/a';
  } else {
    // Mixed outcomes: fail outranks unknown (report v1 contract, see the module comment).
    result = 'n/a';
    for (const v of run.verdicts) if (RANK[v.result] > RANK[result]) result = v.result;
  }
  const exitCode: 0 | 1 | 2 = result === 'fail' ? 1 : result === 'unknown' ? 2 : 0;

  let what =
    run.scope === 'document'
      ? 'structure only: the document was read, nothing was called'
      : 'one GET-only fetch: no agent method, MCP request or tool was called';
  if (run.kind === 'mcp-server-json') what += `; ${SUITES.mcp.id} v${SUITES.mcp.version} transport rules were not run (no live GET)`;
  if (run.kind === 'mcp-endpoint') what += `; ${SUITES.mcp.id} v${SUITES.mcp.version} quality rules were not run (no server.json)`;
  let qualification = `PASS is qualified: ${what}; a pass never says the agent works or is good at its job.`;
  if (selected) {
    qualification = `LIMITED: only ${selected} was selected; ${summary.excluded} other rules were excluded. ${qualification}`;
  }
  if (result === 'unknown' && incomplete !== null) qualification = `UNABLE TO COMPLETE: ${incomplete}. ${qualification}`;
  return {
    reportVersion: REPORT_VERSION,
    tool: { name: 'veronikai check', checker: CHECKER_VERSION },
    target: { input: run.input, kind: run.kind, scope: run.scope },
    selectedRule: selected,
    result,
    exitCode,
    qualification,
    summary,
    rules,
    verdicts: run.verdicts,
    uptime: run.uptime ?? null,
    attestations: run.attestations ?? [],
  };
}

// ---------------------------------------------------------------- terminal

const KIND_TITLE: Record<TargetKind, string> = {
  'a2a-card': 'A2A agent card',
  'mcp-server-json': 'MCP server.json',
  'mcp-endpoint': 'MCP endpoint (transport rules only)',
};

function positions(run: CheckRun): Map<string, TextPosition> {
  if (typeof run.text !== 'string') return new Map();
  const ptrs = run.verdicts.flatMap((v) => v.findings.filter((f) => f.artifact === 'document').map((f) => f.location));
  return locatePointers(run.text, ptrs);
}

/** Every finding; with --rule, those of the selected rule and of the rules it needs. */
function findingsShown(report: CheckReport): Finding[] {
  const selected = report.selectedRule;
  const shown = selected ? CATALOGUE.closure(selected) : null;
  const out: Finding[] = [];
  for (const v of report.verdicts) for (const f of v.findings) if (shown === null || shown.has(f.ruleId)) out.push(f);
  return out;
}

/** How a structural verdict attributed the card's A2A version, for people. */
function attributionLines(a: NonNullable<Verdict['a2a']>): string[] {
  if (a.route === 'none') return ['Attribution: no recognised A2A claim (no structural verdict)'];
  const how =
    a.route === 'declared'
      ? `declared by ${a.basis === 'json-ld-context' ? '@context' : 'protocolVersion'} ${JSON.stringify(a.claimed)}`
      : a.route === 'conflict'
        ? `conflict: supportedInterfaces with protocolVersion ${JSON.stringify(a.claimed)}`
        : `inferred from ${a.basis === 'url' ? 'url' : 'supportedInterfaces'}`;
  const extra = [`tolerant_valid: ${a.tolerantValid ? 'yes' : 'no'}`];
  if (a.alternative)
    extra.push(
      `under the alternative ${a.alternative.version}: ${a.alternative.valid ? 'valid' : `invalid (${a.alternative.violationCount} violation${a.alternative.violationCount === 1 ? '' : 's'})`}`,
    );
  return [`Attribution: A2A ${a.version} (${how}); schema ${a.schema}`, `             ${extra.join('; ')}`];
}

export function renderTerminal(run: CheckRun, report: CheckReport = buildReport(run)): string {
  const L: string[] = [];
  const pos = positions(run);
  L.push(`VeronikAI check - ${KIND_TITLE[run.kind]}`);
  L.push(`Target: ${run.input}`);
  L.push(`Checker: ${CHECKER_VERSION}; ${report.verdicts.map((v) => `${v.suite.id} v${v.suite.version}`).join(', ')}`);
  for (const v of report.verdicts) if (v.a2a) L.push(...attributionLines(v.a2a));
  if (report.uptime) L.push(`Uptime: ${report.uptime.state} (${report.uptime.reason})`);
  L.push('');
  const shown = findingsShown(report);
  for (const f of shown) {
    const label = f.severity === 'fail' ? 'FAIL' : 'WARN';
    const mark = f.severity === 'fail' ? '✗' : '!';
    let where = f.artifact === 'document' ? `${run.input}${displayLocation(f)}` : f.location;
    const p = f.artifact === 'document' ? pos.get(f.location) : undefined;
    if (p) where += p.exact ? ` (line ${p.line}, column ${p.column})` : ` (in the object at line ${p.line}, column ${p.column})`;
    L.push(`${mark} ${label} ${f.ruleId} ${where}`);
    L.push(`  ${f.message}`);
    L.push(`  Spec: ${f.spec.section} ${f.spec.url}`);
  }
  for (const v of report.verdicts) {
    if (v.omittedFindings > 0) L.push(`  … and ${v.omittedFindings} more findings in ${v.suite.id} (see --json)`);
  }
  if (shown.length > 0) L.push('');
  for (const v of report.verdicts) {
    const other = v.reasons.filter((r) => r.startsWith('unknown:') || r.startsWith('n/a:'));
    const why = other.map((r) => r.replace(/^(unknown|n\/a): /, ''));
    L.push(`${v.suite.id} v${v.suite.version}: ${v.result.toUpperCase()}${why.length ? ` - ${why.join('; ')}` : ''}`);
  }
  const s = report.summary;
  const parts = [`${s.passed} passed`, `${s.failed} failed`];
  if (s.warned) parts.push(`${s.warned} with warnings`);
  if (s.blocked) parts.push(`${s.blocked} blocked by a failed prerequisite`);
  if (s.notRun) parts.push(`${s.notRun} not run (${notRunSummary(run, report)})`);
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
      {
        const why = incompleteOf(run, report);
        if (why !== null) L.push(`${why}.`);
      }
      break;
    case 'n/a':
      L.push(
        `- NOT APPLICABLE - ${report.selectedRule ? `${report.selectedRule} does not apply to this ${KIND_TITLE[run.kind]}` : "nothing of the protocol's paperwork to judge"}.`,
      );
      break;
  }
  for (const a of report.attestations)
    L.push(`Signed: ${a.payload.suite.id} v${a.payload.suite.version} ${a.payload.result} by ${a.keyId}`);
  return L.join('\n') + '\n';
}

/** Why the not-run rules of a report were not run, in a few words. */
function notRunSummary(run: CheckRun, report: CheckReport): string {
  const words = new Set<string>();
  for (const line of report.rules) {
    if (line.outcome !== 'not-run') continue;
    const rule = getRule(line.id);
    const v = report.verdicts.find((x) => x.suite.id === line.suite);
    if (!rule || !v) continue;
    if (v.result === 'unknown') words.add('could not complete');
    else if (rule.needs === 'live') words.add('need a live GET');
    else if (run.kind === 'mcp-endpoint') words.add('need a server.json');
  }
  return [...words].join('; ') || 'could not complete';
}

// ---------------------------------------------------------------- rule listing

export function renderRuleList(): string {
  const L: string[] = [`VeronikAI rule catalogue (${CHECKER_VERSION})`, ''];
  let suite = '';
  for (const r of RULES) {
    const s = SUITES[r.suite];
    if (s.id !== suite) {
      suite = s.id;
      L.push(`${s.id} v${s.version}`);
    }
    L.push(`  ${r.id.padEnd(15)} ${r.severity.padEnd(4)} ${r.needs === 'live' ? 'live' : 'doc '} ${r.title}`);
    L.push(`  ${''.padEnd(15)} ${r.section} ${r.link}`);
  }
  return L.join('\n') + '\n';
}

// ---------------------------------------------------------------- SARIF 2.1.0

/** SARIF 2.1.0; a file input inside `opts.root` (the working directory) is relative to %SRCROOT%. */
export function renderSarif(run: CheckRun, report: CheckReport = buildReport(run), opts: SarifOptions = {}): object {
  const pos = positions(run);
  const incomplete = incompleteOf(run, report);
  const ruleIds = report.rules.map((r) => r.id);
  const driverRules = ruleIds.map((id) => {
    const r = getRule(id)!;
    return {
      id: r.id,
      name: r.title.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')),
      shortDescription: { text: r.title },
      fullDescription: { text: r.description },
      helpUri: r.link,
      help: { text: `${r.description} Spec: ${r.section} ${r.link}` },
      defaultConfiguration: { level: r.severity === 'fail' ? 'error' : 'warning' },
      properties: { suite: SUITES[r.suite].id, suiteVersion: SUITES[r.suite].version, basis: r.basis, needs: r.needs },
    };
  });
  const documentArtifact = run.scope === 'document' ? localArtifact(run.input, opts) : urlArtifact(run.input);
  const shown = findingsShown(report);
  const artifacts = shown.map((f) => (f.artifact === 'document' ? documentArtifact : urlArtifact(f.location)));
  const prints = fingerprints(
    shown.map((f, i) => ({ ruleId: f.ruleId, artifact: artifacts[i]!, place: f.artifact === 'document' ? f.location : '' })),
  );
  const results = shown.map((f, i) => {
    const p = f.artifact === 'document' ? pos.get(f.location) : undefined;
    const physicalLocation =
      f.artifact === 'document'
        ? { artifactLocation: artifacts[i]!, region: { startLine: p?.line ?? 1, startColumn: p?.column ?? 1 } }
        : { artifactLocation: artifacts[i]! };
    return {
      ruleId: f.ruleId,
      ruleIndex: ruleIds.indexOf(f.ruleId),
      level: f.severity === 'fail' ? 'error' : 'warning',
      message: { text: `${f.message} (spec: ${f.spec.section} ${f.spec.url})` },
      locations: [
        {
          physicalLocation,
          ...(f.artifact === 'document'
            ? { logicalLocations: [{ fullyQualifiedName: f.location === '' ? '/' : f.location, kind: 'element' }] }
            : {}),
        },
      ],
      partialFingerprints: prints[i]!,
      properties: { jsonPointer: f.artifact === 'document' ? f.location : null, specUrl: f.spec.url },
    };
  });
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: { driver: { name: 'VeronikAI', version: CHECKER_VERSION, rules: driverRules } },
        ...originalUriBaseIds(artifacts, opts),
        invocations: [
          {
            executionSuccessful: report.exitCode !== 2,
            exitCode: report.exitCode,
            ...(incomplete !== null ? { toolExecutionNotifications: [{ level: 'error', message: { text: `${incomplete}.` } }] } : {}),
          },
        ],
        results,
        properties: { result: report.result, qualification: report.qualification, suites: report.verdicts.map((v) => v.suite) },
      },
    ],
  };
}
