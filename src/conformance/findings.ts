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

/** Fail-severity rules as a rank bit set (WORDS 32-bit words), for hasFailure. */
const WORDS = Math.ceil(SORTED_IDS.length / 32);
/** A packed array of WORDS zeros: a new set's bits are a copy of it. */
const NO_BITS: readonly number[] = Array.from({ length: WORDS }, () => 0);
const FAIL_BITS = NO_BITS.slice();
for (const r of RULES) if (r.severity === 'fail') FAIL_BITS[RANK.get(r.id)! >> 5]! |= 1 << (RANK.get(r.id)! & 31);

/** Per catalogue rule: the rule, and its rank's word and bit (one lookup per finding). */
const BY_ID = new Map(RULES.map((r) => [r.id, { rule: r, word: RANK.get(r.id)! >> 5, bit: 1 << (RANK.get(r.id)! & 31) }]));

/** A fixed group of catalogue rules, evaluated together (built once, at module load). */
export type RuleMask = readonly number[];

export function ruleMask(...ruleIds: string[]): RuleMask {
  const m = NO_BITS.slice();
  for (const id of ruleIds) {
    const info = BY_ID.get(id);
    if (!info) throw new Error(`unknown rule ${id}`);
    m[info.word]! |= info.bit;
  }
  return m;
}

/** The IDs of a rank bit set (plus any IDs outside the catalogue), in Array.prototype.sort order. */
function sortedBits(bits: readonly number[], extra: ReadonlySet<string> | null): string[] {
  const out: string[] = [];
  // Walking the bits in rank order gives the sorted order: no sort per verdict.
  for (let w = 0; w < WORDS; w++) {
    let b = bits[w]!;
    while (b !== 0) {
      const low = b & -b;
      out.push(SORTED_IDS[(w << 5) + 31 - Math.clz32(low)]!);
      b ^= low;
    }
  }
  if (extra === null) return out;
  for (const id of extra) out.push(id);
  return out.sort();
}

/**
 * Collects findings, the set of rules that were actually evaluated, and the set of rules that
 * produced a finding. The last one is kept for every finding, listed or not: a rule whose
 * findings all fall past MAX_FINDINGS is still a flagged rule (a capped rule never reads as a pass).
 */
export class FindingSink {
  readonly list: Finding[] = [];
  omitted = 0;
  /** Evaluated and flagged rules as rank bits (adding costs one map lookup, listing no sort). */
  private readonly evaluatedBits = NO_BITS.slice();
  private readonly flaggedBits = NO_BITS.slice();
  /** Evaluated IDs outside the catalogue (flagged ones never are: add() refuses them). */
  private otherEvaluated: Set<string> | null = null;
  /** Rules with at least one finding that is counted in `omitted` rather than listed. */
  private unlisted: Set<string> | null = null;

  evaluate(...ruleIds: string[]): void {
    for (let i = 0; i < ruleIds.length; i++) {
      const id = ruleIds[i]!;
      const info = BY_ID.get(id);
      if (info === undefined) (this.otherEvaluated ??= new Set()).add(id);
      else this.evaluatedBits[info.word]! |= info.bit;
    }
  }

  /** evaluate() of every rule of a mask built by ruleMask. */
  evaluateMask(mask: RuleMask): void {
    const bits = this.evaluatedBits;
    for (let w = 0; w < WORDS; w++) bits[w]! |= mask[w]!;
  }

  add(ruleId: string, artifact: Artifact, location: string, message: string, spec?: Finding['spec']): void {
    const rule = this.flag(ruleId);
    if (this.list.length >= MAX_FINDINGS) {
      this.omitted++;
      (this.unlisted ??= new Set()).add(ruleId);
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
    (this.unlisted ??= new Set()).add(ruleId);
  }

  private flag(ruleId: string): NonNullable<ReturnType<typeof getRule>> {
    const info = BY_ID.get(ruleId);
    if (!info) throw new Error(`unknown rule ${ruleId}`);
    this.evaluatedBits[info.word]! |= info.bit;
    this.flaggedBits[info.word]! |= info.bit;
    return info.rule;
  }

  /** Sorted IDs of every rule that was evaluated. */
  evaluatedRules(): string[] {
    return sortedBits(this.evaluatedBits, this.otherEvaluated);
  }

  /** Sorted IDs of every rule that produced a finding, listed or omitted. */
  flaggedRules(): string[] {
    return sortedBits(this.flaggedBits, null);
  }

  /** Sorted IDs of the rules with findings that are not listed. */
  unlistedRules(): string[] {
    return this.unlisted === null ? [] : sortedRuleIds(this.unlisted);
  }

  /** True when a fail-severity rule produced a finding, listed or omitted (flagged IDs are all catalogue rules). */
  hasFailure(): boolean {
    const bits = this.flaggedBits;
    for (let w = 0; w < WORDS; w++) if ((bits[w]! & FAIL_BITS[w]!) !== 0) return true;
    return false;
  }

  has(ruleId: string): boolean {
    const info = BY_ID.get(ruleId);
    return info !== undefined && (this.flaggedBits[info.word]! & info.bit) !== 0;
  }
}
