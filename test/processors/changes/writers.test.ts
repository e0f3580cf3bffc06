import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveVersionChanges } from '../../../src/processors/changes/version-changes.js';
import { generateSigningKeyPair } from '../../../src/conformance/index.js';
import type { AgentChangeEvent, ListingEvent } from '../../../src/events/types.js';
import { MissingJudgementsError, ProbeChangeWriter, RAW_HISTORY_DAYS } from '../../../src/processors/changes/processor.js';
import { ListingsToAgents } from '../../../src/processors/listings-to-agents.js';
import { CURRENT_CHECKER } from '../../../src/processors/verdicts/checker.js';
import { signingKeyObject } from '../../../src/processors/verdicts/batch-sign.js';
import { VerdictWriter } from '../../../src/processors/verdicts/processor.js';
import { replayFromFacts } from '../../../src/processors/verdicts/replay-facts.js';
import type { EmbeddedWarehouse } from '../../../src/warehouse/embedded.js';
import type { InsertRow, TableName } from '../../../src/warehouse/tables.js';
import type { Warehouse } from '../../../src/warehouse/warehouse.js';
import { probeEvent, probeExchange } from '../../helpers/probe-events.js';
import { countingQueries, withWarehouse, type TestWarehouse } from '../../helpers/warehouse.js';

/** The two change writers' sinks on the chdb engine, without a broker (publishing is captured). */

const keys = generateSigningKeyPair();
const sign = keys.privateKeyPem;
const KEY = 'https://mcp.writers-test.dev/mcp';
const DAY = 86_400_000;
const now = Date.now();
const up = (id: string, at: number) => probeEvent(at, id, KEY, 'mcp', [probeExchange('mcp-get', KEY, 405, '', { allow: 'POST' })]);
const down = (id: string, at: number) => probeEvent(at, id, KEY, 'mcp', [probeExchange('mcp-get', KEY, 503, '')]);

describe('change writers on the chdb engine', () => {
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;
  const published: AgentChangeEvent[] = [];
  const publish = async (c: readonly AgentChangeEvent[]) => void published.push(...c);

  beforeEach(async () => {
    t = await withWarehouse('change-writers');
    wh = t.wh;
    published.length = 0;
  });
  afterEach(async () => {
    await t?.close();
  });

  it('fails a batch whose checks and verdicts the verdict processor has not written, after a bounded wait', async () => {
    const writer = new ProbeChangeWriter(wh, CURRENT_CHECKER.version, publish, { waitMs: 300 });
    const started = Date.now();
    await expect(writer.write([up('w-1', now - DAY)])).rejects.toBeInstanceOf(MissingJudgementsError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(published).toEqual([]);
  });

  it("derives nothing from probes past the raw tables' TTL, and does not wait for their rows", async () => {
    const old = now - (RAW_HISTORY_DAYS + 1) * DAY;
    const verdicts = new VerdictWriter(wh, CURRENT_CHECKER, sign);
    const writer = new ProbeChangeWriter(wh, CURRENT_CHECKER.version, publish, { waitMs: 60_000 });
    // Judged and written (the engine drops rows past the TTL at insert, so they may be gone).
    await verdicts.write([up('w-old-1', old), down('w-old-2', old + 1000)]);
    expect(await writer.write([up('w-old-1', old), down('w-old-2', old + 1000)])).toEqual([]);
    // The same pair within the TTL makes a down change: the derivation itself is not what stopped it.
    await verdicts.write([up('w-new-1', now - DAY), down('w-new-2', now - DAY + 1000)]);
    const changes = await writer.write([up('w-new-1', now - DAY), down('w-new-2', now - DAY + 1000)]);
    expect(changes.map((c) => [c.kind, c.causeEventId, c.reasons])).toEqual([['down', 'w-new-2', ['HTTP 503']]]);
    expect(published).toEqual(changes);
  });

  it('derives from the checks and verdicts the verdict writer hands over, without reading them back, the same changes', async () => {
    const batch = [up('w-f-1', now - 2 * DAY), down('w-f-2', now - DAY), up('w-f-3', now - DAY + 1000)];
    const written = await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(batch);
    expect([...written.keys()].sort()).toEqual(['w-f-1', 'w-f-2', 'w-f-3']);
    const { proxy: counting, reads } = countingQueries<Warehouse>(wh);
    const handed = await new ProbeChangeWriter(counting, CURRENT_CHECKER.version, publish).write(batch, written);
    // Only the agents' prior states and names are read, in one statement: no query for the batch's own rows by event id.
    expect(reads.filter((q) => q.includes('event_id IN'))).toEqual([]);
    expect(reads).toHaveLength(1);
    const reread = await new ProbeChangeWriter(wh, CURRENT_CHECKER.version, async () => undefined, { waitMs: 300 }).write(batch);
    expect(handed.map((c) => [c.kind, c.causeEventId])).toEqual([
      ['down', 'w-f-2'],
      ['up', 'w-f-3'],
    ]);
    expect(handed).toEqual(reread);
  });

  it('derives a batch that continues its partition from the states the last batch left, reading no history, the same changes', async () => {
    const verdicts = new VerdictWriter(wh, CURRENT_CHECKER, sign);
    const { proxy: counting, reads } = countingQueries<Warehouse>(wh);
    const writer = new ProbeChangeWriter(counting, CURRENT_CHECKER.version, publish);
    const place = (first: number, last: number) => ({ partition: 2, firstOffset: String(first), lastOffset: String(last) });
    const b1 = [up('k-1', now - 3 * DAY), up('k-2', now - 3 * DAY + 1000)];
    expect(await writer.write(b1, await verdicts.write(b1), place(0, 1))).toEqual([]);
    expect(reads.filter((q) => q.includes('FROM checks FINAL'))).toHaveLength(1);
    // The next offsets: no history read; the change is named by one read of the agents table.
    reads.length = 0;
    const b2 = [down('k-3', now - 2 * DAY), down('k-4', now - 2 * DAY + 1000)];
    const kept = await writer.write(b2, await verdicts.write(b2), place(2, 3));
    expect(reads.filter((q) => q.includes('FROM checks FINAL'))).toEqual([]);
    expect(reads).toHaveLength(1);
    const fresh = new ProbeChangeWriter(wh, CURRENT_CHECKER.version, async () => undefined);
    expect(kept.map((c) => [c.kind, c.causeEventId])).toEqual([['down', 'k-3']]);
    expect(kept).toEqual(await fresh.derive(b2));
    // A batch that does not start where the last one ended (another member wrote the offsets between) reads the history.
    reads.length = 0;
    const b3 = [up('k-5', now - DAY)];
    expect((await writer.write(b3, await verdicts.write(b3), place(9, 9))).map((c) => [c.kind, c.causeEventId])).toEqual([['up', 'k-5']]);
    expect(reads.filter((q) => q.includes('FROM checks FINAL'))).toHaveLength(1);
  });

  it("derives a whole version's changes from its rows at once (a replay from facts), the same as its batches did", async () => {
    const A2A = 'https://a2a.writers-test.dev';
    const card = (id: string, at: number, body: string) =>
      probeEvent(at, id, A2A, 'a2a', [
        probeExchange('card', `${A2A}/.well-known/agent-card.json`, 200, body, { 'content-type': 'application/json' }),
      ]);
    const good = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
    const t0 = now - 3 * DAY;
    const probes = [
      up('v-1', t0),
      card('v-2', t0 + 1000, good),
      card('v-3', t0 + 2000, good),
      down('v-4', t0 + 3000),
      card('v-5', t0 + 4000, '{"name": 1}'),
      probeEvent(t0 + 5000, 'v-6', A2A, 'a2a', [probeExchange('card', `${A2A}/.well-known/agent-card.json`, null, '', {}, 'refused')]),
      down('v-7', t0 + 6000),
      card('v-8', t0 + 7000, good),
      up('v-9', t0 + 8000),
      card('v-10', t0 + 9000, '{"name": 1}'),
    ];
    const verdicts = new VerdictWriter(wh, CURRENT_CHECKER, sign);
    const writer = new ProbeChangeWriter(wh, CURRENT_CHECKER.version, publish);
    for (const batch of [probes.slice(0, 5), probes.slice(5)]) await writer.write(batch, await verdicts.write(batch));
    const batched = [...published].sort((a, b) => a.id.localeCompare(b.id));
    expect(new Set(batched.map((c) => c.kind))).toEqual(new Set(['down', 'up', 'verdict']));
    const atOnce: AgentChangeEvent[] = [];
    expect(await deriveVersionChanges(wh, CURRENT_CHECKER.version, async (c) => void atOnce.push(...c))).toBe(batched.length);
    expect(atOnce.sort((a, b) => a.id.localeCompare(b.id))).toEqual(batched);
    // A replay from the kept facts derives them from the facts and its judgements instead of the
    // rows: the same changes as the version's stored checks and verdicts give, once it has written them.
    const bumped = { ...CURRENT_CHECKER, version: `${CURRENT_CHECKER.version}.facts` };
    const fromFacts: AgentChangeEvent[] = [];
    const summary = await replayFromFacts(wh, bumped, signingKeyObject(sign), async (c) => void fromFacts.push(...c));
    expect(summary.changes).toBe(batched.length);
    const stored: AgentChangeEvent[] = [];
    await deriveVersionChanges(wh, bumped.version, async (c) => void stored.push(...c));
    const byId = (a: AgentChangeEvent, b: AgentChangeEvent) => a.id.localeCompare(b.id);
    expect(fromFacts.sort(byId)).toEqual(stored.sort(byId));
    const gist = (c: AgentChangeEvent) => JSON.stringify([c.causeEventId, c.kind, c.reasons]);
    expect(fromFacts.map(gist).sort()).toEqual(batched.map(gist).sort());
  });

  it('publishes listed before writing the agents row, so a crash in between publishes the same change again', async () => {
    let failAgents = true;
    // The agents insert fails once: the batch is written again, as after a crash before the commit.
    const flaky = new Proxy(wh, {
      get(target, prop, receiver) {
        if (prop === 'insert') {
          return async <T extends TableName>(table: T, rows: readonly InsertRow<T>[]) => {
            if (table === 'agents' && failAgents) {
              failAgents = false;
              throw new Error('crash before the agents insert');
            }
            return target.insert(table, rows);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Warehouse;
    const listing = (id: string, at: number, status = 'active'): ListingEvent => ({
      id,
      observedAt: at,
      runId: 'r',
      fetchId: 'f',
      source: 'mcp-registry',
      itemId: 'w',
      protocol: 'mcp',
      name: 'Writers Server',
      description: 'd',
      version: '1',
      endpointUrl: KEY,
      endpointTransport: 'streamable-http',
      cardUrl: null,
      serverJson: null,
      status,
      invalidReason: null,
      updatedAt: null,
      raw: '{}',
      rawTruncated: false,
    });
    const writer = new ListingsToAgents(flaky, { onAgentChanges: publish });
    const batch = [listing('l-a', 1000), listing('l-b', 2000)];
    await expect(writer.write(batch)).rejects.toThrow('crash before the agents insert');
    await writer.write(batch);
    await writer.write(batch); // and once more after the write: nothing new
    expect(published.map((c) => [c.kind, c.causeEventId])).toEqual([
      ['listed', 'l-a'],
      ['listed', 'l-a'],
    ]);
    expect(published[0]!.id).toBe(published[1]!.id);
    // Seen again while listed: no change; delisted: one.
    await writer.write([listing('l-c', 3000)]);
    await writer.write([listing('l-d', 4000, 'delisted')]);
    expect(published.slice(2).map((c) => [c.kind, c.causeEventId, c.summary])).toEqual([
      ['delisted', 'l-d', 'Writers Server was delisted'],
    ]);
  });
});
