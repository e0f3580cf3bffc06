import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { MemorySink } from '../../../src/producers/sink.js';
import { createPageFetcher } from '../../../src/producers/sources/http-page-fetcher.js';
import { createMcpRegistrySource, FULL_RESYNC_EVERY_MS } from '../../../src/producers/sources/mcp-registry.js';
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
