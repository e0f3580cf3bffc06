/**
 * Issue 11: every check of an inspect rests on evidence of its own (the request made, the
 * status, the relevant headers, a bounded excerpt of the body). Informational checks may have
 * none; a check that passes, fails or warns must name at least one exchange. The one legitimate
 * exception is the lint of a card read from a file (the corpus run), which never reaches here.
 */
import { expect } from 'vitest';
import type { InspectReport } from '../../src/conformance/inspect/index.js';

export function expectEvidenceOnEveryVerdict(r: InspectReport): void {
  const verdicts = r.checks.filter((c) => c.outcome !== 'info');
  expect(verdicts.length).toBeGreaterThan(0);
  expect(verdicts.filter((c) => c.evidence.length === 0).map((c) => `${c.outcome} ${c.ruleId}: ${c.message}`)).toEqual([]);
}
