import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/api/format.js';
import { buildApi } from '../../src/api/server.js';
import { agentId } from '../../src/identity/agent-key.js';
import { EmbeddedWarehouse, type QueryStats } from '../../src/warehouse/embedded.js';
import { API_CONNECTION } from '../../src/warehouse/limits.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { addSyntheticAgents, finishSyntheticIndex, syntheticKey } from './synthetic-index.js';

/**
 * Every query of every API route reads a bounded number of rows (issue 16): by key, by the search
 * postings, or up to a LIMIT over an ordered key. The engine's own count (rows_read, from the
 * statistics chdb returns with each result; chdb has no system.query_log) is held to one bound,
 * the same at two index sizes 20× apart. The bound (eight granules of the agents table) is below
 * the larger index's agents alone, so a query that scanned an index-sized table would fail there.
 * It leaves room for the granule or two that parallel read-in-order streams fetch ahead under load
 * (five granules for the first agents page when idle, seven seen on a busy machine).
 */

const BOUND = 8 * 8192;
const SIZES = [5_000, 100_000];
const DAYS = 7;
const CV = 'bounded-reads-checker';

const routes = (n: number): string[] => {
  const mid = Math.floor(n / 2);
  return [
    '/agents?limit=50',
    `/agents?cursor=${encodeCursor(syntheticKey(mid))}`,
    `/agents/${agentId(syntheticKey(mid))}`,
    '/stats/agents',
    '/stats/agents?q=weather',
    `/stats/agents?q=a${mid}`,
    '/stats/agents?q=maps%20agent%207',
    '/stats/agents?q=developers&protocol=a2a',
    '/stats/agents?protocol=mcp&limit=500',
    '/stats/agents?q=nothing-matches-this',
    '/stats/daily',
    '/stats/census',
    '/stats/runs/latest',
    '/',
    '/?q=travel',
  ];
};

describe('every API query reads a bounded number of rows, whatever the size of the index', () => {
  let t: TestWarehouse | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it.each(SIZES)('%i agents', async (agents) => {
    t = await withWarehouse(`bounded-${agents}`);
    await addSyntheticAgents(t.wh, { from: 0, to: agents, days: DAYS, checkerVersion: CV });
    await finishSyntheticIndex(t.wh, { agents, days: DAYS, checkerVersion: CV });
    // The tables are bigger than the bound, so a scan of any of them could not pass.
    const [sizes] = await t.wh.query<{ a: number; s: number; p: number }>(
      'SELECT toUInt32((SELECT count() FROM agents)) AS a, toUInt32((SELECT count() FROM agent_status)) AS s, toUInt32((SELECT count() FROM agent_search_terms)) AS p',
    );
    if (agents > BOUND) expect(Math.min(sizes!.a, sizes!.s, sizes!.p)).toBeGreaterThan(BOUND);

    let stats: QueryStats[] = [];
    const reader = new EmbeddedWarehouse(join(t.dir, 'warehouse'), { ...API_CONNECTION, onQueryStats: (s) => stats.push(s) });
    const app = buildApi({ warehouse: reader });
    try {
      const worst: Array<{ url: string; rows: number }> = [];
      for (const url of routes(agents)) {
        stats = [];
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(stats.length, url).toBeGreaterThan(0);
        for (const s of stats) expect(s.rowsRead, `${url}: ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}`).toBeLessThanOrEqual(BOUND);
        worst.push({ url, rows: Math.max(...stats.map((s) => s.rowsRead)) });
      }
      // Search found what it should, so the bound is not met by reading nothing.
      const found = (await app.inject({ method: 'GET', url: `/stats/agents?q=a${Math.floor(agents / 2)}` })).json();
      expect(found.agents.map((a: { name: string }) => a.name)).toContain(`${['Weather', 'Maps', 'Search', 'Files', 'Mail', 'Code', 'Data', 'Chat', 'Travel', 'Music'][Math.floor(agents / 2) % 10]} Agent ${Math.floor(agents / 2)}`);
      expect(Math.max(...worst.map((w) => w.rows))).toBeGreaterThan(0);
    } finally {
      await app.close();
      await reader.close();
      await t.close();
      t = undefined;
    }
  }, 60_000);
});
