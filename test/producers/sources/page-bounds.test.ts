/**
 * A listing page is bounded in items, not only in bytes: every source reader refuses a page of
 * more items than a small multiple of its page size before mapping any (a failed page with its
 * reason), refuses a page nested deeper than the cap, hands listing events to the sink in
 * bounded chunks, and records at most a set number of invalid items per pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ListingEvent } from '../../../src/events/types.js';
import { MemorySink } from '../../../src/producers/sink.js';
import { createSources } from '../../../src/producers/sources/index.js';
import { pageMaxItems, SOURCE_LIMITS } from '../../../src/producers/sources/limits.js';
import { pageOf, SOURCE_NAMES, startListingPageFixture, type ListingPageFixture } from '../../helpers/fixture-listing-page.js';
import { entry } from '../../helpers/fixture-mcp-registry.js';
import { sourceHarness } from './harness.js';

/** A MemorySink that also notes how many events each `listings` call carried. */
class ChunkSink extends MemorySink {
  readonly calls: number[] = [];
  override async listings(events: ListingEvent[]): Promise<void> {
    this.calls.push(events.length);
    await super.listings(events);
  }
}

const orgAgent = (i: number) => JSON.stringify({ id: `agent-${i}`, name: `Agent ${i}`, url: `https://a${i}.example/a2a` });

describe('listing pages are bounded in items', () => {
  let fx: ListingPageFixture;
  afterEach(() => fx?.close());

  it.each(SOURCE_NAMES)('%s: a page of 20 000 tiny items is a failed page (too_many_items), no item mapped or recorded', async (name) => {
    fx = await startListingPageFixture(pageOf(name, { count: 20_000, text: '0' }));
    const h = sourceHarness();
    const [source] = createSources([name]);
    const s = await h.run(source!, fx.url, { full: true });
    expect(h.sink.listingEvents).toHaveLength(0);
    expect(s).toMatchObject({ complete: false, errors: 1, items: 0 });
    expect(s.failure).toMatch(/^too_many_items: page lists more than \d+ items/);
    expect(h.sink.fetches[0]).toMatchObject({ ok: false, errorClass: 'too_many_items', itemCount: 0 });
  });

  it('the cap is a small multiple of the page size the source asks for: exactly at it passes, one more fails', async () => {
    const cap = pageMaxItems(100);
    expect(cap).toBe(100 * SOURCE_LIMITS.pageItemsPerRequested);
    const [source] = createSources(['a2aregistry-org']);
    fx = await startListingPageFixture(
      pageOf(
        'a2aregistry-org',
        Array.from({ length: cap }, (_, i) => orgAgent(i)),
      ),
    );
    const h = sourceHarness();
    expect(await h.run(source!, fx.url)).toMatchObject({ complete: true, items: cap, errors: 0 });
    fx.body = pageOf(
      'a2aregistry-org',
      Array.from({ length: cap + 1 }, (_, i) => orgAgent(i)),
    );
    h.clear();
    expect(await h.run(source!, fx.url)).toMatchObject({ complete: false, failure: expect.stringMatching(/^too_many_items/) });
  });

  it('a page nested deeper than the cap is a failed page (too_deep), refused before parsing', async () => {
    const depth = SOURCE_LIMITS.pageMaxDepth + 10;
    fx = await startListingPageFixture(Buffer.from(`{"servers":[${'['.repeat(depth)}${']'.repeat(depth)}]}`));
    const h = sourceHarness();
    const s = await h.run(createSources(['mcp-registry'])[0]!, fx.url, { full: true });
    expect(s).toMatchObject({ complete: false, errors: 1, items: 0 });
    expect(h.sink.fetches[0]).toMatchObject({ ok: false, errorClass: 'too_deep' });
  });

  it('listing events reach the sink in chunks of at most sinkChunkEvents, never a whole page at once', async () => {
    const servers = Array.from({ length: 300 }, (_, i) => JSON.stringify(entry(`io.github.o${i}/server`)));
    fx = await startListingPageFixture(Buffer.from(`{"servers":[${servers.join(',')}],"metadata":{}}`));
    const sink = new ChunkSink();
    const h = sourceHarness(sink);
    const s = await h.run(createSources(['mcp-registry'])[0]!, fx.url, { full: true });
    expect(s).toMatchObject({ complete: true, items: 300 });
    expect(sink.listingEvents).toHaveLength(300);
    expect(sink.calls.length, 'listings() calls for a 300-item page').toBeGreaterThanOrEqual(3);
    expect(Math.max(...sink.calls)).toBeLessThanOrEqual(SOURCE_LIMITS.sinkChunkEvents);
  });

  it('invalid items past the per-pass cap are counted (and still listed for delisting) but not recorded; the page says so', async () => {
    const items = Array.from({ length: 300 }, (_, i) => JSON.stringify({ name: `no id ${i}` }));
    fx = await startListingPageFixture(pageOf('a2aregistry-org', [...items, orgAgent(1)]));
    const h = sourceHarness();
    const s = await h.run(createSources(['a2aregistry-org'])[0]!, fx.url, { limits: { invalidItemsPerPass: 50 } });
    expect(s).toMatchObject({ complete: true, items: 301, invalid: 300, errors: 0 });
    expect(h.sink.listingEvents.filter((l) => l.status === 'invalid')).toHaveLength(50);
    expect(h.listed().map((l) => l.itemId)).toEqual(['agent-1']);
    expect(h.sink.fetches[0]).toMatchObject({ ok: true, errorClass: 'too_many_invalid', itemCount: 301, invalidItemCount: 300 });
    expect(h.sink.fetches[0]!.error).toMatch(/^250 invalid item\(s\) of this page not recorded/);
    expect(s.notes.join('\n')).toMatch(/too_many_invalid: the pass reached its cap of 50 invalid items/);
  });
});
