import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listingEvent } from '../helpers/listing-events.js';
import type { ListingEvent } from '../../src/events/types.js';
import { ListingsToAgents } from '../../src/processors/listings-to-agents.js';
import { OptOutList } from '../../src/identity/opt-out.js';
import { loadSchedulableAgents } from '../../src/processors/scheduler/scheduler.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { fromDateTime64 } from '../../src/warehouse/time.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

let n = 0;
const listing = (source: string, itemId: string, endpointUrl: string, at: number, extra: Partial<ListingEvent> = {}): ListingEvent =>
  listingEvent({ id: `e${++n}`, observedAt: at, source, itemId, name: itemId, endpointUrl, ...extra });

describe('listings → agents on the chdb engine', () => {
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;
  let writer: ListingsToAgents;
  const A = 'https://a.acme-tools.dev/mcp';
  const B = 'https://b.acme-tools.dev/mcp';

  // A fresh warehouse per test: each test writes every listing it reads.
  beforeEach(async () => {
    t = await withWarehouse('l2a');
    wh = t.wh;
    writer = new ListingsToAgents(wh);
  });
  afterEach(async () => {
    await t?.close();
  });

  const agent = async (key: string) =>
    (
      await wh.query<{ sources: string[]; active: number; changed_at: string }>(
        'SELECT sources, active, changed_at FROM agents FINAL WHERE agent_key = {k:String}',
        { k: key },
      )
    )[0];

  it('drops a source from an agent when its listing moves to another key, even though the other listing is older', async () => {
    await writer.write([listing('smithery', 's1', A, 1000), listing('mcp-registry', 'r1', A, 3000)]);
    expect((await agent(A))?.sources).toEqual(['mcp-registry', 'smithery']);
    await writer.write([listing('mcp-registry', 'r1', B, 5000)]);
    expect((await agent(A))?.sources).toEqual(['smithery']);
    expect((await agent(B))?.sources).toEqual(['mcp-registry']);
    // Written twice (a crash before the commit), nothing changes.
    await writer.write([listing('mcp-registry', 'r1', B, 5000)]);
    expect((await agent(A))?.sources).toEqual(['smithery']);
  });

  it('records when the listed content changed, not when it was merely seen again', async () => {
    await writer.write([listing('smithery', 's1', A, 1000)]);
    await writer.write([listing('smithery', 's1', A, 7000)]);
    const seenAgain = await agent(A);
    expect(fromDateTime64(seenAgain!.changed_at)).toBe(1000);
    await writer.write([listing('smithery', 's1', A, 9000, { description: 'A server that now does more' })]);
    expect(fromDateTime64((await agent(A))!.changed_at)).toBe(9000);
    const [scheduled] = (await loadSchedulableAgents(wh)).filter((x) => x.agentKey === A);
    expect(scheduled?.changedAt).toBe(9000);
  });

  it("lets an owner's opt-out stop the scheduler at once, before the agent is listed again", async () => {
    await writer.write([listing('smithery', 's1', A, 1000), listing('mcp-registry', 'r1', B, 1000)]);
    const before = (await loadSchedulableAgents(wh)).map((a) => a.agentKey);
    expect(before).toContain(A);
    const optOut = new OptOutList([{ match: 'host:a.acme-tools.dev', mode: 'unchecked', reason: 'owner asked' }]);
    const after = (await loadSchedulableAgents(wh, optOut)).map((a) => a.agentKey);
    expect(after).not.toContain(A);
    expect(after).toContain(B);
  });
});
