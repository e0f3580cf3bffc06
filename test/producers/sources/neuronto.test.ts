import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNeurontoSource, kindOfMediaType, toNeurontoListing } from '../../../src/producers/sources/neuronto.js';
import { ardEntry, startFixtureNeuronto, type NeurontoFixture } from '../../helpers/fixture-neuronto.js';
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
    expect(mcp).toMatchObject({ protocol: 'mcp', endpointUrl: 'https://mcp.org0.example/mcp', cardUrl: 'https://org0.example/.well-known/mcp/server-card.json' });
    const a2a = toNeurontoListing(entries(3)[2])!;
    expect(a2a).toMatchObject({ protocol: 'a2a', cardUrl: 'https://org2.example/.well-known/agent-card.json', endpointUrl: null });
  });

  it('sweeps at most the page budget per run and resumes where the last run stopped', async () => {
    const first = await run(4);
    expect(first).toMatchObject({ complete: true, mode: 'rolling', pages: 4, errors: 0, delisted: 0 });
    expect(first.notes.join()).toMatch(/paused after 4 page/);
    expect(fx.requests[0]).toBe('/agents?pageSize=100');
    const stopToken = h.sink.fetches[3]!.nextCursor!;
    expect((await h.state.load('neuronto')).sweepToken).toBe(stopToken);

    h.clear();
    const second = await run(4);
    expect(fx.requests[4]).toBe(`/agents?pageSize=100&pageToken=${encodeURIComponent(stopToken)}`);
    expect(second).toMatchObject({ pages: 4 });

    // Entries 0-9 are removed while the sweep is under way; it only delists once it reaches the end.
    const removed = fx.entries.splice(0, 10).map((e) => String(e.identifier)).sort();
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
    expect(fx.requests[fx.requests.length - 4]).toBe('/agents?pageSize=100');
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
