import type { Rule, RuleSet } from './rule.js';

/**
 * The one recorder of rule outcomes, used by every suite (the A2A and MCP verdicts, the Agent
 * Plugins package check, the inspect). A rule judged several times (once per skill, per server,
 * per remote) keeps every outcome; it reports the worst. Findings are the suite's own shape
 * (`F`); past `maxFindings` they are counted, not listed, and their rules stay flagged, so a
 * capped failure never reads as a pass.
 */

/** `incomplete`: the rule could not be decided (an unreadable path, a bound of the reader). */
export type Outcome = 'pass' | 'fail' | 'incomplete' | 'blocked';

/** Worst first: the outcome a rule reports when its instances differ. */
const WORST_FIRST: readonly Outcome[] = ['fail', 'incomplete', 'blocked', 'pass'];

export class Recorder<F> {
  readonly findings: F[] = [];
  /** Findings counted past the cap (or counted by a check that listed none of them). */
  omitted = 0;
  /** Per rule reached: which outcomes it has had. */
  private readonly outcomes = new Map<string, Record<Outcome, boolean>>();
  /** Rules with at least one finding that is counted in `omitted` rather than listed. */
  private readonly unlisted = new Set<string>();

  constructor(
    readonly rules: RuleSet,
    private readonly maxFindings: number,
  ) {}

  /** The rules were judged and found nothing wrong (a later failure of the same rule still wins). */
  pass(...rules: Rule[]): void {
    for (const r of rules) this.mark(r, 'pass');
  }

  fail(rule: Rule, finding: F): void {
    if (this.full()) return this.failUnlisted(rule, 1);
    this.mark(rule, 'fail');
    this.findings.push(finding);
  }

  /** True once `maxFindings` are listed: a failure is then counted, not listed (so its finding need not be built). */
  full(): boolean {
    return this.findings.length >= this.maxFindings;
  }

  /** Counts `n` failures of `rule` that are not listed (a check capped them itself). */
  failUnlisted(rule: Rule, n: number): void {
    if (n <= 0) return;
    this.mark(rule, 'fail');
    this.omitted += n;
    this.unlisted.add(rule.id);
  }

  unable(rule: Rule): void {
    this.mark(rule, 'incomplete');
  }

  block(...rules: Rule[]): void {
    for (const r of rules) this.mark(r, 'blocked');
  }

  /** Blocks every rule that needs `rule`, as the prerequisites say. */
  blockDependents(rule: Rule): void {
    this.block(...this.rules.dependents(rule.id));
  }

  has(id: string, outcome: Outcome): boolean {
    return this.outcomes.get(id)?.[outcome] ?? false;
  }

  /** The worst outcome recorded for the rule, or null when it was never reached. */
  outcome(id: string): Outcome | null {
    const seen = this.outcomes.get(id);
    return seen === undefined ? null : (WORST_FIRST.find((o) => seen[o]) ?? null);
  }

  /** True when the rule failed, could not complete or was blocked: the rules that need it cannot run. */
  stopped(id: string): boolean {
    const seen = this.outcomes.get(id);
    return seen !== undefined && (seen.fail || seen.incomplete || seen.blocked);
  }

  /** Sorted IDs of the rules that were judged (passed or failed). */
  evaluated(): string[] {
    return this.ids((seen) => seen.pass || seen.fail);
  }

  /** Sorted IDs of the rules that failed, listed or not. */
  flagged(): string[] {
    return this.ids((seen) => seen.fail);
  }

  /** Sorted IDs of the rules with findings that are not listed. */
  unlistedRules(): string[] {
    return [...this.unlisted].sort();
  }

  /** True when a rule of severity `fail` failed, listed or not. */
  hasFailure(): boolean {
    for (const [id, seen] of this.outcomes) if (seen.fail && this.rules.get(id)!.severity === 'fail') return true;
    return false;
  }

  private ids(keep: (seen: Record<Outcome, boolean>) => boolean): string[] {
    const out: string[] = [];
    for (const [id, seen] of this.outcomes) if (keep(seen)) out.push(id);
    return out.sort();
  }

  private mark(rule: Rule, outcome: Outcome): void {
    if (this.rules.get(rule.id) !== rule) throw new Error(`rule ${rule.id} is not of this recorder's suite`);
    const seen = this.outcomes.get(rule.id);
    if (seen) seen[outcome] = true;
    else this.outcomes.set(rule.id, { pass: false, fail: false, incomplete: false, blocked: false, [outcome]: true });
  }
}

/**
 * Runs a suite's rules in order. A rule whose prerequisite failed, could not complete or was
 * blocked is blocked; every other rule's check runs, once for a group that shares a check.
 */
export function runRules<In>(rules: ReadonlyArray<Rule<In>>, input: In, rec: Recorder<unknown>): void {
  const ran = new Set<unknown>();
  for (const rule of rules) {
    if (rule.prerequisites.some((id) => rec.stopped(id))) {
      rec.block(rule);
      continue;
    }
    if (ran.has(rule.check)) continue;
    ran.add(rule.check);
    rule.check(input);
  }
}
