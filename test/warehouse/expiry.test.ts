import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshAgentDailyHistory, refreshDailyRollups } from '../../src/warehouse/rollups.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { DAY_MS, sourceFetchRow, utcDay, writeJudged } from '../helpers/warehouse-rows.js';

// TTL expiry on the real engine. ClickHouse expires rows when parts merge, not on a clock,
// and may already drop rows that are past their TTL at insert. So:
// - rows 89 days old must survive a forced merge (OPTIMIZE … FINAL);
// - rows 91 and 200 days old must be gone after it, whichever path removed them;
// - a "boundary" row inserted 1.5 s before its 90 days are up is stored (not yet expired),
//   then removed by the merge once its time has passed: expiry on merge, seen happening;
// - agent_latest and the rollups, which have no TTL, keep every row, old ones included,
//   and a later refresh does not overwrite days whose raw rows have expired.

const RAW_TABLES = ['checks', 'verdicts', 'source_fetches'] as const;
const KEPT_TABLES = ['agent_latest', 'daily_rollups', 'agent_daily_history'] as const;

describe('TTL expiry (embedded)', () => {
  let t: TestWarehouse;
  let wh: Warehouse;
  // Times are taken when the test starts (after migrating), not when the file loads.
  let now = 0;
  const ago = (days: number, plusMs = 0): Date => new Date(now - days * DAY_MS + plusMs);
  const BOUNDARY_MARGIN_MS = 2500;

  beforeAll(async () => {
    t = await withWarehouse('wh-expiry');
    wh = t.wh;
  });
  afterAll(async () => {
    await t?.close();
  });

  const ids = async (table: string): Promise<string[]> =>
    (await wh.query<{ event_id: string }>(`SELECT event_id FROM ${table} ORDER BY event_id`)).map((r) => r.event_id);

  it('expires raw rows past 90 days on merge and keeps everything without a TTL', async () => {
    now = Date.now();
    const boundaryAt = ago(90, BOUNDARY_MARGIN_MS);
    const ages: Record<string, Date> = { recent: ago(1), d89: ago(89), boundary: boundaryAt, d91: ago(91), d200: ago(200) };
    const entries = Object.entries(ages);
    // The verdict processor's writer stores each probe's check, verdict and agent_latest row.
    await writeJudged(
      wh,
      entries.map(([id, at]) => ({ id, agent: `agent-${id}`, at, inSample: true })),
    );
    await wh.insert(
      'source_fetches',
      entries.map(([id, at]) => sourceFetchRow(id, at)),
    );

    // Right after the insert the boundary row is stored: it was not past its TTL yet.
    // (Rows 91 and 200 days old may already be gone: their parts are expired as a whole.)
    for (const t of RAW_TABLES) {
      expect(await ids(t), t).toEqual(expect.arrayContaining(['boundary', 'd89', 'recent']));
    }

    // agent_latest has each agent's latest row, however old (an agent last seen 200 days ago keeps it).
    // Rollups: refreshable days are computed from the raw rows; older days hold the totals
    // computed back when their raw rows existed.
    await refreshDailyRollups(wh);
    await refreshAgentDailyHistory(wh);
    const historic = [91, 200].map((d) => utcDay(now, d));
    await wh.insert(
      'daily_rollups',
      historic.map((day) => ({
        day,
        protocol: 'mcp',
        source: 'mcp-registry',
        checker_version: '1.0.0',
        checks: 5,
        up: 4,
        down: 1,
        unknown: 0,
        skipped: 0,
        pass: 3,
        fail: 2,
        unknown_verdict: 0,
        na: 0,
        sample_checks: 2,
        sample_up: 2,
        sample_down: 0,
        sample_unknown: 0,
        sample_skipped: 0,
        sample_pass: 1,
        sample_fail: 1,
        sample_unknown_verdict: 0,
        sample_na: 0,
        computed_at: ago(0),
      })),
    );
    await wh.insert(
      'agent_daily_history',
      historic.map((day) => ({
        checker_version: '1.0.0',
        agent_key: 'agent-old',
        day,
        agent_id: 'id-old',
        protocol: 'mcp',
        checks: 1,
        up: 1,
        down: 0,
        unknown: 0,
        skipped: 0,
        sample_checks: 1,
        sample_up: 1,
        latency_p50_ms: 100,
        latency_p95_ms: 100,
        computed_at: ago(0),
      })),
    );

    const keptBefore = await countRows(wh, KEPT_TABLES);

    // Let the boundary row's 90 days run out, then force the merge (a background merge may
    // get there first; either way a merge, not the insert, removes it).
    const expiresAt = boundaryAt.getTime() + 90 * DAY_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 1200));
    for (const t of [...RAW_TABLES, ...KEPT_TABLES]) await wh.exec(`OPTIMIZE TABLE ${t} FINAL`);

    for (const t of RAW_TABLES) {
      expect(await ids(t), t).toEqual(['d89', 'recent']);
    }
    // Tables without a TTL keep every row, old ones included.
    expect(await countRows(wh, KEPT_TABLES)).toEqual(keptBefore);
    const latest = await wh.query<{ event_id: string }>('SELECT event_id FROM agent_latest FINAL ORDER BY event_id');
    expect(latest.map((r) => r.event_id)).toEqual(['boundary', 'd200', 'd89', 'd91', 'recent']);
    const rollupDays = (await wh.query<{ day: string }>('SELECT day FROM daily_rollups FINAL ORDER BY day')).map((r) => r.day);
    expect(rollupDays).toEqual(expect.arrayContaining([...historic, utcDay(now, 89), utcDay(now, 1)]));

    // A refresh after expiry neither recomputes nor zeroes the days whose raw rows are gone.
    const snapshot = await rollupSnapshot(wh);
    await refreshDailyRollups(wh, { days: [...historic, utcDay(now, 90), utcDay(now, 89), utcDay(now, 1)] });
    await refreshAgentDailyHistory(wh);
    for (const t of KEPT_TABLES) await wh.exec(`OPTIMIZE TABLE ${t} FINAL`);
    const after = await rollupSnapshot(wh);
    expect(after.old).toEqual(snapshot.old);
    expect(after.counts).toEqual(snapshot.counts);
  });

  async function rollupSnapshot(w: Warehouse): Promise<{ old: unknown[]; counts: unknown[] }> {
    const cutoff = utcDay(now, 90);
    const old = await w.query('SELECT * FROM daily_rollups FINAL WHERE day <= {cutoff:Date} ORDER BY day', { cutoff });
    const counts = await w.query('SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL ORDER BY day, source, checker_version');
    return { old, counts };
  }
});

async function countRows(w: Warehouse, tables: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const [row] = await w.query<{ c: number }>(`SELECT toUInt32(count()) AS c FROM ${t} FINAL`);
    out[t] = row?.c ?? 0;
  }
  return out;
}
