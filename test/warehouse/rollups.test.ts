import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshAgentDailyHistory, refreshDailyRollups } from '../../src/warehouse/rollups.js';
import type { InsertRow } from '../../src/warehouse/tables.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { DAY_MS, checkRow, dailyRollupRow, utcDay, verdictRow, type CheckSpec } from '../helpers/warehouse-rows.js';

// The rollups must count each event once, however often it is delivered (Kafka redelivery,
// a replay from the earliest offset) and however often the refresh runs. The expected
// numbers are computed here in plain TypeScript from the list of distinct events.

type Uptime = NonNullable<CheckSpec['uptime']>;
type Result = 'pass' | 'fail' | 'unknown' | 'n/a';
interface Event {
  id: string;
  agent: string;
  at: Date;
  uptime: Uptime;
  result: Result;
  inSample: boolean;
  source: string;
  latency: number | null;
}

const UPTIMES: Uptime[] = ['up', 'up', 'down', 'unknown', 'skipped'];
const RESULTS: Result[] = ['pass', 'fail', 'pass', 'unknown', 'n/a'];
const SOURCES = ['mcp-registry', 'smithery'];

function makeEvents(now: number, daysAgo: number[], perDay: number, prefix: string): Event[] {
  const events: Event[] = [];
  for (const d of daysAgo) {
    for (let i = 0; i < perDay; i++) {
      const uptime = UPTIMES[(i + d) % UPTIMES.length]!;
      events.push({
        id: `${prefix}-${d}-${i}`,
        agent: `https://agent-${i % 4}.example/mcp`,
        at: new Date(now - d * DAY_MS - i * 60_000),
        uptime,
        result: RESULTS[(i * 3 + d) % RESULTS.length]!,
        inSample: i % 3 === 0,
        source: SOURCES[i % 2]!,
        latency: uptime === 'up' ? 50 + i * 10 : null,
      });
    }
  }
  return events;
}

function checkOf(e: Event, checker = '1.0.0'): ReturnType<typeof checkRow> {
  return checkRow({
    id: e.id,
    checker,
    agent: e.agent,
    at: e.at,
    uptime: e.uptime,
    latency: e.latency,
    inSample: e.inSample,
    source: e.source,
  });
}
function verdictOf(e: Event, checker = '1.0.0'): ReturnType<typeof verdictRow> {
  return verdictRow({ id: e.id, agent: e.agent, at: e.at, checker, result: e.result, inSample: e.inSample });
}

/** The daily_rollups rows the distinct events should produce (without computed_at). */
function expectedRollups(events: Event[], checker = '1.0.0'): Array<Record<string, string | number>> {
  const groups = new Map<string, Record<string, string | number>>();
  for (const e of events) {
    const day = e.at.toISOString().slice(0, 10);
    const key = `${day}|${e.source}`;
    let g = groups.get(key);
    if (!g) {
      const { computed_at: _computedAt, ...zero } = dailyRollupRow({ day, source: e.source, checker_version: checker });
      g = zero as Record<string, string | number>;
      groups.set(key, g);
    }
    const verdictCol = e.result === 'unknown' ? 'unknown_verdict' : e.result === 'n/a' ? 'na' : e.result;
    const row = g;
    const bump = (col: string): void => {
      row[col] = Number(row[col] ?? 0) + 1;
    };
    bump('checks');
    bump(e.uptime);
    bump(verdictCol);
    if (e.inSample) {
      bump('sample_checks');
      bump(`sample_${e.uptime}`);
      bump(`sample_${verdictCol}`);
    }
  }
  return [...groups.values()].sort((a, b) => `${a.day}|${a.source}`.localeCompare(`${b.day}|${b.source}`));
}

describe('rollups are idempotent per event (embedded)', () => {
  let t: TestWarehouse;
  let wh: Warehouse;
  const now = Date.now();
  // Day 0 is today, 89 the oldest day still refreshable. Events are pinned to 00:06-00:15
  // UTC of their day so none crosses midnight (shortly after midnight, today's few events
  // lie minutes in the future, which changes nothing here).
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  const base = midnight + 15 * 60_000;
  const events = makeEvents(base, [0, 1, 2, 89], 10, 'e');
  const late: Event = { ...events[0]!, id: 'late-1', at: new Date(base - DAY_MS - 30 * 60_000) };

  const rollups = (): Promise<Array<Record<string, unknown>>> =>
    wh.query('SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL ORDER BY day, source, checker_version');
  const history = (): Promise<Array<Record<string, unknown>>> =>
    wh.query('SELECT * EXCEPT (computed_at, latency_digest) FROM agent_daily_history FINAL ORDER BY agent_key, day');

  /** Every event delivered once, and the rollups refreshed. */
  async function deliverOnce(checker = '1.0.0'): Promise<void> {
    await wh.insert(
      'checks',
      events.map((e) => checkOf(e, checker)),
    );
    await wh.insert(
      'verdicts',
      events.map((e) => verdictOf(e, checker)),
    );
    await refreshDailyRollups(wh);
    await refreshAgentDailyHistory(wh);
  }

  // Each test on its own fresh warehouse: none reads rows another one wrote.
  beforeEach(async () => {
    t = await withWarehouse('wh-rollups');
    wh = t.wh;
  });
  afterEach(async () => {
    await t?.close();
  });

  it('counts each distinct event once', async () => {
    await deliverOnce();
    expect(await rollups()).toEqual(expectedRollups(events));
  });

  it('gives the same totals after redelivery of every event and repeated refreshes', async () => {
    await deliverOnce();
    const before = { rollups: await rollups(), history: await history() };
    // Redeliver everything twice, in another order and in small batches (separate parts).
    const shuffled = [...events].reverse();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < shuffled.length; i += 7) {
        const batch = shuffled.slice(i, i + 7);
        await wh.insert(
          'checks',
          batch.map((e) => checkOf(e)),
        );
        await wh.insert(
          'verdicts',
          batch.map((e) => verdictOf(e)),
        );
      }
      await refreshDailyRollups(wh);
      await refreshDailyRollups(wh, { days: [utcDay(base, 1)] });
      await refreshAgentDailyHistory(wh);
    }
    expect(await rollups()).toEqual(before.rollups);
    expect(await history()).toEqual(before.history);
    // Also after the duplicates have been merged away.
    for (const table of ['checks', 'verdicts', 'daily_rollups', 'agent_daily_history']) {
      await wh.exec(`OPTIMIZE TABLE ${table} FINAL`);
    }
    expect(await rollups()).toEqual(before.rollups);
    expect(await history()).toEqual(before.history);
  });

  it('adds a late event exactly once', async () => {
    await deliverOnce();
    for (let i = 0; i < 3; i++) {
      await wh.insert('checks', [checkOf(late)]);
      await wh.insert('verdicts', [verdictOf(late)]);
      await refreshDailyRollups(wh, { days: [late.at] });
      await refreshAgentDailyHistory(wh, { days: [late.at], agentKeys: [late.agent] });
    }
    expect(await rollups()).toEqual(expectedRollups([...events, late]));
    const [h] = await wh.query<{ checks: number }>(
      'SELECT checks FROM agent_daily_history FINAL WHERE agent_key = {k:String} AND day = {d:Date}',
      { k: late.agent, d: utcDay(late.at.getTime(), 0) },
    );
    expect(h?.checks).toBe(
      [...events, late].filter((e) => e.agent === late.agent && utcDay(e.at.getTime(), 0) === utcDay(late.at.getTime(), 0)).length,
    );
  });

  it('leaves days outside the TTL window alone: an old replay neither adds nor zeroes totals', async () => {
    await deliverOnce();
    const oldDay = utcDay(now, 120);
    const kept = {
      day: oldDay,
      protocol: 'mcp',
      source: 'mcp-registry',
      checker_version: '1.0.0',
      checks: 9,
      up: 8,
      down: 1,
      unknown: 0,
      skipped: 0,
      pass: 7,
      fail: 2,
      unknown_verdict: 0,
      na: 0,
      sample_checks: 3,
      sample_up: 3,
      sample_down: 0,
      sample_unknown: 0,
      sample_skipped: 0,
      sample_pass: 2,
      sample_fail: 1,
      sample_unknown_verdict: 0,
      sample_na: 0,
    } satisfies Omit<InsertRow<'daily_rollups'>, 'computed_at'>;
    await wh.insert('daily_rollups', [{ ...kept, computed_at: new Date(now - 119 * DAY_MS) }]);
    const replay = makeEvents(now, [120], 5, 'old');
    await wh.insert(
      'checks',
      replay.map((e) => checkOf(e)),
    );
    await wh.insert(
      'verdicts',
      replay.map((e) => verdictOf(e)),
    );
    await refreshDailyRollups(wh, { days: [oldDay] });
    await refreshDailyRollups(wh);
    const rows = await wh.query('SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL WHERE day = {d:Date}', { d: oldDay });
    expect(rows).toEqual([kept]);
  });

  it('a new checker version gets its own rows beside the old ones', async () => {
    await deliverOnce();
    await deliverOnce('2.0.0');
    const v2 = await wh.query(
      "SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL WHERE checker_version = '2.0.0' ORDER BY day, source",
    );
    expect(v2).toEqual(expectedRollups(events, '2.0.0'));
    const v1 = await wh.query<{ c: number }>(
      "SELECT toUInt32(sum(checks)) AS c FROM daily_rollups FINAL WHERE checker_version = '1.0.0' AND day >= {d:Date}",
      { d: utcDay(now, 89) },
    );
    expect(v1).toEqual([{ c: events.length }]);
    // The current-version views follow the newest checker until one is pinned (the __v1 views too).
    for (const view of ['v_checker_current__v2', 'v_checker_current__v1']) {
      expect(await wh.query(`SELECT checker_version, pinned FROM ${view}`), view).toEqual([{ checker_version: '2.0.0', pinned: 0 }]);
    }
    await wh.insert('checker_current', [{ checker_version: '1.0.0', set_at: new Date() }]);
    for (const view of ['v_checker_current__v2', 'v_checker_current__v1']) {
      expect(await wh.query(`SELECT checker_version, pinned FROM ${view}`), view).toEqual([{ checker_version: '1.0.0', pinned: 1 }]);
    }
    const current = await wh.query<{ c: number; v: string }>(
      'SELECT toUInt32(count()) AS c, any(checker_version) AS v FROM v_verdicts_current__v2',
    );
    expect(current).toEqual([{ c: events.length, v: '1.0.0' }]);
  });

  it("keeps each agent-day's p50 and p95 as quantileTDigest gives them over its answered checks, from the one digest it stores", async () => {
    // A busy agent-day beside the test's few: 400 answered latencies, so the digest compresses.
    const busy = Array.from({ length: 400 }, (_, i): Event => ({
      id: `busy-${i}`,
      agent: 'https://busy.example/mcp',
      at: new Date(base - i * 1000),
      uptime: i % 7 === 0 ? 'down' : 'up',
      result: 'pass',
      inSample: false,
      source: SOURCES[0]!,
      latency: i % 7 === 0 ? null : 20 + ((i * 37) % 911),
    }));
    await wh.insert(
      'checks',
      [...events, ...busy].map((e) => checkOf(e)),
    );
    await refreshAgentDailyHistory(wh);
    const answered = "uptime = 'up' AND latency_ms IS NOT NULL";
    const expected = await wh.query<{ agent_key: string; day: string; p50: number | null; p95: number | null }>(
      `SELECT agent_key, toString(toDate(observed_at, 'UTC')) AS day,
              if(countIf(${answered}) = 0, NULL, toUInt32(round(quantileTDigestIf(0.5)(assumeNotNull(latency_ms), ${answered})))) AS p50,
              if(countIf(${answered}) = 0, NULL, toUInt32(round(quantileTDigestIf(0.95)(assumeNotNull(latency_ms), ${answered})))) AS p95
       FROM checks FINAL GROUP BY agent_key, day ORDER BY agent_key, day`,
    );
    const stored = await wh.query<{ agent_key: string; day: string; p50: number | null; p95: number | null }>(
      `SELECT agent_key, toString(day) AS day, latency_p50_ms AS p50, latency_p95_ms AS p95
       FROM agent_daily_history FINAL ORDER BY agent_key, day`,
    );
    expect(stored).toEqual(expected);
    expect(stored.filter((r) => r.p50 === null).length).toBeGreaterThan(0);
    const b = stored.find((r) => r.agent_key === 'https://busy.example/mcp')!;
    expect(b.p95).toBeGreaterThan(b.p50!);
  });

  it('the analyst views compute rates and windows from the rollups', async () => {
    await deliverOnce();
    const agent = events[0]!.agent;
    const [u] = await wh.query<{ checks_7d: number; uptime_7d: number | null; checks_90d: number; latency_p50_7d: number | null }>(
      'SELECT checks_7d, uptime_7d, checks_90d, latency_p50_7d FROM v_agent_uptime__v2 WHERE agent_key = {k:String}',
      { k: agent },
    );
    const mine = events.filter((e) => e.agent === agent);
    const week = mine.filter((e) => e.at.getTime() > now - 7 * DAY_MS);
    const up = week.filter((e) => e.uptime === 'up').length;
    const judged = week.filter((e) => e.uptime === 'up' || e.uptime === 'down').length;
    expect(u?.checks_7d).toBe(week.length);
    expect(u?.checks_90d).toBe(mine.length);
    if (judged === 0) expect(u?.uptime_7d).toBeNull();
    else expect(u?.uptime_7d).toBeCloseTo(up / judged, 9);

    const rates = await wh.query<{ sample_uptime: number | null; sample_uptime_low: number | null; sample_uptime_high: number | null }>(
      'SELECT sample_uptime, sample_uptime_low, sample_uptime_high FROM v_daily_rollups__v2 WHERE sample_up + sample_down > 0',
    );
    expect(rates.length).toBeGreaterThan(0);
    for (const r of rates) {
      expect(r.sample_uptime_low!).toBeLessThanOrEqual(r.sample_uptime!);
      expect(r.sample_uptime_high!).toBeGreaterThanOrEqual(r.sample_uptime!);
      expect(r.sample_uptime_low!).toBeGreaterThanOrEqual(0);
      expect(r.sample_uptime_high!).toBeLessThanOrEqual(1);
    }
  });
});
