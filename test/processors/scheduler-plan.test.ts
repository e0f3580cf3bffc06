import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, planRun, reservedToday, type AgentScheduleState } from '../../src/processors/scheduler/plan.js';

const T0 = Date.UTC(2026, 10, 1, 3);
const agent = (i: number, s: Partial<AgentScheduleState> = {}): AgentScheduleState => ({
  agentKey: `https://a${i}.example.org/mcp`,
  firstSeen: T0 - 30 * DAY_MS,
  lastChecked: T0 - DAY_MS,
  changedAt: null,
  ...s,
});

describe('planRun', () => {
  it('fills the budget in order: sample, overdue, new and changed, due', () => {
    const agents = [
      ...Array.from({ length: 50 }, (_, i) => agent(i)), // checked yesterday: due
      ...Array.from({ length: 5 }, (_, i) => agent(100 + i, { lastChecked: T0 - 9 * DAY_MS })), // overdue
      ...Array.from({ length: 5 }, (_, i) => agent(200 + i, { lastChecked: null, firstSeen: T0 - DAY_MS })), // new
      ...Array.from({ length: 5 }, (_, i) => agent(300 + i, { changedAt: T0 - 3600_000 })), // changed
    ];
    const plan = planRun(agents, { budget: 40, now: T0, seed: 'run-1', sampleSize: 10 });
    expect(plan.checks).toHaveLength(40);
    const reasons = plan.checks.map((c) => c.reason);
    expect(reasons.slice(0, 10).every((r) => r === 'sample')).toBe(true);
    expect(plan.checks.filter((c) => c.inSample)).toHaveLength(10);
    // every overdue, new and changed agent not already in the sample is in the plan
    for (const a of agents.filter((a) => a.lastChecked === null || a.lastChecked < T0 - 7 * DAY_MS || a.changedAt !== null)) {
      expect(plan.checks.some((c) => c.agent === a)).toBe(true);
    }
    const firstDue = reasons.indexOf('due');
    expect(reasons.slice(firstDue).every((r) => r === 'due')).toBe(true);
    expect(new Set(plan.checks.map((c) => c.agent.agentKey)).size).toBe(40);
  });

  it('is reproducible from its recorded seed, and another seed draws another sample', () => {
    const agents = Array.from({ length: 500 }, (_, i) => agent(i));
    const keys = (seed: string) => planRun(agents, { budget: 100, now: T0, seed, sampleSize: 100 }).checks.map((c) => c.agent.agentKey);
    expect(keys('2026-11-01')).toEqual(keys('2026-11-01'));
    expect(keys('2026-11-01')).not.toEqual(keys('2026-11-02'));
  });

  it('draws the sample uniformly (each agent about equally often over many seeds)', () => {
    const agents = Array.from({ length: 20 }, (_, i) => agent(i));
    const hits = new Map<string, number>();
    const runs = 4000;
    for (let r = 0; r < runs; r++) {
      for (const c of planRun(agents, { budget: 5, now: T0, seed: `s${r}`, sampleSize: 5 }).checks) {
        hits.set(c.agent.agentKey, (hits.get(c.agent.agentKey) ?? 0) + 1);
      }
    }
    const expected = (runs * 5) / 20; // 1000
    for (const n of hits.values()) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.15);
  });

  it('never plans more than the budget, nor the same agent twice', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 500 }),
        (n, budget, sample) => {
          const agents = Array.from({ length: n }, (_, i) => agent(i, { lastChecked: i % 3 === 0 ? null : T0 - (i % 10) * DAY_MS }));
          const plan = planRun(agents, { budget, now: T0, seed: 'x', sampleSize: sample });
          expect(plan.checks.length).toBeLessThanOrEqual(budget);
          expect(new Set(plan.checks.map((c) => c.agent)).size).toBe(plan.checks.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the 7-day revisit guarantee', () => {
  /** Runs the scheduler daily and returns the worst gap between an agent's checks (or listing and first check). */
  function simulate(n: number, budget: number, sampleSize: number, days: number, seed: number, arrivals = 0): number {
    const agents: AgentScheduleState[] = Array.from({ length: n }, (_, i) => agent(i, { firstSeen: T0, lastChecked: null }));
    let worst = 0;
    for (let d = 0; d < days; d++) {
      const now = T0 + d * DAY_MS;
      for (let k = 0; k < arrivals && agents.length < n * 2; k++)
        agents.push(agent(10_000 + agents.length, { firstSeen: now, lastChecked: null }));
      for (const c of planRun(agents, { budget, now, seed: `${seed}-${d}`, sampleSize }).checks) {
        c.agent.lastChecked = now;
      }
      for (const a of agents) worst = Math.max(worst, now + DAY_MS - 1 - (a.lastChecked ?? a.firstSeen));
    }
    return worst;
  }

  it('rechecks every agent at least once every 7 days when the budget is a seventh of the index, whatever the sample size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 1200 }),
        fc.integer(),
        (n, extra, sampleSize, seed) => {
          const budget = Math.ceil(n / 7) + extra;
          // Between two daily runs an agent is at most 7 days (minus the last millisecond before the next run) unchecked.
          expect(simulate(n, budget, sampleSize, 30, seed)).toBeLessThan(7 * DAY_MS);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('holds while new agents keep arriving, given a budget sized for the final index', () => {
    const n = 210;
    const worst = simulate(n, Math.ceil((n * 2) / 7), 1000, 40, 7, 6);
    expect(worst).toBeLessThan(7 * DAY_MS);
  });

  it('reserves the checks the coming week needs before the sample may take the budget', () => {
    // The same situation the reserve protects: 700 agents, budget 100, sample 100 a day.
    const agents = Array.from({ length: 700 }, (_, i) => agent(i, { firstSeen: T0, lastChecked: null }));
    expect(
      reservedToday(
        agents.map((a) => a.firstSeen + 7 * DAY_MS),
        T0 + 6 * DAY_MS,
        100,
        DAY_MS,
        7 * DAY_MS,
      ),
    ).toBe(100);
    expect(reservedToday([], T0, 100, DAY_MS, 7 * DAY_MS)).toBe(0);
  });
});
