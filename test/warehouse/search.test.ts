import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingEvent } from '../helpers/listing-events.js';
import type { ListingEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import { ListingsToAgents } from '../../src/processors/listings-to-agents.js';
import { rankedSearch, type SearchQuery } from '../../src/warehouse/read/ranked-search.js';
import { indexAgents } from '../../src/warehouse/search/index-writer.js';
import { terms } from '../../src/warehouse/search/analyze.js';
import { corpusAgents, corpusMissing, loadCorpus, type CorpusAgent } from '../helpers/search-corpus.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow, documentRow } from '../helpers/warehouse-rows.js';

/**
 * The ranked search on the chdb engine over the shared corpus's real agents, indexed by the index
 * writer as the processors run it: sentences, typos, hidden agents, explain, facets, and the index
 * kept current by the listings' processor.
 */
const missing = corpusMissing();

describe.skipIf(missing !== null)('ranked search over real agents', () => {
  let t: TestWarehouse;
  let agents: CorpusAgent[];
  const byFile = (part: string) => agents.find((a) => a.file.includes(part))!;
  const search = (q: string, extra: Partial<SearchQuery> = {}) => rankedSearch(t.wh, { q, limit: 10, checkerVersion: null, ...extra });
  const keys = async (q: string, extra: Partial<SearchQuery> = {}) => (await search(q, extra)).hits.map((h) => h.key);
  const facetCounts = () =>
    t.wh.query(
      `SELECT term, protocol, sources, transports, auth_required, toString(sum(agents)) AS n FROM search_term_facets
       GROUP BY ALL HAVING sum(agents) != 0 ORDER BY ALL`,
    );

  beforeAll(async () => {
    t = await withWarehouse('search');
    agents = corpusAgents();
    await loadCorpus(t.wh, agents);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('finds agents by a sentence, though no agent has every word of it', async () => {
    expect((await keys('an MCP server to query a Postgres database'))[0]).toBe(byFile('PostgresMcpServer').key);
    expect((await keys('a public feed of phishing URLs'))[0]).toBe(byFile('phishunt').key);
    expect((await keys('where can my AI agent upload files and get a link back')).slice(0, 3)).toContain(byFile('objekt-mcp-upload').key);
    expect((await keys('a tool that checks npm packages for known vulnerabilities before install')).slice(0, 3)).toContain(
      byFile('vdb-mcp').key,
    );
  });

  it('still finds an agent when a word has one typo, and completes the word being typed', async () => {
    expect((await keys('postgers'))[0]).toBe(byFile('PostgresMcpServer').key);
    expect((await keys('phishnig feed'))[0]).toBe(byFile('phishunt').key);
    expect((await keys('polymark'))[0]).toBe(byFile('polymarket').key);
    // Short words forgive nothing: a typo there is another word.
    expect(await keys('phsh')).toEqual([]);
  });

  it('explains each score: its term parts add up to relevance, boosts and phrase multiply it', async () => {
    const [hit] = (await search('an MCP server to query a Postgres database')).hits;
    const e = hit!.explain;
    expect(e.terms.length).toBeGreaterThan(0);
    expect(e.terms.reduce((s, p) => s + p.part, 0)).toBeCloseTo(e.relevance, 2);
    const boosts = e.boosts.upNow + e.boosts.uptime30 + e.boosts.conformance;
    expect(e.score).toBeCloseTo(e.relevance * (1 + e.phrase) * (1 + boosts), 2);
    expect(hit!.matched).toEqual(expect.arrayContaining(e.terms.map((p) => p.term)));
    expect(e.terms.map((p) => p.term)).toContain('postgr');
  });

  it('filters by protocol and counts each facet under the other filters', async () => {
    const all = await search('data');
    const a2a = await search('data', { filters: { protocol: 'a2a' } });
    expect(a2a.hits.every((h) => h.protocol === 'a2a')).toBe(true);
    expect(a2a.total).toBe(all.facets.protocol.a2a);
    // The protocol facet does not narrow itself.
    expect(a2a.facets.protocol).toEqual(all.facets.protocol);
    const auth = await search('data', { filters: { auth: 'required' } });
    expect(auth.hits.every((h) => h.authRequired)).toBe(true);
  });

  it('pages through as many hits as the result window holds, each once', async () => {
    const q = 'server for data tools';
    const first = await search(q, { limit: 20 });
    expect(first.total).toBeGreaterThan(100);
    const pages = [first];
    for (let offset = 20; offset <= 100; offset += 20) pages.push(await search(q, { limit: 20, offset }));
    const ids = pages.flatMap((p) => p.hits.map((h) => h.id));
    // Every page but the last is full, the last (offset 100) holds the rest, and no hit comes twice.
    expect(ids).toHaveLength(Math.min(first.total, 120));
    expect(new Set(ids).size).toBe(ids.length);
    // A later page ranks no hit above the page before it.
    for (let i = 1; i < pages.length; i++) expect(pages[i]!.hits[0]!.score).toBeLessThanOrEqual(pages[i - 1]!.hits.at(-1)!.score);
  });

  it('is the same index when rebuilt from the same events in another order', async () => {
    const state = async () => ({
      docs: await t.wh.query('SELECT agent_id, toString(content) AS c, impacts FROM search_documents FINAL ORDER BY agent_id'),
      postings: await t.wh.query(
        'SELECT term, rank, agent_id, protocol, sources, transports, auth_required FROM search_term_postings ORDER BY term, rank, agent_id',
      ),
      terms: await t.wh.query('SELECT term, toString(sum(df)) AS n FROM search_terms GROUP BY term HAVING sum(df) != 0 ORDER BY term'),
      facets: await facetCounts(),
    });
    const before = await state();
    expect(before.docs.length).toBe(agents.length);
    for (const table of ['search_documents', 'search_term_postings', 'search_terms', 'search_term_facets'])
      await t.wh.exec(`TRUNCATE TABLE ${table}`);
    await loadCorpus(t.wh, [...agents].reverse());
    expect(await state()).toEqual(before);
  }, 120_000);

  it('never returns a hidden agent, whether or not the index has caught up', async () => {
    const target = byFile('phishunt');
    expect(await keys('phishing')).toContain(target.key);
    // The agents row says hidden, the index not yet: the read still leaves it out.
    await t.wh.insert('agents', [
      agentRow({
        agent_key: target.key,
        agent_id: agentId(target.key),
        name: target.source.name,
        description: target.source.description,
        opt_out: 'hidden',
        version: 10,
      }),
    ]);
    expect(await keys('phishing')).not.toContain(target.key);
    expect(await keys('phishunt')).not.toContain(target.key);
    // Indexed: its postings are no longer current and its terms leave the dictionary.
    await indexAgents(t.wh, [target.key]);
    expect(await keys('phishing')).not.toContain(target.key);
    const [df] = await t.wh.query<{ n: string }>("SELECT toString(sum(df)) AS n FROM search_terms WHERE term = 'phishunt'");
    expect(Number(df?.n ?? 0)).toBe(0);
    const shown = await t.wh.query<{ agent_key: string }>(
      'SELECT agent_key FROM veronikai_public.search_documents WHERE agent_key = {k:String}',
      { k: target.key },
    );
    expect(shown).toEqual([]);
    const postings = await t.wh.query<{ agent_id: string }>(
      'SELECT agent_id FROM veronikai_public.search_postings WHERE agent_id = {id:String}',
      { id: agentId(target.key) },
    );
    expect(postings).toEqual([]);
  });

  it('reads a new card in the same batch, and writes nothing for an unchanged agent', async () => {
    const a = agents.find((x) => x.protocol === 'a2a' && x.source.card !== null && !/orchestr/i.test(x.source.card))!;
    const card = JSON.stringify({
      ...(JSON.parse(a.source.card!) as object),
      skills: [{ id: 's', name: 'Orchestrate quokkas', description: 'Herds quokkas' }],
    });
    await t.wh.insert('documents', [documentRow({ sha256: 'e'.repeat(64), text: card })]);
    expect(await keys('quokkas')).toEqual([]);
    expect(await indexAgents(t.wh, [a.key], new Map([[a.key, 'e'.repeat(64)]]))).toBe(1);
    expect(await keys('quokkas')).toEqual([a.key]);
    expect(await indexAgents(t.wh, [a.key])).toBe(0);
  });

  it('counts the agents of each term by facets in the dictionary as its postings do, after hiding, a new card and new sources', async () => {
    // An agent newly listed by a second source: every one of its terms moves to its new facets.
    const a = agents.find((x) => x.protocol === 'mcp' && !/phishunt/.test(x.file))!;
    // A word of its name that is one term: with a space after it, the query is that term alone.
    const word = a.source.name.split(/[^\p{L}\p{N}]+/u).find((w) => w.length >= 4 && terms(w).length === 1)!;
    const q = `${word} `;
    const before = await search(q);
    await t.wh.insert('agents', [
      agentRow({
        agent_key: a.key,
        agent_id: agentId(a.key),
        name: a.source.name,
        description: a.source.description,
        protocol: a.protocol,
        sources: ['mcp-registry', 'second-source'],
        version: 20,
      }),
    ]);
    expect(await indexAgents(t.wh, [a.key])).toBe(1);
    const fromFacets = await facetCounts();
    const fromPostings = await t.wh.query(
      `SELECT term, protocol, sources, transports, auth_required, toString(count()) AS n FROM search_term_postings
       GROUP BY ALL ORDER BY ALL`,
    );
    expect(fromFacets.length).toBeGreaterThan(1000);
    expect(fromFacets).toEqual(fromPostings);
    // A one-word query counts from them: the new source is a facet value of its own.
    const after = await search(q, { filters: { source: 'second-source' } });
    expect(after.complete).toBe(true);
    expect(after.hits.map((h) => h.key)).toEqual([a.key]);
    expect(after.facets.source['second-source']).toBe(1);
    expect(before.facets.source['second-source']).toBeUndefined();
  });
});

describe('the search index kept by the listings processor', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('search-l2a');
  });
  afterAll(async () => {
    await t?.close();
  });

  let n = 0;
  const listing = (itemId: string, endpointUrl: string, at: number, extra: Partial<ListingEvent> = {}): ListingEvent =>
    listingEvent({ id: `e${++n}`, observedAt: at, itemId, name: itemId, endpointUrl, ...extra });

  it('indexes a listing in its batch, follows its changes and drops a hidden agent', async () => {
    const A = 'https://maps.acme-tools.dev/mcp';
    const writer = new ListingsToAgents(t.wh);
    await writer.write([listing('acme/maps', A, 1000, { description: 'Geocoding and route planning' })]);
    const q = (s: string) => rankedSearch(t.wh, { q: s, limit: 5, checkerVersion: null }).then((r) => r.hits.map((h) => h.key));
    expect(await q('route planner')).toEqual([A]);
    // Postings stored for a term of this agent (rows, whatever the read would skip).
    const stored = (term: string) =>
      t.wh
        .query<{ n: string }>(
          'SELECT toString(count()) AS n FROM search_term_postings WHERE term = {term:String} AND agent_id = {id:String}',
          {
            term,
            id: agentId(A),
          },
        )
        .then((r) => Number(r[0]!.n));
    expect(await stored('rout')).toBe(1);
    await writer.write([listing('acme/maps', A, 2000, { description: 'Weather forecasts' })]);
    expect(await q('route planner')).toEqual([]);
    expect(await q('forecast')).toEqual([A]);
    // The old words' postings are gone, not only skipped; the new ones are the agent's only postings.
    expect(await stored('rout')).toBe(0);
    expect(await stored('geocod')).toBe(0);
    expect(await stored('forecast')).toBe(1);
    const [all] = await t.wh.query<{ n: string; c: string }>(
      'SELECT toString(count()) AS n, toString(uniqExact(content)) AS c FROM search_term_postings WHERE agent_id = {id:String}',
      { id: agentId(A) },
    );
    expect(Number(all!.c)).toBe(1);
    const [doc] = await t.wh.query<{ terms: string }>(
      'SELECT toString(length(impacts)) AS terms FROM search_documents FINAL WHERE agent_id = {id:String}',
      { id: agentId(A) },
    );
    expect(all!.n).toBe(doc!.terms);
    const hiding = new ListingsToAgents(t.wh, { optOut: [{ match: 'host:maps.acme-tools.dev', mode: 'hidden', reason: 'owner asked' }] });
    await hiding.write([listing('acme/maps', A, 3000, { description: 'Weather forecasts' })]);
    expect(await q('forecast')).toEqual([]);
    // A hidden agent keeps no postings at all.
    expect(await stored('forecast')).toBe(0);
  });
});
