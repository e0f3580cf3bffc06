import { getRule } from './catalogue.js';
import { locatePointers } from '../core/json-locate.js';
import { xmlChars } from '../core/xml.js';
import type { CheckReport, CheckRun, RuleLine } from './report.js';
import type { Finding } from './types.js';
import type { Verdict } from './verdict.js';
import { CHECKER_VERSION } from './version.js';

/**
 * JUnit XML for CI systems that read test reports (`--format junit`): one test suite per
 * conformance suite, one test case per rule. A failed rule is a <failure> carrying its findings;
 * a rule that could not complete where that makes the check incomplete (exit 2) is an <error>;
 * a rule not run, blocked by a failed prerequisite, not applicable or excluded is <skipped> with
 * the reason; a warning passes, its findings in <system-out>. Pure.
 */

export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

export interface JUnitCase {
  classname: string;
  name: string;
  status: CaseStatus;
  /** One line: the failure's, error's or skip's message. */
  message?: string;
  /** The details of a failure or error (its findings). */
  details?: string;
  /** Printed beside a case that passed (warnings). */
  output?: string;
}

export interface JUnitSuite {
  name: string;
  properties: Array<[string, string]>;
  cases: JUnitCase[];
}

/** XML 1.0 text: escaped, what XML cannot carry replaced by U+FFFD. */
function xmlText(s: string): string {
  return xmlChars(s, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const attr = (s: string): string =>
  xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

/** Long messages are cut for the attribute; the element's text keeps the whole. */
const MESSAGE_CHARS = 500;
const oneLine = (s: string): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
};

export function junitXml(name: string, suites: JUnitSuite[]): string {
  const count = (cases: JUnitCase[], s: CaseStatus): number => cases.filter((c) => c.status === s).length;
  const all = suites.flatMap((s) => s.cases);
  const totals = (cases: JUnitCase[]): string =>
    `tests="${cases.length}" failures="${count(cases, 'failed')}" errors="${count(cases, 'error')}" skipped="${count(cases, 'skipped')}"`;
  const L = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${attr(name)}" ${totals(all)}>`];
  suites.forEach((s, i) => {
    L.push(`  <testsuite name="${attr(s.name)}" id="${i}" ${totals(s.cases)}>`);
    if (s.properties.length > 0) {
      L.push('    <properties>');
      for (const [k, v] of s.properties) L.push(`      <property name="${attr(k)}" value="${attr(v)}"/>`);
      L.push('    </properties>');
    }
    for (const c of s.cases) {
      const open = `    <testcase classname="${attr(c.classname)}" name="${attr(c.name)}"`;
      const msg = c.message !== undefined ? ` message="${attr(oneLine(c.message))}"` : '';
      if (c.status === 'passed' && c.output === undefined) {
        L.push(`${open}/>`);
        continue;
      }
      L.push(`${open}>`);
      if (c.status === 'failed') L.push(`      <failure${msg} type="fail">${xmlText(c.details ?? c.message ?? '')}</failure>`);
      else if (c.status === 'error') L.push(`      <error${msg} type="incomplete">${xmlText(c.details ?? c.message ?? '')}</error>`);
      else if (c.status === 'skipped') L.push(`      <skipped${msg}/>`);
      if (c.output !== undefined) L.push(`      <system-out>${xmlText(c.output)}</system-out>`);
      L.push('    </testcase>');
    }
    L.push('  </testsuite>');
  });
  L.push('</testsuites>');
  return L.join('\n') + '\n';
}

// ---------------------------------------------------------------- check reports

function findingLines(run: CheckRun, findings: Finding[]): string {
  const pos =
    typeof run.text === 'string'
      ? locatePointers(
          run.text,
          findings.filter((f) => f.artifact === 'document').map((f) => f.location),
        )
      : new Map();
  return findings
    .map((f) => {
      const p = f.artifact === 'document' ? pos.get(f.location) : undefined;
      const where =
        f.artifact === 'document' ? `${run.input}#${f.location}${p ? ` (line ${p.line}, column ${p.column})` : ''}` : f.location;
      return `${f.severity === 'fail' ? 'FAIL' : 'WARN'} ${f.ruleId} ${where}\n  ${f.message}\n  Spec: ${f.spec.section} ${f.spec.url}`;
    })
    .join('\n');
}

function skipReason(line: RuleLine, report: CheckReport, v: Verdict | undefined): string {
  switch (line.outcome) {
    case 'excluded':
      return `excluded: only ${report.selectedRule ?? 'another rule'} was selected`;
    case 'not-applicable':
      return 'not applicable to this target';
    case 'blocked':
      return `blocked: a prerequisite failed (${(getRule(line.id)?.prerequisites ?? []).filter((p) => v?.rulesFlagged.includes(p)).join(', ') || 'see the failures'})`;
    default: {
      const rule = getRule(line.id);
      if (v?.result === 'unknown')
        return `not run: the check could not complete${v.reasons.find((r) => r.startsWith('unknown: '))?.replace(/^unknown:/, ' —') ?? ''}`;
      if (rule?.needs === 'live' && report.target.scope === 'document') return 'not run: it needs a live GET (check the URL instead)';
      return 'not run: it needs a server.json (check the server.json instead)';
    }
  }
}

/** JUnit XML of a check: one case per rule of the report, one suite per conformance suite. */
export function renderCheckJUnit(run: CheckRun, report: CheckReport): string {
  const suites: JUnitSuite[] = [];
  for (const v of report.verdicts) {
    const lines = report.rules.filter((r) => r.suite === v.suite.id);
    const cases = lines.map((line): JUnitCase => {
      const rule = getRule(line.id);
      const base = { classname: v.suite.id, name: `${line.id} ${rule?.title ?? ''}`.trim() };
      const findings = v.findings.filter((f) => f.ruleId === line.id);
      const omitted =
        findings.length === 0 && v.rulesFlagged.includes(line.id) ? '(its findings are past the findings cap: see --json)' : '';
      switch (line.outcome) {
        case 'pass':
          return { ...base, status: 'passed' };
        case 'warn':
          return { ...base, status: 'passed', output: findingLines(run, findings) || omitted };
        case 'fail':
          return {
            ...base,
            status: 'failed',
            message: findings[0]?.message ?? rule?.description ?? line.id,
            details: findingLines(run, findings) || omitted,
          };
        default: {
          const reason = skipReason(line, report, v);
          // Incomplete where that is the report's answer (exit 2): the selected rule, or any rule of a suite that could not complete.
          const incomplete =
            report.result === 'unknown' &&
            (line.outcome === 'blocked' || line.outcome === 'not-run') &&
            (report.selectedRule === line.id || (report.selectedRule === null && v.result === 'unknown'));
          return incomplete
            ? { ...base, status: 'error', message: reason, details: `${reason}\n${report.qualification}` }
            : { ...base, status: 'skipped', message: reason };
        }
      }
    });
    suites.push({
      name: `${v.suite.id} v${v.suite.version}`,
      properties: [
        ['checker', CHECKER_VERSION],
        ['target', run.input],
        ['suite result', v.result],
        ['check result', report.result],
        ['exit code', String(report.exitCode)],
        ['qualification', report.qualification],
      ],
      cases,
    });
  }
  return junitXml(`veronikai check ${run.input}`, suites);
}
