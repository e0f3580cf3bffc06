import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ListingContextResolver } from '../../src/processors/verdicts/listing-context.js';
import type { ListingContext } from '../../src/processors/verdicts/observation.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { serverJsonFor } from '../helpers/probe-events.js';
import { countingQueries, withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * The listing context resolver on the engine, batch after batch: an agent it has resolved before
 * reads only the listing events since its last batch, and gets the context a resolver reading the
 * whole history gives, as items move between agents, are delisted and appear.
 */

const A = 'https://a.resolver-test.dev/mcp';
const B = 'https://b.resolver-test.dev/mcp';
const C = 'https://c.resolver-test.dev/mcp';
const T = Date.UTC(2026, 8, 1);
const MIN = 60_000;

const row = (source: string, item: string, key: string, minute: number, status = 'active', doc = '') => ({
  agent_key: key,
  observed_at: new Date(T + minute * MIN),
  event_id: `${source}-${item}-${minute}`,
  source,
  item_id: item,
  status,
  endpoint_transport: source === 'smithery' ? 'sse' : 'streamable-http',
  server_json: doc,
});

describe('listing contexts, batch after batch', () => {
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;
  beforeEach(async () => {
    t = await withWarehouse('listing-resolver');
    wh = t.wh;
    await wh.insert('listing_history', [
      row('mcp-registry', 'r1', A, 10, 'active', serverJsonFor('io.github.a/r1', 'The first one, listed for A.', A)),
      row('smithery', 's1', A, 20),
      row('mcp-registry', 'r1', B, 50, 'active', serverJsonFor('io.github.a/r1', 'The first one, moved to B.', B)),
      row('mcp-registry', 'n1', A, 60, 'active', serverJsonFor('io.github.a/n1', 'A new item for A.', A)),
      row('mcp-registry', 'n1', C, 65, 'active', serverJsonFor('io.github.a/n1', 'The new item, moved to C.', C)),
      row('smithery', 's1', A, 80, 'delisted'),
      row('mcp-registry', 'n2', A, 90, 'active', serverJsonFor('io.github.a/n2', 'Another item for A.', A)),
    ]);
  });
  afterEach(async () => {
    await t?.close();
  });

  const counting = () => countingQueries<Warehouse>(wh);
  const shown = async (r: ListingContextResolver, contexts: Array<ListingContext | null>) => {
    await r.loadServerJson(contexts);
    return contexts.map((c) => c && { source: c.source, transport: c.transport, name: (c.serverJson as { name?: string } | null)?.name });
  };

  it('gives, from kept states and the events since, the contexts a reading of the whole history gives', async () => {
    const { proxy, reads } = counting();
    const kept = new ListingContextResolver(proxy, { keepStates: true, now: () => T + 30 * 86_400_000 });
    const minutes = [[5, 15], [30], [55, 62], [66, 70], [85], [95, 100], [110, 120]];
    const listed = [10, 20, 50, 60, 65, 80, 90];
    for (const [i, batch] of minutes.entries()) {
      const probes = batch.flatMap((m) => [A, B, C].map((agentKey) => ({ agentKey, observedAt: T + m * MIN })));
      reads.length = 0;
      const got = await shown(kept, await kept.resolve(probes));
      const fresh = new ListingContextResolver(wh);
      expect(got, `batch ${i}`).toEqual(await shown(fresh, await fresh.resolve(probes)));
      // The first batch reads the histories; the others only what came since (no FINAL read).
      expect(reads.filter((q) => q.includes('listing_history FINAL')).length, `batch ${i}`).toBe(i === 0 ? 1 : 0);
      // A span since the last batch with no listing event in it costs one count, not the items' read.
      const since = i === 0 ? Infinity : minutes[i - 1]!.at(-1)!;
      const changed = listed.some((m) => m > since && m <= batch.at(-1)!);
      expect(reads.filter((q) => q.includes('OR (source, item_id) IN')).length, `batch ${i}`).toBe(i > 0 && changed ? 1 : 0);
    }
    // What the agents were listed with, minute by minute, for the record.
    const at = async (m: number) => shown(kept, await kept.resolve([{ agentKey: A, observedAt: T + m * MIN }]));
    expect(await at(200)).toEqual([{ source: 'mcp-registry', transport: 'streamable-http', name: 'io.github.a/n2' }]);
  });

  it('reads the whole history for a probe older than what it keeps, for recent probes, and for every probe of a live processor', async () => {
    const { proxy, reads } = counting();
    const kept = new ListingContextResolver(proxy, { keepStates: true, now: () => T + 30 * 86_400_000 });
    await kept.resolve([{ agentKey: A, observedAt: T + 30 * MIN }]);
    reads.length = 0;
    expect(await shown(kept, await kept.resolve([{ agentKey: A, observedAt: T + 15 * MIN }]))).toEqual([
      { source: 'mcp-registry', transport: 'streamable-http', name: 'io.github.a/r1' },
    ]);
    expect(reads.filter((q) => q.includes('listing_history FINAL'))).toHaveLength(1);
    // Probes newer than the settling time keep nothing: each batch reads the history; as does a live processor's resolver.
    for (const resolver of [
      (w: Warehouse) => new ListingContextResolver(w, { keepStates: true, now: () => T + 31 * MIN }),
      (w: Warehouse) => new ListingContextResolver(w, { now: () => T + 30 * 86_400_000 }),
    ]) {
      const live = counting();
      const r = resolver(live.proxy);
      await r.resolve([{ agentKey: A, observedAt: T + 25 * MIN }]);
      await r.resolve([{ agentKey: A, observedAt: T + 30 * MIN }]);
      expect(live.reads.filter((q) => q.includes('listing_history FINAL'))).toHaveLength(2);
    }
  });
});
