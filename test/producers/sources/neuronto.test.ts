import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNeurontoSource, kindOfMediaType, parseArdList, toNeurontoListing } from '../../../src/producers/sources/neuronto.js';
import { ardEntry, neurontoEntry, startFixtureNeuronto, type NeurontoFixture } from '../../helpers/fixture-neuronto.js';
import { faults } from '../../helpers/fixture-common.js';
import { sourceHarness } from './harness.js';

const TYPES = [
  'application/mcp-server-card+json',
  'application/vnd.mcp.server-card+json',
  'Application/A2A-Agent-Card+JSON; charset=utf-8',
  'application/agent-card+json',
];

function entries(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const type = TYPES[i % TYPES.length]!;
    const mcp = kindOfMediaType(type) === 'mcp';
    return mcp
      ? ardEntry(`urn:air:org${i}.example:mcp:s${i}`, type, `https://org${i}.example/.well-known/mcp/server-card.json`, {
          data: { remotes: [{ type: 'streamable-http', url: `https://mcp.org${i}.example/mcp` }] },
        })
      : ardEntry(`urn:air:org${i}.example:a2a:a${i}`, type, `https://org${i}.example/.well-known/agent-card.json`);
  });
}

describe('Neuronto open agent feed', () => {
  let fx: NeurontoFixture;
  let h: ReturnType<typeof sourceHarness>;
  beforeEach(async () => {
    // 1000 entries, 100 a page: 10 pages; plus two entries that are not agents.
    const list = entries(1000);
    list.splice(150, 0, ardEntry('urn:air:x:skill:s', 'application/ai-skill+json', 'https://x.example/skill.json'));
    list.splice(450, 0, ardEntry('urn:air:x:api:a', 'application/openapi+json', 'https://x.example/openapi.json'));
    fx = await startFixtureNeuronto(list);
    h = sourceHarness();
  });
  afterEach(() => fx.close());
  const run = (maxPages?: number, full = false) =>
    h.run(createNeurontoSource(), fx.url, { full, limits: maxPages === undefined ? {} : { maxPages } });

  it('classifies media types leniently and passes over non-agents', () => {
    expect(TYPES.map(kindOfMediaType)).toEqual(['mcp', 'mcp', 'a2a', 'a2a']);
    expect(kindOfMediaType('application/ai-skill+json')).toBeNull();
    expect(kindOfMediaType(undefined)).toBeNull();
    expect(toNeurontoListing(ardEntry('urn:air:x:skill:s', 'application/ai-skill+json', null))).toBeNull();
    const mcp = toNeurontoListing(entries(1)[0])!;
    expect(mcp).toMatchObject({
      protocol: 'mcp',
      endpointUrl: 'https://mcp.org0.example/mcp',
      cardUrl: 'https://org0.example/.well-known/mcp/server-card.json',
    });
    const a2a = toNeurontoListing(entries(3)[2])!;
    expect(a2a).toMatchObject({ protocol: 'a2a', cardUrl: 'https://org2.example/.well-known/agent-card.json', endpointUrl: null });
  });

  it('sweeps at most the page budget per run and resumes where the last run stopped', async () => {
    const first = await run(4);
    expect(first).toMatchObject({ complete: true, mode: 'rolling', pages: 4, errors: 0, delisted: 0 });
    expect(first.notes.join()).toMatch(/paused after 4 page/);
    expect(fx.requests[0]).toBe('/agents?pageSize=100&orderBy=created_at');
    const stopToken = h.sink.fetches[3]!.nextCursor!;
    expect((await h.state.load('neuronto')).sweepToken).toBe(stopToken);

    h.clear();
    const second = await run(4);
    expect(fx.requests[4]).toBe(`/agents?pageSize=100&orderBy=created_at&pageToken=${encodeURIComponent(stopToken)}`);
    expect(second).toMatchObject({ pages: 4 });

    // Entries 0-9 are removed while the sweep is under way; it only delists once it reaches the end.
    const removed = fx.entries
      .splice(0, 10)
      .map((e) => String(e.identifier))
      .sort();
    h.clear();
    const third = await run(4);
    expect(third).toMatchObject({ complete: true, pages: 2, delisted: 0 });
    expect((await h.state.load('neuronto')).sweepToken).toBeNull();
    // The next sweep sees the whole feed again and delists what is gone.
    h.clear();
    const fourth = await run(20);
    // The ten entries that slid back past the resume point when the feed shrank are first seen now.
    expect(fourth).toMatchObject({ complete: true, pages: 10, delisted: 10, new: 10 });
    expect(h.delisted()).toEqual(removed);
    expect(h.listed()).toHaveLength(1000 - 10);
  });

  it('keeps its place after a failed page, and starts over when a stored token is refused', async () => {
    await run(2);
    fx.faultAt.set(fx.dataRequests + 2, faults.status(503));
    h.clear();
    const failed = await run(4);
    expect(failed).toMatchObject({ complete: false, pages: 2, errors: 1, delisted: 0 });
    const token = (await h.state.load('neuronto')).sweepToken as string;
    expect(token).toBe(h.sink.fetches[0]!.nextCursor);

    fx.expireTokens();
    h.clear();
    const refused = await run(4);
    expect(refused).toMatchObject({ complete: false, errors: 1 });
    expect(refused.failure).toMatch(/^http_4xx: HTTP 400/);
    expect((await h.state.load('neuronto')).sweepToken).toBeNull();
    h.clear();
    expect(await run(4)).toMatchObject({ complete: true, pages: 4 });
    expect(fx.requests[fx.requests.length - 4]).toBe('/agents?pageSize=100&orderBy=created_at');
  });

  it('fails the page when the feed hands back a token it already gave, instead of spending the page budget', async () => {
    // The third page answers with the token it was asked with: a loop.
    fx.faultAt.set(3, (req, res) => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('pageToken');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: [], total: 1000, pageToken: token }));
    });
    const s = await run();
    expect(s).toMatchObject({ complete: false, pages: 3, errors: 1 });
    expect(s.failure).toMatch(/^invalid_shape: cursor repeated/);
    expect(h.sink.fetches[2]).toMatchObject({ ok: false, errorClass: 'invalid_shape' });
  });
});

/**
 * The feed as Neuronto's own code answers it (no captured body exists; the shape is read from
 * its source, ../shared/corpus/sources/README.md "neuronto/"): `{items, totalSize,
 * nextPageToken}`, the token the next offset as a decimal string, entries with no `updatedAt`
 * and no `data`, default order by display name.
 */
describe('Neuronto as its own code answers', () => {
  let fx: NeurontoFixture;
  afterEach(() => fx?.close());

  const agents = (n: number, from = 0, name = (i: number) => `agent ${String(i).padStart(4, '0')}`) =>
    Array.from({ length: n }, (_, k) => {
      const i = from + k;
      return i % 2 === 0
        ? neurontoEntry(
            `urn:air:org${i}.example:mcp:s${i}`,
            'application/mcp-server-card+json',
            `https://org${i}.example/.well-known/mcp/server-card.json`,
            { displayName: name(i) },
          )
        : neurontoEntry(
            `urn:air:org${i}.example:a2a:a${i}`,
            'application/a2a-agent-card+json',
            `https://org${i}.example/.well-known/agent-card.json`,
            { displayName: name(i), version: '2.0.0' },
          );
    });

  it('reads {items, totalSize, nextPageToken} page by page and lists every agent, entries without data or updatedAt', async () => {
    const list = agents(230);
    list.splice(40, 0, neurontoEntry('urn:air:x.example:skill:s', 'application/ai-skill+json', 'https://x.example/skill.json'));
    list.splice(120, 0, neurontoEntry('urn:air:x.example:registry:r', 'application/ai-registry+json', 'https://x.example/search'));
    fx = await startFixtureNeuronto(list, { real: true });
    const h = sourceHarness();
    const s = await h.run(createNeurontoSource(), fx.url);
    expect(s).toMatchObject({ complete: true, mode: 'rolling', pages: 3, errors: 0, items: 230 });
    expect(fx.requests).toEqual([
      '/agents?pageSize=100&orderBy=created_at',
      '/agents?pageSize=100&orderBy=created_at&pageToken=100',
      '/agents?pageSize=100&orderBy=created_at&pageToken=200',
    ]);
    const listed = h.listed();
    expect(listed.map((l) => l.itemId).sort()).toEqual(
      agents(230)
        .map((e) => String(e.identifier))
        .sort(),
    );
    expect(listed.find((l) => l.itemId === 'urn:air:org0.example:mcp:s0')).toMatchObject({
      protocol: 'mcp',
      name: 'agent 0000',
      cardUrl: 'https://org0.example/.well-known/mcp/server-card.json',
      endpointUrl: null,
      updatedAt: null,
      version: null,
    });
    expect(listed.find((l) => l.itemId === 'urn:air:org1.example:a2a:a1')).toMatchObject({
      protocol: 'a2a',
      cardUrl: 'https://org1.example/.well-known/agent-card.json',
      version: '2.0.0',
    });
    // A numeric token is read as its decimal text.
    expect(parseArdList({ items: [], totalSize: 5, nextPageToken: 20 }).nextCursor).toBe('20');
  });

  it('sweeps in created_at order: agents added mid-sweep (their names sorting first) shift no page, none is read twice or missed', async () => {
    fx = await startFixtureNeuronto(agents(300), { real: true });
    const h = sourceHarness();
    expect(await h.run(createNeurontoSource(), fx.url)).toMatchObject({ complete: true, pages: 3, items: 300 });
    h.clear();
    expect(await h.run(createNeurontoSource(), fx.url, { limits: { maxPages: 1 } })).toMatchObject({ complete: true, pages: 1 });
    // 50 agents appear whose display names sort before every other: by name, every later offset would move.
    fx.entries.push(...agents(50, 300, (i) => `aaa new ${i}`));
    for (let run = 0; run < 3; run++) await h.run(createNeurontoSource(), fx.url, { limits: { maxPages: 1 } });
    expect((await h.state.load('neuronto')).sweepToken).toBeNull();
    const emitted = h.sink.listingEvents.filter((l) => l.status === 'active').map((l) => l.itemId);
    expect(emitted).toHaveLength(350);
    expect(new Set(emitted).size).toBe(350);
    expect(h.delisted()).toEqual([]);
  });
});
