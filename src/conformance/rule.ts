import type { Severity } from './types.js';
import type { SuiteKey } from './version.js';

/**
 * The one rule type (docs/RULES.md). A suite is a folder of these records under suites/, and the
 * catalogue (catalogue.ts) is the list of every suite's records. A record states where the rule
 * belongs (suite, component), what it needs (prerequisites), what it restates (section, link) and
 * how it is judged (check). What a failure blocks is read from the prerequisites, never from IDs.
 */

/**
 * The part of a target a rule reads. A2A: `card-chain` (the HTTP exchanges of the card chain),
 * `card` (the card document). MCP: `server.json`, `endpoint` (the one GET). Agent Plugins:
 * `manifest` (plugin.json), `skills` (skills/), `mcp` (mcp.json), `package` (every location).
 * Inspect: the protocol spoken, `mcp`, `a2a` or `any`.
 */
export type Component = 'card-chain' | 'card' | 'server.json' | 'endpoint' | 'manifest' | 'skills' | 'mcp' | 'package' | 'a2a' | 'any';

export interface Rule<In = never, Out = unknown> {
  /** Stable and never reused. */
  readonly id: string;
  readonly suite: SuiteKey;
  readonly component: Component;
  readonly severity: Severity;
  readonly title: string;
  /** What a failure means, in one sentence. */
  readonly description: string;
  /**
   * `spec`: restates a protocol requirement; `policy`: a VeronikAI suite policy stricter than the
   * protocol, whose link points at the protocol text the policy is about.
   */
  readonly basis: 'spec' | 'policy';
  /** `document`: judged from a document alone; `live`: needs an HTTP observation. */
  readonly needs: 'document' | 'live';
  /** The rules whose failure leaves this one without its input: it is then blocked, not judged. */
  readonly prerequisites: readonly string[];
  /** The specification section the rule restates, and the link to it. */
  readonly section: string;
  readonly link: string;
  /**
   * Judges the rule on one input of its component and records the outcome; what it returns is
   * for the rules after it (the value it read, or whether it passed). The rules of a small group
   * that are judged in one pass share one check.
   */
  check(input: In): Out;
}

/** A list of rules (a suite, or the whole catalogue) with lookups and its prerequisite graph. */
export class RuleSet {
  private readonly byId: ReadonlyMap<string, Rule>;
  /** Per rule: the rule and every rule it needs, transitively. */
  private readonly closures: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(readonly rules: readonly Rule[]) {
    this.byId = new Map(rules.map((r) => [r.id, r]));
    this.closures = new Map(rules.map((r) => [r.id, this.walk(r.id)]));
  }

  get(id: string): Rule | undefined {
    return this.byId.get(id);
  }

  /** The rule and every rule it needs, transitively (a prerequisite outside this set is named, not followed). */
  closure(id: string): ReadonlySet<string> {
    return this.closures.get(id) ?? new Set([id]);
  }

  /** Every rule of the set that needs `id`, transitively, without `id` itself, in set order. */
  dependents(id: string): Rule[] {
    return this.rules.filter((r) => r.id !== id && this.closure(r.id).has(id));
  }

  ofComponent(component: Component): Rule[] {
    return this.rules.filter((r) => r.component === component);
  }

  private walk(id: string): Set<string> {
    const out = new Set<string>();
    const todo = [id];
    while (todo.length > 0) {
      const r = todo.pop()!;
      if (out.has(r)) continue;
      out.add(r);
      todo.push(...(this.byId.get(r)?.prerequisites ?? []));
    }
    return out;
  }
}
