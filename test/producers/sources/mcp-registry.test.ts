import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventCodec } from '../../../src/events/codec.js';
import { silentLogger } from '../../../src/log.js';
import { EVENT_MAX_BYTES } from '../../../src/events/limits.js';
import { MemorySink } from '../../../src/producers/sink.js';
import { createPageFetcher } from '../../../src/producers/sources/http-page-fetcher.js';
import { SOURCE_LIMITS } from '../../../src/producers/sources/limits.js';
import { createMcpRegistrySource, FULL_RESYNC_EVERY_MS, pickRemote } from '../../../src/producers/sources/mcp-registry.js';
import { runSource, type SourceRunnerDeps } from '../../../src/producers/sources/runner.js';
import { MemorySourceStateStore } from '../../../src/producers/sources/state.js';
import { entry, faults, startFixtureRegistry, type FixtureRegistry } from '../../helpers/fixture-mcp-registry.js';

describe('MCP Registry source', () => {
  let registry: FixtureRegistry;
  let sink: MemorySink;
  let state: MemorySourceStateStore;
  let clock: number;
  let deps: SourceRunnerDeps;

  beforeEach(async () => {
    const entries = Array.from({ length: 230 }, (_, i) =>
      entry(`io.github.org${String(i).padStart(3, '0')}/server`, { updatedAt: `2025-11-01T00:00:${String(i % 60).padStart(2, '0')}Z` }),
    );
    // An older, non-latest version of one server, and a package-only server without remotes.
    entries.push(entry('io.github.org000/server', { version: '0.9.0', isLatest: false }));
    entries.push(entry('io.github.local/pkg-only', { remoteUrl: null }));
    registry = await startFixtureRegistry(entries);
    sink = new MemorySink();
    state = new MemorySourceStateStore();
    clock = Date.UTC(2026, 10, 30, 6);
    deps = {
      fetch: createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: ['127.0.0.1'], maxRetries: 0 }),
      sink,
      state,
      log: silentLogger,
      now: () => clock,
      limits: { pageTimeoutMs: 1000, pageMaxBytes: 256 * 1024, pageDelayMs: 0 },
    };
  });
  afterEach(() => registry.close());

  const run = (full = false) => runSource(createMcpRegistrySource(), deps, { runId: 'run-1', baseUrl: registry.url, full });

  it('pages through every latest server with the opaque cursor, one source-fetch event per page', async () => {
    const summary = await run();
    expect(summary).toMatchObject({ complete: true, mode: 'full', pages: 3, items: 231, invalid: 0, errors: 0 });
    expect(sink.fetches.map((f) => [f.page, f.ok, f.itemCount])).toEqual([
      [1, true, 100],
      [2, true, 100],
      [3, true, 31],
    ]);
    expect(sink.fetches[1]!.cursor).toBe(sink.fetches[0]!.nextCursor);
    // latest versions only: the 0.9.0 row never appears
    expect(sink.listingEvents.filter((l) => l.itemId === 'io.github.org000/server').map((l) => l.version)).toEqual(['1.0.0']);
    const pkgOnly = sink.listingEvents.find((l) => l.itemId === 'io.github.local/pkg-only')!;
    expect(pkgOnly.endpointUrl).toBeNull();
    const first = sink.listingEvents[0]!;
    expect(first.fetchId).toBe(sink.fetches[0]!.id);
    expect(JSON.parse(first.serverJson!)).toMatchObject({ name: first.itemId, version: '1.0.0' });
    expect(registry.requests.every((r) => r.includes('version=latest') && r.includes('limit=100'))).toBe(true);
  });

  it('reads incrementally with updated_since after a complete pass, and tombstones deleted servers', async () => {
    await run();
    const watermark = (await state.load('mcp-registry')).watermark;
    expect(watermark).toBe('2025-11-01T00:00:59Z');
    registry.entries.push(entry('io.github.newco/server', { updatedAt: '2025-11-05T00:00:00Z' }));
    registry.entries[0] = entry('io.github.org000/server', { updatedAt: '2025-11-06T00:00:00Z', status: 'deleted' });
    clock += 24 * 3600 * 1000;
    sink.listingEvents.length = 0;
    registry.requests.length = 0;

    const summary = await run();
    expect(summary).toMatchObject({ mode: 'incremental', complete: true, items: 2 });
    expect(registry.requests[0]).toContain(`updated_since=${encodeURIComponent(watermark!)}`);
    expect(sink.listingEvents.map((l) => [l.itemId, l.status])).toEqual([
      ['io.github.newco/server', 'active'],
      ['io.github.org000/server', 'deleted'],
    ]);
    expect((await state.load('mcp-registry')).watermark).toBe('2025-11-06T00:00:00Z');
  });

  it('resyncs in full every 7 days and on demand', async () => {
    await run();
    clock += FULL_RESYNC_EVERY_MS;
    expect((await run()).mode).toBe('full');
    clock += 1000;
    expect((await run()).mode).toBe('incremental');
    expect((await run(true)).mode).toBe('full');
  });

  it.each([
    ['a page that is not JSON', faults.notJson(), 'not_json'],
    ['a 5xx', faults.status(503), 'http_5xx'],
    ['a response slower than the timeout', faults.slow(5000), 'timeout'],
    ['an oversized page', faults.oversized(400 * 1024), 'too_large'],
    ['a page of the wrong shape', faults.page({ items: [] }), 'invalid_shape'],
  ])('records %s in a source-fetch event and keeps what it read', async (_name, fault, errorClass) => {
    // The first page is served normally, the second fails.
    registry.faultAt.set(2, fault);
    const started = Date.now();
    const summary = await run();
    expect(Date.now() - started).toBeLessThan(4000);
    expect(summary.complete).toBe(false);
    expect(summary.errors).toBe(1);
    expect(summary.failure).toContain(errorClass);
    const failed = sink.fetches.filter((f) => !f.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ errorClass, itemCount: 0, page: 2 });
    expect(sink.listingEvents).toHaveLength(100);
    expect(failed[0]!.error).toBeTruthy();
    // the pass is incomplete, so the watermark did not move
    expect(await state.load('mcp-registry')).toEqual({});
  });

  it('keeps going past items missing required fields, recording each as invalid with a reason', async () => {
    registry.entries.push({ server: { name: 'io.github.broken/no-version', description: 'x' }, _meta: registry.entries[0]!._meta });
    registry.entries.push({ nope: true } as never);
    const summary = await run();
    expect(summary.complete).toBe(true);
    expect(summary.invalid).toBe(2);
    const invalid = sink.listingEvents.filter((l) => l.status === 'invalid');
    expect(invalid.map((l) => l.invalidReason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/version/), expect.stringMatching(/no "server" object/)]),
    );
    expect(sink.fetches.reduce((n, f) => n + f.invalidItemCount, 0)).toBe(2);
  });

  it('says plainly when the registry cannot be reached, and does not read it as empty', async () => {
    await registry.close();
    const summary = await run();
    // robots.txt is the first request: unreachable means the source is skipped (fail closed), recorded with its reason.
    expect(summary).toMatchObject({ complete: false, items: 0, pages: 0, errors: 0 });
    expect(summary.skipped).toMatch(/^robots: unreachable \(.*refused/);
    expect(sink.fetches).toHaveLength(1);
    expect(sink.fetches[0]).toMatchObject({ ok: false, status: null, errorClass: 'refused', gate: 'robots_unreachable' });
    expect(sink.fetches[0]!.url).toBe(`${registry.url}/robots.txt`);
  });

  it('caps listing fields and marks an oversized server.json invalid, so one item cannot stall the source', async () => {
    deps.limits = { ...deps.limits, pageMaxBytes: 8 * 1024 * 1024 };
    registry.entries.push(
      entry('io.github.long/text', {
        description: 'd'.repeat(200 * 1024),
        version: `1.0.0-${'v'.repeat(5000)}`,
        extra: { title: '\u{1F600}'.repeat(2000) },
        updatedAt: '2025-11-02T00:00:00Z',
      }),
    );
    registry.entries.push(entry('io.github.huge/json', { extra: { blob: 'x'.repeat(2 * 1024 * 1024) } }));
    const summary = await run();
    expect(summary).toMatchObject({ complete: true, errors: 0, invalid: 1 });
    const long = sink.listingEvents.find((l) => l.itemId === 'io.github.long/text')!;
    expect(long.status).toBe('active');
    expect(long.description).toHaveLength(SOURCE_LIMITS.descriptionMaxChars);
    expect(long.description.endsWith('…')).toBe(true);
    expect(long.version!.length).toBeLessThanOrEqual(SOURCE_LIMITS.versionMaxChars);
    expect(long.name.length).toBeLessThanOrEqual(SOURCE_LIMITS.nameMaxChars);
    expect(long.name).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // never a cut surrogate pair
    expect(long.serverJson).not.toBeNull(); // ~200 KB: under its cap
    const huge = sink.listingEvents.find((l) => l.itemId === 'io.github.huge/json')!;
    expect(huge).toMatchObject({ status: 'invalid', serverJson: null });
    expect(huge.invalidReason).toMatch(/^server\.json is \d+ bytes, over the 262144-byte cap$/);
    expect(sink.fetches.reduce((n, f) => n + f.invalidItemCount, 0)).toBe(1);
    for (const l of sink.listingEvents) expect(eventCodec().encode('Listing', l).length).toBeLessThan(EVENT_MAX_BYTES);
    // the pass completed, so the state moved on (a stalled source would resume at the same page)
    expect((await state.load('mcp-registry')).watermark).toBe('2025-11-02T00:00:00Z');
  });

  it('lists a server whose remotes are templated or not http(s) without an endpoint, keeping its server.json', async () => {
    registry.entries.push(entry('io.github.tmpl/host', { remoteUrl: 'https://{tenant}.example.org/mcp' }));
    registry.entries.push(
      entry('io.github.tmpl/path', {
        remoteUrl: null,
        extra: {
          remotes: [
            { type: 'streamable-http', url: 'https://x.example.org/{tenant}/mcp' },
            { type: 'streamable-http', url: 'ftp://x.example.org/mcp' },
            { type: 'sse', url: 'https://x.example.org/sse' },
          ],
        },
      }),
    );
    await run();
    const host = sink.listingEvents.find((l) => l.itemId === 'io.github.tmpl/host')!;
    expect(host).toMatchObject({ status: 'active', endpointUrl: null, endpointTransport: null });
    expect(JSON.parse(host.serverJson!).remotes[0].url).toBe('https://{tenant}.example.org/mcp');
    // the first probeable remote wins: the templated and the ftp streamable-http ones are passed over
    expect(sink.listingEvents.find((l) => l.itemId === 'io.github.tmpl/path')).toMatchObject({
      endpointUrl: 'https://x.example.org/sse',
      endpointTransport: 'sse',
    });
    expect(pickRemote([{ type: 'streamable-http', url: 'https://a.example/{x}' }])).toBeNull();
    expect(pickRemote([{ type: 'streamable-http', url: 'https://a.example/mcp' }])).toEqual({
      type: 'streamable-http',
      url: 'https://a.example/mcp',
    });
  });

  it('reads the watermark as a time: an invalid one means a full pass, a future one is capped at the pass start, .123Z orders right', async () => {
    await state.save('mcp-registry', { watermark: 'zzz', lastFullAt: clock });
    registry.entries.push(entry('io.github.frac/server', { updatedAt: '2025-11-01T00:00:59.500Z' }));
    const first = await run();
    expect(first.mode).toBe('full');
    expect(registry.requests[0]).not.toContain('updated_since');
    // '…59.500Z' sorts before '…59Z' as text, but is the later time
    expect((await state.load('mcp-registry')).watermark).toBe('2025-11-01T00:00:59.500Z');

    registry.entries.push(entry('io.github.future/server', { updatedAt: '2999-01-01T00:00:00Z' }));
    registry.entries.push(entry('io.github.garbage/server', { updatedAt: 'not a date' }));
    clock += 1000;
    registry.requests.length = 0;
    const second = await run();
    expect(second.mode).toBe('incremental');
    expect(registry.requests[0]).toContain(`updated_since=${encodeURIComponent('2025-11-01T00:00:59.500Z')}`);
    // capped at the start of the pass, so the next incremental read is not frozen in the future
    expect((await state.load('mcp-registry')).watermark).toBe(new Date(clock).toISOString().replace('.000Z', 'Z'));
  });

  it('fails the page when the registry repeats a cursor, instead of spending the page budget', async () => {
    // The second page answers with the very cursor it was asked with.
    registry.faultAt.set(2, (req, res) => {
      const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ servers: [], metadata: { nextCursor: cursor } }));
    });
    const summary = await run();
    expect(summary).toMatchObject({ complete: false, pages: 2, errors: 1 });
    expect(summary.failure).toMatch(/^invalid_shape: cursor repeated/);
    expect(sink.fetches[1]).toMatchObject({ ok: false, errorClass: 'invalid_shape' });
    expect(await state.load('mcp-registry')).toEqual({});
  });

  it('records an over-long cursor bounded, and does not request a URL over the limit', async () => {
    registry.faultAt.set(1, faults.page({ servers: [entry('io.github.one/server')], metadata: { nextCursor: 'c'.repeat(100_000) } }));
    const summary = await run();
    expect(summary).toMatchObject({ complete: false, pages: 2, errors: 1 });
    expect(sink.fetches[0]!.nextCursor!.length).toBeLessThanOrEqual(SOURCE_LIMITS.urlMaxChars);
    expect(sink.fetches[1]).toMatchObject({ ok: false, errorClass: 'invalid_url' });
    expect(sink.fetches[1]!.url.length).toBeLessThanOrEqual(SOURCE_LIMITS.urlMaxChars);
    expect(sink.fetches[1]!.cursor!.length).toBeLessThanOrEqual(SOURCE_LIMITS.urlMaxChars);
    expect(registry.requests).toHaveLength(1);
    for (const f of sink.fetches) expect(eventCodec().encode('SourceFetch', f).length).toBeLessThan(64 * 1024);
  });

  it('tombstones what a complete full pass no longer lists, and counts new and changed items', async () => {
    await run(true);
    const removed = registry.entries.splice(5, 1)[0]!;
    registry.entries[6] = entry(String(registry.entries[6]!.server.name), { description: 'A new description' });
    registry.entries.push(entry('io.github.brandnew/server'));
    sink.listingEvents.length = 0;
    const summary = await run(true);
    expect(summary).toMatchObject({ complete: true, mode: 'full', new: 1, changed: 1, delisted: 1 });
    const delisted = sink.listingEvents.filter((l) => l.status === 'delisted');
    // A delisting names the URL the item was last listed with, so every consumer keys it to its agent.
    expect(delisted.map((l) => [l.itemId, l.protocol, l.endpointUrl])).toEqual([
      [removed.server.name, 'mcp', (removed.server.remotes as Array<{ url: string }>)[0]!.url],
    ]);
    expect(delisted[0]!.fetchId).toBe(sink.fetches[sink.fetches.length - 1]!.id);
    // an incremental pass only sees changes: it never delists
    registry.entries.splice(0, 1);
    clock += 1000;
    expect(await run()).toMatchObject({ mode: 'incremental', delisted: 0 });
  });
});
