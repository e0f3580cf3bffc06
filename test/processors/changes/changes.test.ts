import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKeyPair } from '../../../src/conformance/index.js';
import type { ListingEvent } from '../../../src/events/types.js';
import { agentKey } from '../../../src/identity/agent-key.js';
import type { ConsumerRunner } from '../../../src/kafka/consumer-runner.js';
import { waitUntilConsumed } from '../../../src/kafka/lag.js';
import { createEventProducer, type EventProducer } from '../../../src/kafka/producer.js';
import { createChangeLog } from '../../../src/processors/change-log.js';
import { agentChangeId } from '../../../src/processors/changes/derive.js';
import { createDedupeProcessor } from '../../../src/processors/dedupe.js';
import { CURRENT_CHECKER } from '../../../src/processors/verdicts/checker.js';
import { createVerdictProcessor } from '../../../src/processors/verdicts/processor.js';
import { KafkaObservationSink } from '../../../src/producers/kafka-sink.js';
import type { EmbeddedWarehouse } from '../../../src/warehouse/embedded.js';
import { fromDateTime64 } from '../../../src/warehouse/time.js';
import { setupKafkaTest, testLogger, uniqueGroupId, type KafkaTestContext } from '../../helpers/kafka.js';
import { probeEvent, probeExchange } from '../../helpers/probe-events.js';
import { withWarehouse, type TestWarehouse } from '../../helpers/warehouse.js';

/**
 * The changes pipeline on the real broker and the embedded engine: listings → dedupe (listed,
 * delisted), probes → verdicts → changes (down, up, verdict) → agent-changes → change log →
 * agent_changes. Each change appears once, with its deterministic id, across a restart of every
 * processor, a late older probe, a redelivery of the same probes and a replay by a new group.
 */

const keys = generateSigningKeyPair();
const sign = keys.privateKeyPem;
const CV = CURRENT_CHECKER.version;
const H = 3_600_000;
// Recent times: probes older than the raw tables' TTL make no change by design.
const T0 = Math.floor(Date.now() / H) * H - 12 * H;

const goodCard = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
const CARD_URL = 'https://weather.changes-test.dev/.well-known/agent-card.json';

const listing = (id: string, at: number, status = 'active'): ListingEvent => ({
  id,
  observedAt: at,
  runId: 'r',
  fetchId: 'f',
  source: 'a2a-registry',
  itemId: 'weather',
  protocol: 'a2a',
  name: 'Weather Agent',
  description: 'Forecasts',
  version: '1.0.0',
  endpointUrl: null,
  endpointTransport: null,
  cardUrl: CARD_URL,
  serverJson: null,
  status,
  invalidReason: null,
  updatedAt: null,
  raw: '{}',
  rawTruncated: false,
});
const KEY = agentKey('a2a', { cardUrl: CARD_URL })!;

const json = { 'content-type': 'application/json' };
const up = (id: string, at: number) => probeEvent(at, id, KEY, 'a2a', [probeExchange('card', CARD_URL, 200, goodCard, json)]);
const failing = (id: string, at: number) => probeEvent(at, id, KEY, 'a2a', [probeExchange('card', CARD_URL, 200, '{"name":"x"}', json)]);
const down = (id: string, at: number) =>
  probeEvent(at, id, KEY, 'a2a', [probeExchange('card', CARD_URL, null, '', {}, 'refused')], { errorClass: 'refused' });
const unknown = (id: string, at: number) => probeEvent(at, id, KEY, 'a2a', [probeExchange('card', CARD_URL, 429, '')]);

// up, up, down, down, unknown, up (the last one up but failing: pass → fail).
const P = {
  p1: up('c-p1', T0 + H),
  p2: up('c-p2', T0 + 2 * H),
  p3: down('c-p3', T0 + 3 * H),
  p4: down('c-p4', T0 + 4 * H),
  p5: unknown('c-p5', T0 + 5 * H),
  p6: failing('c-p6', T0 + 6 * H),
  // Observed between p1 and p2 (up), delivered after p4 (down): it changes nothing.
  late: up('c-late', T0 + 1.5 * H),
};

interface ChangeRow {
  change_id: string;
  kind: string;
  cause_event_id: string;
  checker_version: string;
  from_state: string | null;
  to_state: string | null;
  name: string;
  summary: string;
  observed_at: string;
}

describe('agent changes on the broker', () => {
  let ctx: KafkaTestContext;
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;
  let producer: EventProducer;
  let sink: KafkaObservationSink;
  const log = testLogger('changes');
  const groups = { dedupe: uniqueGroupId('dedupe'), verdicts: uniqueGroupId('verdicts'), log: uniqueGroupId('change-log') };
  let running: ConsumerRunner<unknown>[] = [];

  // The verdict processor derives the up, down and verdict changes of each batch it writes.
  const start = async (verdictsGroup = groups.verdicts) => {
    const deps = { kafka: ctx.kafka, warehouse: wh, topics: ctx.topics, logger: log, sinkRetries: 2 };
    running = [
      createDedupeProcessor({ ...deps, groupId: groups.dedupe }) as ConsumerRunner<unknown>,
      createVerdictProcessor({ ...deps, sign, groupId: verdictsGroup }) as ConsumerRunner<unknown>,
      createChangeLog({ ...deps, groupId: groups.log }) as ConsumerRunner<unknown>,
    ];
    await Promise.all(running.map((r) => r.start()));
  };
  const stop = async () => {
    await Promise.all(running.map((r) => r.stop()));
    running = [];
  };
  /** Waits until every stage has consumed everything published so far, in pipeline order. */
  const settle = async (verdictsGroup = groups.verdicts) => {
    await waitUntilConsumed(ctx.kafka, groups.dedupe, [ctx.topics.listings], 60_000);
    await waitUntilConsumed(ctx.kafka, verdictsGroup, [ctx.topics.probes], 60_000);
    await waitUntilConsumed(ctx.kafka, groups.log, [ctx.topics.agentChanges], 60_000);
  };
  const changes = () =>
    wh.query<ChangeRow>(
      `SELECT change_id, kind, cause_event_id, checker_version, from_state, to_state, name, summary, observed_at
       FROM agent_changes FINAL WHERE agent_key = {k:String} ORDER BY observed_at, kind`,
      { k: KEY },
    );

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    t = await withWarehouse('changes');
    wh = t.wh;
    producer = await createEventProducer(ctx.kafka, { logger: log });
    sink = new KafkaObservationSink(producer, ctx.topics);
  });
  afterAll(async () => {
    await stop().catch(() => undefined);
    await producer?.close();
    await t?.close();
    await ctx?.cleanup();
  });

  const expectedProbeChanges = [
    { kind: 'down', cause: P.p3.id, id: agentChangeId('down', KEY, P.p3.id), from: 'up', to: 'down' },
    { kind: 'up', cause: P.p6.id, id: agentChangeId('up', KEY, P.p6.id), from: 'down', to: 'up' },
    { kind: 'verdict', cause: P.p6.id, id: agentChangeId('verdict', KEY, P.p6.id, CV), from: 'pass', to: 'fail' },
  ];
  const expectedListed = { kind: 'listed', cause: 'l-1', id: agentChangeId('listed', KEY, 'l-1'), from: null, to: 'listed' };
  const view = (rows: ChangeRow[]) =>
    rows.map((r) => ({ kind: r.kind, cause: r.cause_event_id, id: r.change_id, from: r.from_state, to: r.to_state }));

  it('derives one down, one up and one verdict change across a restart between down and up, and a late older probe', async () => {
    await start();
    await sink.listings([listing('l-1', T0)]);
    await settle();
    await sink.probes([P.p1, P.p2, P.p3, P.p4]);
    await settle();
    await sink.probes([P.late]);
    await settle();
    expect(view(await changes())).toEqual([expectedListed, expectedProbeChanges[0]]);

    // Every processor stops and starts again (new members of the same groups) before the agent comes back.
    await stop();
    await start();
    await sink.probes([P.p5, P.p6]);
    await settle();

    const rows = await changes();
    expect(view(rows)).toEqual([expectedListed, ...expectedProbeChanges]);
    const byKind = new Map(rows.map((r) => [r.kind, r]));
    expect(byKind.get('down')).toMatchObject({
      name: 'Weather Agent',
      checker_version: '',
      summary: 'Weather Agent went down: no answer: connection refused',
    });
    expect(fromDateTime64(byKind.get('down')!.observed_at)).toBe(P.p3.observedAt);
    expect(byKind.get('up')!.summary).toBe('Weather Agent came back up');
    expect(byKind.get('verdict')).toMatchObject({ checker_version: CV });
    expect(byKind.get('verdict')!.summary).toMatch(/^Weather Agent's verdict changed from pass to fail \(\d+ rules? failing\)$/);
  });

  it('writes nothing new when the same probes are delivered again, or replayed by a new consumer group', async () => {
    const before = await changes();
    await sink.probes([P.p1, P.p2, P.p3, P.p4, P.late, P.p5, P.p6]);
    await settle();
    // A new verdicts group (offsets lost, or a replay) reads the whole topic from the start.
    const replay = uniqueGroupId('verdicts-replay');
    await stop();
    await start(replay);
    await settle(replay);
    expect(await changes()).toEqual(before);
    // The topic now holds changes more than once; whatever rows they wrote carry no new id.
    const distinct = await wh.query<{ n: number }>('SELECT toUInt32(uniqExact(change_id)) AS n FROM agent_changes');
    expect(distinct[0]!.n).toBe(before.length);
  });

  it('announces a delisting once, from the tombstone that caused it', async () => {
    await sink.listings([listing('l-2', T0 + 7 * H, 'delisted')]);
    await settle();
    await sink.listings([listing('l-2', T0 + 7 * H, 'delisted')]);
    await settle();
    const delisted = (await changes()).filter((r) => r.kind === 'delisted');
    expect(view(delisted)).toEqual([
      { kind: 'delisted', cause: 'l-2', id: agentChangeId('delisted', KEY, 'l-2'), from: 'listed', to: 'delisted' },
    ]);
  });
});
