import { getRule } from './catalogue.js';
import type { Artifact, Finding } from './types.js';

/** At most this many findings are listed per verdict; the rest are counted in `omittedFindings`. */
export const MAX_FINDINGS = 200;

/**
 * Collects findings, the set of rules that were actually evaluated, and the set of rules that
 * produced a finding. The last one is kept for every finding, listed or not: a rule whose
 * findings all fall past MAX_FINDINGS is still a flagged rule (a capped rule never reads as a pass).
 */
export class FindingSink {
  readonly list: Finding[] = [];
  omitted = 0;
  readonly evaluated = new Set<string>();
  private readonly flagged = new Set<string>();
  /** Rules with at least one finding that is counted in `omitted` rather than listed. */
  private readonly unlisted = new Set<string>();

  evaluate(...ruleIds: string[]): void {
    for (const id of ruleIds) this.evaluated.add(id);
  }

  add(ruleId: string, artifact: Artifact, location: string, message: string, spec?: Finding['spec']): void {
    const rule = this.flag(ruleId);
    if (this.list.length >= MAX_FINDINGS) {
      this.omitted++;
      this.unlisted.add(ruleId);
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

  /** Counts `n` findings of `ruleId` that were found but never listed (a producer capped them itself). */
  addUnlisted(ruleId: string, n: number): void {
    if (n <= 0) return;
    this.flag(ruleId);
    this.omitted += n;
    this.unlisted.add(ruleId);
  }

  private flag(ruleId: string): NonNullable<ReturnType<typeof getRule>> {
    const rule = getRule(ruleId);
    if (!rule) throw new Error(`unknown rule ${ruleId}`);
    this.evaluated.add(ruleId);
    this.flagged.add(ruleId);
    return rule;
  }

  /** Sorted IDs of every rule that produced a finding, listed or omitted. */
  flaggedRules(): string[] {
    return [...this.flagged].sort();
  }

  /** Sorted IDs of the rules with findings that are not listed. */
  unlistedRules(): string[] {
    return [...this.unlisted].sort();
  }

  /** True when a fail-severity rule produced a finding, listed or omitted. */
  hasFailure(): boolean {
    for (const id of this.flagged) if (getRule(id)?.severity === 'fail') return true;
    return false;
  }

  has(ruleId: string): boolean {
    return this.flagged.has(ruleId);
  }
}
