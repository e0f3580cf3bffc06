import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { agentId } from '../../src/identity/agent-key.js';
import { join } from 'node:path';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { API_CONNECTION } from '../../src/warehouse/limits.js';
import { indexAgent } from '../../src/warehouse/search/index-writer.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { addSyntheticAgents, finishSyntheticIndex, syntheticKey } from './synthetic-index.js';

/**
 * GET /search on a synthetic index (synthetic-index.ts, with its search index written in SQL by
 * synthetic-search.ts): the synthetic postings equal what the index writer computes for the same
 * agents, the route ranks, filters, counts facets and explains, and hidden agents never show.
 */
const CV = 'search-api-checker';
const AGENTS = 3000;

describe('GET /search', () => {
  let t: TestWarehouse;
  let reader: EmbeddedWarehouse;
  let app: ReturnType<typeof buildApi>;
  beforeAll(async () => {
    t = await withWarehouse('api-search');
    await addSyntheticAgents(t.wh, { from: 0, to: AGENTS, days: 3, checkerVersion: CV });
    await finishSyntheticIndex(t.wh, { agents: AGENTS, days: 3, checkerVersion: CV });
    reader = new EmbeddedWarehouse(join(t.dir, 'warehouse'), API_CONNECTION);
    app = buildApi({ warehouse: reader });
    await app.ready();
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await reader?.close();
    await t?.close();
  });
  type Body = {
    total: number;
    complete: boolean;
    facets: Record<string, Record<string, number>>;
    hits: Array<{
      id: string;
      key: string;
      name: string;
      protocol: string;
      score: number;
      uptime: string | null;
      result: string | null;
      explain: null | { terms: unknown[]; boosts: Record<string, number> };
    }>;
  };
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json<Body>() };
  };

  it('serves the postings the index writer would write for the same agents', async () => {
    for (const n of [0, 5, 1990, 2500]) {
      const key = syntheticKey(n);
      const [row] = await reader.query<{ impacts: Record<string, number>; name: string; description: string }>(
        'SELECT impacts, name, description FROM search_documents FINAL WHERE agent_id = {id:String}',
        { id: agentId(key) },
      );
      const expected = indexAgent(
        {
          agentId: agentId(key),
          agentKey: key,
          protocol: n % 3 === 0 ? 'a2a' : 'mcp',
          sources: ['mcp-registry'],
          version: 1,
          listable: true,
          cardSha256: '',
        },
        {
          agentKey: key,
          protocol: 'mcp',
          name: row!.name,
          description: row!.description,
          card: null,
          listings: [{ source: 'mcp-registry', serverJson: '', raw: '', transport: 'streamable-http' }],
        },
      );
      expect(row!.impacts, `agent ${n}`).toEqual(Object.fromEntries(expected.impacts));
    }
  });

  it('ranks by relevance, filters, counts facets and explains on request', async () => {
    const { status, body } = await get('/search?q=weather%20agent%2010&explain=1');
    expect(status).toBe(200);
    expect(body.hits[0]!.name).toBe('Weather Agent 10');
    expect(body.hits[0]!.explain!.terms.length).toBe(3);
    expect(body.facets.protocol!.a2a! + body.facets.protocol!.mcp!).toBe(body.total);
    const a2a = await get('/search?q=weather&protocol=a2a&limit=50');
    expect(a2a.body.hits.length).toBeGreaterThan(0);
    expect(a2a.body.hits.every((h) => h.protocol === 'a2a')).toBe(true);
    const up = await get('/search?q=weather&state=up&limit=50');
    expect(up.body.hits.every((h) => h.uptime === 'up')).toBe(true);
    expect((await get('/search?q=weather')).body.hits[0]!.explain).toBeNull();
  });

  it('counts the total and the facets over every match, and filters in the engine', async () => {
    const count = async (where: string) =>
      Number(
        (await reader.query<{ n: string }>(`SELECT toString(count()) AS n FROM search_documents FINAL WHERE listable = 1 AND ${where}`))[0]!
          .n,
      );
    // "agent": every listable agent, far more than the candidates scored.
    const all = await get('/search?q=agent');
    expect(all.body.complete).toBe(true);
    expect(all.body.total).toBe(await count('1'));
    expect(all.body.facets.protocol).toEqual({ a2a: await count("protocol = 'a2a'"), mcp: await count("protocol = 'mcp'") });
    expect(all.body.facets.auth).toEqual({ none: all.body.total });
    const a2a = await get('/search?q=agent&protocol=a2a&limit=50');
    expect(a2a.body.total).toBe(all.body.facets.protocol!.a2a);
    expect(a2a.body.hits.length).toBe(50);
    expect(a2a.body.hits.every((h) => h.protocol === 'a2a')).toBe(true);
    // The protocol facet does not narrow itself; a filter no agent passes finds nothing.
    expect(a2a.body.facets.protocol).toEqual(all.body.facets.protocol);
    const none = await get('/search?q=agent&auth=required');
    expect([none.body.total, none.body.hits.length]).toEqual([0, 0]);
    expect(none.body.facets.auth).toEqual({ none: all.body.total });
    // The state is the record, not the index: its filter applies to the best candidates, and says so.
    const down = await get('/search?q=agent&state=down&limit=50');
    expect(down.body.hits.length).toBeGreaterThan(0);
    expect(down.body.hits.every((h) => h.uptime === 'down')).toBe(true);
    expect([down.body.complete, down.body.total]).toEqual([false, down.body.hits.length]);
  });

  it('finds an agent by a typo and by the prefix being typed', async () => {
    expect((await get('/search?q=analysts%20nmuber%20321')).body.hits.some((h) => h.key === syntheticKey(321))).toBe(true);
    // The word being typed: itself first, then its completions.
    const typed = (await get('/search?q=a170')).body.hits.map((h) => h.key);
    expect(typed[0]).toBe(syntheticKey(170));
    expect(typed).toContain(syntheticKey(1700));
  });

  it('never returns a hidden agent', async () => {
    // Agent 996 is hidden (synthetic-index.ts): not by its own words, not by its key.
    for (const q of ['a996', 'Maps Agent 996', 'synthetic']) {
      const { body } = await get(`/search?q=${encodeURIComponent(q)}&limit=50`);
      expect(body.hits.map((h) => h.key)).not.toContain(syntheticKey(996));
    }
  });

  it('refuses a request without words or with an unknown parameter', async () => {
    expect((await get('/search')).status).toBe(400);
    expect((await get('/search?q=')).status).toBe(400);
    expect((await get('/search?q=x&colour=red')).status).toBe(400);
  });
});
