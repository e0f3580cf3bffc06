import { getRule } from '../catalogue.js';
import { junitXml, type JUnitCase } from '../junit.js';
import { getInspectRule, INSPECT_SUITE } from './catalogue.js';
import type { InspectReport } from './report.js';

/**
 * JUnit XML of an inspect (`--format junit`): one test case per rule the inspect judged (its
 * checks' rules, then the index suites' rules with findings on the card). A rule with a failing
 * finding is a <failure>, one with warnings passes with them in <system-out>, one whose checks
 * passed passes. An inspect that could not complete (exit 2) adds one <error> saying why. Pure.
 */
export function renderInspectJUnit(r: InspectReport): string {
  const ids: string[] = [];
  for (const id of [...r.checks.map((c) => c.ruleId), ...r.findings.map((f) => f.ruleId)])
    if (id !== null && !ids.includes(id)) ids.push(id);
  const cases = ids.map((id): JUnitCase => {
    const rule = getInspectRule(id) ?? getRule(id);
    const c = {
      classname: getInspectRule(id) ? INSPECT_SUITE.id : rule ? 'veronikai (check suites)' : 'veronikai',
      name: `${id} ${rule?.title ?? ''}`.trim(),
    };
    const fs = r.findings.filter((f) => f.ruleId === id);
    const text = fs
      .map((f) => `${f.severity === 'fail' ? 'FAIL' : 'WARN'} ${id} ${f.location}\n  ${f.message}\n  Spec: ${f.spec.section} ${f.spec.url}`)
      .join('\n');
    if (fs.some((f) => f.severity === 'fail'))
      return { ...c, status: 'failed', message: fs.find((f) => f.severity === 'fail')!.message, details: text };
    if (fs.length > 0) return { ...c, status: 'passed', output: text };
    return { ...c, status: 'passed' };
  });
  if (r.exitCode === 2)
    cases.push({
      classname: INSPECT_SUITE.id,
      name: 'inspect completed',
      status: 'error',
      message: r.qualification,
      details: r.qualification,
    });
  return junitXml(`veronikai inspect ${r.target.input}`, [
    {
      name: `${INSPECT_SUITE.id} v${INSPECT_SUITE.version}`,
      properties: [
        ['checker', r.tool.checker],
        ['target', r.target.input],
        ['inspected', r.target.inspected.join(', ')],
        ['result', r.result],
        ['exit code', String(r.exitCode)],
        ['qualification', r.qualification],
      ],
      cases,
    },
  ]);
}
