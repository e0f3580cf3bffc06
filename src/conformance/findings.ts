import { Recorder } from './recorder.js';
import type { Rule, RuleSet } from './rule.js';
import type { Artifact, Finding } from './types.js';

/** The findings of a verdict suite (A2A card, A2A structure, MCP), recorded by the one recorder. */

/** At most this many findings are listed per verdict; the rest are counted in `omittedFindings`. */
export const MAX_FINDINGS = 200;

export type VerdictRecorder = Recorder<Finding>;

export function verdictRecorder(rules: RuleSet): VerdictRecorder {
  return new Recorder<Finding>(rules, MAX_FINDINGS);
}

/** Records a failure of `rule` at `location`; `spec` defaults to the rule's own section and link. */
export function flag(
  rec: VerdictRecorder,
  rule: Rule,
  artifact: Artifact,
  location: string,
  message: string,
  spec?: Finding['spec'],
): void {
  if (rec.full()) return rec.failUnlisted(rule, 1);
  rec.fail(rule, {
    ruleId: rule.id,
    severity: rule.severity,
    artifact,
    location,
    message,
    spec: spec ?? { section: rule.section, url: rule.link },
  });
}

/** Why a document that was not valid UTF-8 is not JSON text, in the words of the crawler's `invalid_utf8`. */
export const NOT_UTF8 = 'not valid UTF-8 (invalid_utf8: invalid sequences read as U+FFFD); JSON text must be UTF-8, RFC 8259 §8.1';
