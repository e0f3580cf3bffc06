import { afterEach, describe, expect, it } from 'vitest';
import { createSmitherySource, detailPath, qualifiedNameProblem, toSmitheryListing } from '../../../src/producers/sources/smithery.js';
import { smitheryServer, startFixtureSmithery, type SmitheryFixture } from '../../helpers/fixture-smithery.js';
import { sourceHarness } from './harness.js';

function servers(n: number) {
  return Array.from({ length: n }, (_, i) =>
    smitheryServer(i % 2 === 0 ? `@org${i}/server` : `plain${i}`, i % 5 === 4 ? null : `https://server.smithery.ai/@org${i}/server/mcp`),
  );
}

describe('Smithery', () => {
  let fx: SmitheryFixture;
  afterEach(() => fx?.close());

  it('calls the detail for the endpoint the list lacks, and only where there may be one', async () => {
    const list = servers(10);
    list.push(smitheryServer('@inlist/server', 'https://server.smithery.ai/@inlist/server/mcp', { endpointInList: true }));
    fx = await startFixtureSmithery(list);
    const h = sourceHarness();
    const s = await h.run(createSmitherySource(), fx.url);
    // 11 servers: 2 local (no endpoint, no detail call), 1 with its endpoint in the list, 8 detail calls.
    expect(s).toMatchObject({ complete: true, mode: 'window', pages: 1, details: 8, items: 11, errors: 0 });
    expect(fx.detailRequests).toBe(8);
    expect(fx.requests[0]).toBe('/servers?page=1&pageSize=100');
    expect(fx.requests).toContain('/servers/@org0/server');
    const byId = new Map(h.listed().map((l) => [l.itemId, l]));
    expect(byId.get('@org0/server')).toMatchObject({
      protocol: 'mcp',
      endpointUrl: 'https://server.smithery.ai/@org0/server/mcp',
      endpointTransport: 'streamable-http',
    });
    expect(byId.get('@org4/server')).toMatchObject({ endpointUrl: null });
    expect(byId.get('plain9')).toMatchObject({ endpointUrl: null });
    expect(byId.get('@inlist/server')).toMatchObject({ endpointUrl: 'https://server.smithery.ai/@inlist/server/mcp' });
    // The list page counts all its servers; each detail event carries the one it completed.
    expect(h.sink.fetches[0]).toMatchObject({ itemCount: 11 });
    expect(h.sink.fetches.filter((f) => f.cursor?.startsWith('@') || f.cursor?.startsWith('plain')).every((f) => f.itemCount === 1)).toBe(
      true,
    );
    expect(detailPath('@a b/c?d')).toBe('@a%20b/c%3Fd');
  });

  it('reads at most the first 10 pages', async () => {
    fx = await startFixtureSmithery(servers(40), { maxPageSize: 3 });
    const h = sourceHarness();
    const s = await h.run(createSmitherySource(), fx.url);
    expect(s).toMatchObject({ complete: true, pages: 10, items: 30, delisted: 0 });
    expect(s.notes.join()).toMatch(/stopped at the 10-page window/);
    // a window never delists: servers past it are still listed by Smithery
    fx.servers.splice(0, 5);
    h.clear();
    expect(await h.run(createSmitherySource(), fx.url)).toMatchObject({ complete: true, delisted: 0 });
  });

  it('records a 401 as unauthorized, and never as an empty listing', async () => {
    fx = await startFixtureSmithery(servers(5), { requireKey: true });
    const h = sourceHarness();
    const s = await h.run(createSmitherySource(), fx.url);
    expect(s).toMatchObject({ complete: false, items: 0, errors: 1, delisted: 0 });
    expect(s.failure).toMatch(/^unauthorized: HTTP 401 \(Bearer\)/);
    expect(h.sink.fetches[0]).toMatchObject({ ok: false, status: 401, errorClass: 'unauthorized' });
  });

  it('records an anonymous cut-off as what it is', async () => {
    fx = await startFixtureSmithery(servers(30), { maxPageSize: 5, anonymousCap: 12 });
    const h = sourceHarness();
    const s = await h.run(createSmitherySource(), fx.url);
    // pages 1-3 hold the 12 visible servers; page 4 is empty although 6 pages are announced
    expect(s).toMatchObject({ complete: true, pages: 4, items: 12, delisted: 0 });
    expect(s.notes.join()).toMatch(/^truncated: the listing ended at page 4 although it announced 6 page\(s\) \(30 servers\)/);
    expect(h.sink.fetches.find((f) => f.page === 4 && f.cursor === '4')).toMatchObject({ ok: true, itemCount: 0, errorClass: 'truncated' });
  });

  it('records a failed detail call, keeps the server listed, and fails the pass', async () => {
    fx = await startFixtureSmithery(servers(3));
    fx.faultAt.set(3, (_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const h = sourceHarness();
    await h.run(createSmitherySource(), fx.url);
    h.clear();
    const s = await h.run(createSmitherySource(), fx.url);
    expect(s).toMatchObject({ complete: true, details: 3, errors: 0 });
    fx.faultAt.set(fx.dataRequests + 3, (_req, res) => {
      res.writeHead(503);
      res.end();
    });
    h.clear();
    const failed = await h.run(createSmitherySource(), fx.url);
    expect(failed).toMatchObject({ complete: false, details: 3, items: 2, errors: 1, delisted: 0 });
    expect(failed.failure).toMatch(/^http_5xx/);
  });

  it('never turns a qualifiedName into another path: dot segments (also percent-encoded) and odd shapes are invalid, with no detail call', async () => {
    const endpoint = 'https://server.smithery.ai/x/mcp';
    const hostile = ['../../admin/x', '%2e%2e/%2E%2e', '@owner/..', './x', '@a/b/c', '/x', 'a//b', '%2fadmin'];
    fx = await startFixtureSmithery([smitheryServer('@good/server', endpoint), ...hostile.map((n) => smitheryServer(n, endpoint))]);
    const h = sourceHarness();
    const s = await h.run(createSmitherySource(), fx.url);
    expect(s).toMatchObject({ complete: true, details: 1, invalid: hostile.length, errors: 0 });
    expect(fx.requests).toEqual(['/servers?page=1&pageSize=100', '/servers/@good/server']);
    const invalid = h.sink.listingEvents.filter((l) => l.status === 'invalid');
    expect(invalid).toHaveLength(hostile.length);
    expect(invalid.every((l) => l.itemId.startsWith('invalid:') && /qualifiedName/.test(l.invalidReason ?? ''))).toBe(true);
    // the shapes Smithery uses stay valid
    expect(['exa', '@smithery-ai/github', 'owner/name.v2', 'a..b'].map(qualifiedNameProblem)).toEqual([null, null, null, null]);
    expect(toSmitheryListing({ qualifiedName: '..' })).toMatchObject({ status: 'invalid', invalidReason: expect.stringMatching(/"\.\."/) });
  });
});
