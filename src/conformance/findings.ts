import { getRule, RULES } from './catalogue.js';
import type { Artifact, Finding } from './types.js';

/** At most this many findings are listed per verdict; the rest are counted in `omittedFindings`. */
export const MAX_FINDINGS = 200;

/** Every catalogue rule ID in Array.prototype.sort order, and each one's place in it. */
const SORTED_IDS = RULES.map((r) => r.id).sort();
const RANK = new Map(SORTED_IDS.map((id, i) => [id, i]));

/**
 * The IDs of `set` in Array.prototype.sort order. Every verdict lists its evaluated rules sorted;
 * sorting catalogue IDs by their rank as small integers (a typed-array sort) costs half a string
 * sort. An ID outside the catalogue falls back to the string sort.
 */
export function sortedRuleIds(set: ReadonlySet<string>): string[] {
  const ranks = new Uint16Array(set.size);
  let i = 0;
  for (const id of set) {
    const r = RANK.get(id);
    if (r === undefined) return [...set].sort();
    ranks[i++] = r;
  }
  ranks.sort();
  const out = new Array<string>(ranks.length);
  for (let j = 0; j < ranks.length; j++) out[j] = SORTED_IDS[ranks[j]!]!;
  return out;
}

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
    return sortedRuleIds(this.flagged);
  }

  /** Sorted IDs of the rules with findings that are not listed. */
  unlistedRules(): string[] {
    return sortedRuleIds(this.unlisted);
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
