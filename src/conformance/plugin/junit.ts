import { junitXml, type JUnitCase, type JUnitSuite } from '../junit.js';
import { CHECKER_VERSION } from '../version.js';
import { getPluginRule } from './catalogue.js';
import type { PluginReport, PluginReportSet } from './report.js';

/**
 * JUnit XML of Agent Plugins packages (`--format junit`): one test suite per package, one test
 * case per rule. A failed rule is a <failure> with its findings, a rule unable to complete an
 * <error> (as is a blocked one when the package's answer is "unable to complete"), the rest
 * <skipped> with the reason. Pure.
 */

const joinPath = (dir: string, file: string): string => {
  const d = dir.replace(/\\/g, '/').replace(/\/+$/, '');
  return d === '' || d === '.' ? file : `${d}/${file}`;
};

function suiteOf(base: string, report: PluginReport): JUnitSuite {
  const cases = report.rules.map((line): JUnitCase => {
    const rule = getPluginRule(line.id);
    const c = { classname: report.suite.id, name: `${line.id} ${rule?.title ?? ''}`.trim() };
    switch (line.outcome) {
      case 'pass':
        return { ...c, status: 'passed' };
      case 'fail': {
        const fs = report.findings.filter((f) => f.ruleId === line.id);
        const details = fs
          .map(
            (f) =>
              `${f.severity === 'fail' ? 'FAIL' : 'WARN'} ${f.ruleId} ${joinPath(base, f.location)}${f.line !== null ? ` (line ${f.line}, column ${f.column ?? 1})` : ''}\n  ${f.message}\n  Spec: ${f.spec.section} ${f.spec.url}`,
          )
          .join('\n');
        return {
          ...c,
          status: 'failed',
          message: fs[0]?.message ?? rule?.description ?? line.id,
          details: details || '(its findings are past the findings cap: see --json)',
        };
      }
      case 'unable-to-complete': {
        const why = report.incomplete.filter((i) => i.ruleId === line.id).map((i) => `${joinPath(base, i.location)}: ${i.reason}`);
        return {
          ...c,
          status: 'error',
          message: `unable to complete: ${why[0] ?? 'see the report'}`,
          details: why.join('\n') || report.qualification,
        };
      }
      case 'blocked':
        return report.result === 'unknown'
          ? { ...c, status: 'error', message: 'blocked: a prerequisite could not be judged', details: report.qualification }
          : { ...c, status: 'skipped', message: 'blocked: a prerequisite failed' };
      case 'excluded':
        return {
          ...c,
          status: 'skipped',
          message: `excluded: only ${report.selectedRule ?? 'another rule'} and what it needs were selected`,
        };
      default:
        return { ...c, status: 'skipped', message: 'not applicable to this package' };
    }
  });
  return {
    name: `${report.suite.id} v${report.suite.version} ${base}`,
    properties: [
      ['checker', CHECKER_VERSION],
      ['target', base],
      ['check result', report.result],
      ['exit code', String(report.exitCode)],
      ['qualification', report.qualification],
    ],
    cases,
  };
}

export function renderPluginJUnit(report: PluginReport | PluginReportSet): string {
  const suites = 'packages' in report ? report.packages.map((p) => suiteOf(p.path, p.report)) : [suiteOf(report.target.input, report)];
  // A set whose search stopped at a bound (or found nothing) could not complete: say so as an error.
  if ('packages' in report && report.note) {
    suites.push({
      name: `veronikai check ${report.target.input}`,
      properties: [
        ['check result', report.result],
        ['exit code', String(report.exitCode)],
      ],
      cases: [{ classname: 'veronikai-check', name: 'package search', status: 'error', message: report.note, details: report.note }],
    });
  }
  return junitXml(`veronikai check ${report.target.input}`, suites);
}
