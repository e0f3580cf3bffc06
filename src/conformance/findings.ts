import { getRule } from './catalogue.js';
import type { Artifact, Finding } from './types.js';

/** At most this many findings are listed per verdict; the rest are counted in `omittedFindings`. */
export const MAX_FINDINGS = 200;

/** Collects findings and the set of rules that were actually evaluated. */
export class FindingSink {
  readonly list: Finding[] = [];
  omitted = 0;
  readonly evaluated = new Set<string>();
  private readonly failed = new Set<string>();

  evaluate(...ruleIds: string[]): void {
    for (const id of ruleIds) this.evaluated.add(id);
  }

  add(ruleId: string, artifact: Artifact, location: string, message: string, spec?: Finding['spec']): void {
    const rule = getRule(ruleId);
    if (!rule) throw new Error(`unknown rule ${ruleId}`);
    this.evaluated.add(ruleId);
    this.failed.add(ruleId);
    if (this.list.length >= MAX_FINDINGS) {
      this.omitted++;
      return;
    }
    this.list.push({
      ruleId,
      severity: rule.severity,
      artifact,
      location,
      message,
      spec: spec ?? { section: rule.spec.section, url: rule.spec.url },
    });
  }

  /** Severities of every rule that produced a finding (listed or omitted). */
  failedSeverities(): Set<string> {
    const out = new Set<string>();
    for (const id of this.failed) {
      const r = getRule(id);
      if (r) out.add(r.severity);
    }
    return out;
  }

  has(ruleId: string): boolean {
    return this.failed.has(ruleId);
  }
}
