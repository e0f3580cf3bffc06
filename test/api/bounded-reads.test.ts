import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/api/format.js';
import { buildApi } from '../../src/api/server.js';
import { agentId } from '../../src/identity/agent-key.js';
import { EmbeddedWarehouse, type QueryStats } from '../../src/warehouse/embedded.js';
import { API_CONNECTION } from '../../src/warehouse/limits.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { addSyntheticAgents, finishSyntheticIndex, SYNTHETIC_RUN, syntheticKey } from './synthetic-index.js';

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

/** A route, or a route asked for as a page (the agent page answers HTML to a browser's Accept). */
type Route = string | { url: string; accept: string };

const routes = (n: number): Route[] => {
  const mid = Math.floor(n / 2);
  return [
    '/agents?limit=50',
    `/agents?cursor=${encodeCursor(syntheticKey(mid))}`,
    // Filters: one no agent matches, one few do (every 150th), one a third do.
    '/agents?source=no-such-source',
    '/agents?active=false&protocol=a2a&limit=500',
    '/agents?protocol=a2a&limit=500',
    `/agents/${agentId(syntheticKey(mid))}`,
    '/stats/agents',
    '/stats/agents?q=weather',
    `/stats/agents?q=a${mid}`,
    '/stats/agents?q=maps%20agent%207',
    '/stats/agents?q=developers&protocol=a2a',
    '/stats/agents?protocol=mcp&limit=500',
    '/stats/agents?q=nothing-matches-this',
    '/stats/daily',
    '/stats/daily?days=90',
    `/stats/runs/${SYNTHETIC_RUN}`,
    '/stats/census',
    '/stats/runs/latest',
    '/',
    '/?q=travel',
    '/feed.atom',
    '/feed.json',
    `/agents/${agentId(syntheticKey(mid))}/feed.atom`,
    `/badge/${agentId(syntheticKey(mid))}/uptime.svg`,
    `/badge/${agentId(syntheticKey(mid))}/conformance.svg`,
    '/?protocol=mcp&state=down',
    '/?source=mcp-registry&state=pass&q=agent',
    // The ranked search: a common word, a key being typed, a sentence of common words, a typo with a filter.
    '/search?q=weather',
    `/search?q=a${mid}`,
    '/search?q=a%20synthetic%20maps%20server%20with%20tools%20for%20developers&explain=1',
    '/search?q=weathr&protocol=a2a',
    { url: `/agents/${agentId(syntheticKey(mid))}`, accept: 'text/html' },
  ];
};

/**
 * Two changes per agent in agent_changes (listed, then a verdict change under CV; the hidden
 * agents' too), spread over the last `agents` minutes, so the feeds read a table bigger than the bound.
 */
async function addSyntheticChanges(wh: TestWarehouse['wh'], agents: number): Promise<void> {
  const key = "concat('https://a', toString(number % {agents:UInt64}), '.example.dev/mcp')";
  await wh.exec(
    `INSERT INTO agent_changes (observed_at, change_id, kind, agent_key, agent_id, protocol, name, checker_version, cause_event_id,
       from_state, to_state, summary, reasons)
     SELECT now64(3, 'UTC') - toIntervalSecond(2 * {agents:UInt64} * 60 - number * 60), lower(hex(SHA256(toString(number)))),
       if(number < {agents:UInt64}, 'listed', 'verdict'), ${key}, substring(lower(hex(SHA256(${key}))), 1, 16), 'mcp',
       concat('Agent ', toString(number % {agents:UInt64})), if(number < {agents:UInt64}, '', {cv:String}), toString(number),
       NULL, if(number < {agents:UInt64}, 'listed', 'fail'), 'a change', []
     FROM numbers(2 * {agents:UInt64})`,
    { agents, cv: CV },
  );
}

describe('every API query reads a bounded number of rows, whatever the size of the index', () => {
  let t: TestWarehouse | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it.each(SIZES)(
    '%i agents',
    async (agents) => {
      t = await withWarehouse(`bounded-${agents}`);
      // Several parts of agents, as a live index has between merges: the list reads agents under
      // FINAL, which must stay bounded across parts too. (Search's lookups by id read a granule of
      // 64 rows per id in each part of agent_search_rows, a bound that grows with the page and the
      // parts, not the index; those parts are merged below so the one bound holds for both.)
      await t.wh.exec('SYSTEM STOP MERGES agents');
      for (const [from, to] of [
        [0, agents / 2],
        [agents / 2, agents - 100],
        [agents - 100, agents],
      ] as const) {
        await addSyntheticAgents(t.wh, { from, to, days: DAYS, checkerVersion: CV });
      }
      await finishSyntheticIndex(t.wh, { agents, days: DAYS, checkerVersion: CV });
      await addSyntheticChanges(t.wh, agents);
      await t.wh.exec('OPTIMIZE TABLE agent_search_rows FINAL');
      // The tables are bigger than the bound, so a scan of any of them could not pass.
      const [sizes] = await t.wh.query<{ a: number; s: number; p: number; c: number }>(
        'SELECT toUInt32((SELECT count() FROM agents)) AS a, toUInt32((SELECT count() FROM agent_status)) AS s, toUInt32((SELECT count() FROM agent_search_terms)) AS p, toUInt32((SELECT count() FROM agent_changes)) AS c',
      );
      if (agents > BOUND) expect(Math.min(sizes!.a, sizes!.s, sizes!.p, sizes!.c)).toBeGreaterThan(BOUND);

      let stats: QueryStats[] = [];
      const reader = new EmbeddedWarehouse(join(t.dir, 'warehouse'), { ...API_CONNECTION, onQueryStats: (s) => stats.push(s) });
      const app = buildApi({ warehouse: reader });
      try {
        const worst: Array<{ url: string; rows: number }> = [];
        for (const route of routes(agents)) {
          const { url, accept } = typeof route === 'string' ? { url: route, accept: undefined } : route;
          stats = [];
          const res = await app.inject({ method: 'GET', url, headers: accept ? { accept } : {} });
          expect(res.statusCode, url).toBe(200);
          expect(stats.length, url).toBeGreaterThan(0);
          for (const s of stats) expect(s.rowsRead, `${url}: ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}`).toBeLessThanOrEqual(BOUND);
          worst.push({ url, rows: Math.max(...stats.map((s) => s.rowsRead)) });
        }
        // Search found what it should, so the bound is not met by reading nothing.
        const found = (await app.inject({ method: 'GET', url: `/stats/agents?q=a${Math.floor(agents / 2)}` })).json();
        expect(found.agents.map((a: { name: string }) => a.name)).toContain(
          `${['Weather', 'Maps', 'Search', 'Files', 'Mail', 'Code', 'Data', 'Chat', 'Travel', 'Music'][Math.floor(agents / 2) % 10]} Agent ${Math.floor(agents / 2)}`,
        );
        expect(Math.max(...worst.map((w) => w.rows))).toBeGreaterThan(0);

        // A filtered /agents page reads a bounded stretch of keys: following its cursors walks every
        // match once, in key order, each page within the bound (short pages, even empty ones, included).
        const walk = async (filter: string) => {
          const keys: string[] = [];
          const pages: number[] = [];
          let cursor: string | null = null;
          do {
            stats = [];
            const body: { agents: Array<{ key: string }>; more: boolean; nextCursor: string | null } = (
              await app.inject({ method: 'GET', url: `/agents?${filter}${cursor ? `&cursor=${cursor}` : ''}` })
            ).json();
            for (const s of stats) expect(s.rowsRead, filter).toBeLessThanOrEqual(BOUND);
            expect(body.more, filter).toBe(body.nextCursor !== null);
            keys.push(...body.agents.map((a) => a.key));
            pages.push(body.agents.length);
            cursor = body.nextCursor;
          } while (cursor);
          return { keys, pages };
        };
        const few = await walk('active=false&protocol=a2a&limit=500');
        const inactiveA2a = Array.from({ length: agents }, (_, n) => n)
          .filter((n) => n % 50 === 49 && n % 3 === 0 && n % 997 !== 996)
          .map(syntheticKey)
          .sort();
        expect(few.keys).toEqual(inactiveA2a);
        const none = await walk('source=no-such-source');
        expect(none.keys).toEqual([]);
        // A page reads at most 4 chunks of 2,000 keys: on a bigger index the empty pages say there is more to read.
        if (agents > 4 * 2_000) expect(none.pages.length).toBeGreaterThan(1);
      } finally {
        await app.close();
        await reader.close();
        await t.close();
        t = undefined;
      }
    },
    // Most of it is writing the index (about 25 s for 100,000 agents on an idle 2-core machine), which
    // the rest of a parallel test run slows down: the budget is for that, not for the reads measured.
    180_000,
  );
});
