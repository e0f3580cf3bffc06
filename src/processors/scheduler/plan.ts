import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/**
 * The daily run's plan (Methods §4), as a pure function of the agents' state:
 *   1. a uniform random sample of active agents (default 1,000; seeded, the seed recorded),
 *   2. every agent not checked in 7 days,
 *   3. new and changed agents,
 *   4. agents due under their own interval,
 * until the budget is used. The sample never displaces a check that the 7-day
 * revisit guarantee needs: before drawing it, the plan reserves the fewest
 * earliest-deadline checks that keep every deadline of the coming week
 * reachable with one budget a day (earliest-deadline-first feasibility).
 * That keeps the guarantee whenever the daily budget is at least a seventh of
 * the index, and the sample stays a uniform draw over all active agents.
 */

export const DAY_MS = 24 * 3600 * 1000;

export const SCHEDULE_DEFAULTS = {
  /** Probes per daily run. */
  dailyBudget: 10_000,
  /** Size of the uniform random sample behind the ecosystem statistics. */
  sampleSize: 1000,
  /** Every active agent is rechecked at least this often (given enough budget). */
  revisitMs: 7 * DAY_MS,
  /** Interval of an agent with none of its own. */
  defaultIntervalMs: DAY_MS,
  /** How often the scheduler runs; deadlines are planned in steps of this. */
  runEveryMs: DAY_MS,
} as const;

export type ScheduleReason = 'sample' | 'overdue' | 'new' | 'changed' | 'due';

export interface AgentScheduleState {
  agentKey: string;
  /** When the agent was first listed (ms). */
  firstSeen: number;
  /** The last check of any checker version (ms), or null when never checked. */
  lastChecked: number | null;
  /** When its listing last changed in substance (ms), or null when unknown. */
  changedAt: number | null;
  /** The agent's own check interval (ms); default SCHEDULE_DEFAULTS.defaultIntervalMs. */
  intervalMs?: number | null;
}

export interface PlanOptions {
  budget: number;
  now: number;
  seed: string;
  sampleSize?: number;
  revisitMs?: number;
  runEveryMs?: number;
}

export interface PlannedCheck<A extends AgentScheduleState = AgentScheduleState> {
  agent: A;
  reason: ScheduleReason;
  inSample: boolean;
}

export interface Plan<A extends AgentScheduleState = AgentScheduleState> {
  checks: PlannedCheck<A>[];
  seed: string;
  /** Checks per reason, plus the size of the reserve the guarantee needed today. */
  counts: Record<ScheduleReason | 'reserved' | 'eligible', number>;
}

/** 32-bit seed for the generator from the recorded seed string. */
export function seedNumber(seed: string): number {
  return createHash('sha256').update(seed).digest().readInt32LE(0);
}

/** When an agent must be checked next for the revisit guarantee. */
export function deadlineOf(a: AgentScheduleState, revisitMs: number): number {
  return (a.lastChecked ?? a.firstSeen) + revisitMs;
}

/**
 * The fewest checks that must happen today so that, checking `budget` agents in each
 * later run in deadline order, no deadline within the revisit window is missed:
 * max over k of (agents due by run k) − budget × (runs after today up to k).
 */
export function reservedToday(deadlines: readonly number[], now: number, budget: number, runEveryMs: number, revisitMs: number): number {
  const sorted = [...deadlines].sort((a, b) => a - b);
  const horizonRuns = Math.ceil(revisitMs / runEveryMs) + 1;
  let need = 0;
  let i = 0;
  for (let k = 1; k <= horizonRuns; k++) {
    // Deadlines before the run k days out must be met by today's run or runs 1..k-1.
    const limit = now + k * runEveryMs;
    while (i < sorted.length && sorted[i]! < limit) i++;
    need = Math.max(need, i - budget * (k - 1));
  }
  return Math.min(need, budget);
}

export function planRun<A extends AgentScheduleState>(agents: readonly A[], opts: PlanOptions): Plan<A> {
  const revisitMs = opts.revisitMs ?? SCHEDULE_DEFAULTS.revisitMs;
  const runEveryMs = opts.runEveryMs ?? SCHEDULE_DEFAULTS.runEveryMs;
  const budget = Math.max(0, Math.floor(opts.budget));
  const counts: Plan<A>['counts'] = { sample: 0, overdue: 0, new: 0, changed: 0, due: 0, reserved: 0, eligible: agents.length };
  const chosen = new Set<number>();
  const checks: PlannedCheck<A>[] = [];
  const take = (i: number, reason: ScheduleReason, inSample: boolean) => {
    if (chosen.has(i) || checks.length >= budget) return;
    chosen.add(i);
    checks.push({ agent: agents[i]!, reason, inSample });
    counts[reason] += 1;
  };

  const byDeadline = agents.map((_, i) => i).sort((a, b) => deadlineOf(agents[a]!, revisitMs) - deadlineOf(agents[b]!, revisitMs) || a - b);
  const reserve = reservedToday(
    agents.map((a) => deadlineOf(a, revisitMs)),
    opts.now,
    budget,
    runEveryMs,
    revisitMs,
  );
  counts.reserved = reserve;

  // 1. The uniform sample: a partial Fisher-Yates shuffle over all active agents.
  const sampleSize = Math.min(opts.sampleSize ?? SCHEDULE_DEFAULTS.sampleSize, budget - reserve, agents.length);
  const rng = xoroshiro128plus(seedNumber(opts.seed));
  const order = agents.map((_, i) => i);
  for (let k = 0; k < sampleSize; k++) {
    const j = uniformInt(rng, k, order.length - 1);
    [order[k], order[j]] = [order[j]!, order[k]!];
    take(order[k]!, 'sample', true);
  }
  // The reserve the guarantee needs, earliest deadline first (counted as overdue: they are the oldest).
  for (let k = 0, taken = 0; k < byDeadline.length && taken < reserve; k++) {
    const i = byDeadline[k]!;
    if (!chosen.has(i)) {
      take(i, agents[i]!.lastChecked === null ? 'new' : 'overdue', false);
      taken++;
    } else taken++;
  }
  // 2. Every agent not checked in the revisit window, oldest first.
  for (const i of byDeadline) {
    const a = agents[i]!;
    if (a.lastChecked !== null && a.lastChecked <= opts.now - revisitMs) take(i, 'overdue', false);
  }
  // 3. New (never checked), then changed since their last check.
  for (const i of byDeadline) if (agents[i]!.lastChecked === null) take(i, 'new', false);
  for (const i of byDeadline) {
    const a = agents[i]!;
    if (a.lastChecked !== null && a.changedAt !== null && a.changedAt > a.lastChecked) take(i, 'changed', false);
  }
  // 4. Due under their own interval.
  for (const i of byDeadline) {
    const a = agents[i]!;
    const interval = a.intervalMs ?? SCHEDULE_DEFAULTS.defaultIntervalMs;
    if (a.lastChecked !== null && a.lastChecked + interval <= opts.now) take(i, 'due', false);
  }
  return { checks, seed: opts.seed, counts };
}
