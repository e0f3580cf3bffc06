import type { Kafka } from 'kafkajs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { AgentChangeEvent, DisputeEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import type { ConsumerRunner } from '../../src/kafka/consumer-runner.js';
import { createEventProducer, type EventProducer } from '../../src/kafka/producer.js';
import { agentChangeId } from '../../src/processors/changes/derive.js';
import { createCorrectionsProcessor } from '../../src/processors/corrections.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { probeEventIdFor } from '../../src/producers/probe-worker.js';
import { correctionsOfAgent } from '../../src/warehouse/read/corrections.js';
import type { CorrectionRow } from '../../src/warehouse/rows.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { writeJudged } from '../helpers/warehouse-rows.js';

/**
 * The corrections processor on the real broker and the embedded warehouse: a dispute is answered
 * once its re-probe (written by the verdict processor's writer from a Probe event carrying the
 * id the probe worker derives from the request) is judged; redelivered, it changes nothing; a
 * re-probe that never comes closes the dispute after the wait limit.
 */

const VERSION = 'corrections-test-1';
const AGENT = 'https://mcp.disputed-agent.dev/mcp';

/** Every AgentChange on the topic now (a fresh group from the earliest offset). */
async function readChanges(kafka: Kafka, topic: string, causes: readonly string[], atLeast: number): Promise<AgentChangeEvent[]> {
  const out: AgentChangeEvent[] = [];
  const consumer = kafka.consumer({ groupId: uniqueGroupId('corrections-reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const c = eventCodec().decodeAs('AgentChange', message.value);
      if (causes.includes(c.causeEventId)) out.push(c);
    },
  });
  try {
    await waitFor(() => out.length >= atLeast, 20_000, `${atLeast} agent change(s)`);
    // Anything beyond what was awaited shows up in this moment too (a duplicate would).
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await consumer.disconnect();
  }
  return out;
}

function disputeOf(id: string, at: number, extra: Partial<DisputeEvent> = {}): DisputeEvent {
  const requestId = `req-${id}`;
  return {
    id,
    observedAt: at,
    agentKey: AGENT,
    agentId: agentId(AGENT),
    protocol: 'mcp',
    name: 'Disputed Agent',
    reason: 'It has been up all week; your check said down.',
    checkerVersion: VERSION,
    disputedEventId: 'probe-before',
    disputedAt: at - 3600_000,
    disputedUptime: 'down',
    disputedResult: 'fail',
    disputedReasons: ['MCP-001'],
    requestId,
    probeEventId: probeEventIdFor(requestId),
    notReprobed: null,
    ...extra,
  };
}

describe('corrections processor', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  let t: TestWarehouse;
  let runner: ConsumerRunner<DisputeEvent> | null = null;
  const log = testLogger('corrections');

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    producer = await createEventProducer(ctx.kafka);
  });
  afterAll(async () => {
    await producer?.close();
    await ctx?.cleanup();
  });
  beforeEach(async () => {
    t = await withWarehouse('corrections');
  });
  afterEach(async () => {
    await runner?.stop();
    runner = null;
    await t?.close();
  });

  const start = async (opts: { maxWaitMs?: number; pollWindowMs?: number } = {}) => {
    runner = createCorrectionsProcessor({
      kafka: ctx.kafka,
      topics: ctx.topics,
      logger: log,
      warehouse: t.wh,
      groupId: uniqueGroupId('corrections'),
      checker: { ...CURRENT_CHECKER, version: VERSION },
      ...opts,
    });
    await runner.start();
  };
  const send = (d: DisputeEvent) => producer.send(ctx.topics.disputes, [{ key: d.agentKey, value: eventCodec().encode('Dispute', d) }]);
  const rows = () => t.wh.query<CorrectionRow>('SELECT * FROM corrections FINAL ORDER BY dispute_id');

  it('waits for the re-probe, then logs the correction and publishes one corrected change, also after a redelivery', async () => {
    const at = Date.now();
    const d = disputeOf('dispute-answered', at);
    await send(d);
    await start({ pollWindowMs: 300 });
    // The re-probe is not judged yet: nothing is logged, the batch waits uncommitted.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await rows()).toEqual([]);

    // The re-probe, as the verdict processor writes it from the Probe event of the request.
    await writeJudged(t.wh, [{ id: d.probeEventId!, agent: AGENT, at: new Date(at + 2000), uptime: 'up', result: 'pass' }], VERSION);
    await waitFor(async () => (await rows()).length === 1, 30_000, 'the corrections row');
    const [row] = await rows();
    expect(row).toMatchObject({
      dispute_id: d.id,
      agent_key: AGENT,
      agent_id: agentId(AGENT),
      reason: d.reason,
      outcome: 'answered',
      note: '',
      disputed_uptime: 'down',
      disputed_result: 'fail',
      disputed_reasons: ['MCP-001'],
      disputed_event_id: 'probe-before',
      request_id: d.requestId,
      reprobe_event_id: d.probeEventId,
      reprobe_uptime: 'up',
      reprobe_result: 'pass',
      reprobe_reasons: [],
      verdict_changed: 1,
      uptime_changed: 1,
      checker_version: VERSION,
      rank: 2,
      change_id: agentChangeId('corrected', AGENT, d.id, VERSION),
    });
    // The read query the agent page uses.
    expect((await correctionsOfAgent(t.wh, { agentId: agentId(AGENT) }, 10)).map((r) => r.dispute_id)).toEqual([d.id]);

    const changes = await readChanges(ctx.kafka, ctx.topics.agentChanges, [d.id], 1);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      id: agentChangeId('corrected', AGENT, d.id, VERSION),
      kind: 'corrected',
      agentKey: AGENT,
      causeEventId: d.id,
      checkerVersion: VERSION,
      observedAt: at,
      fromState: 'fail',
      toState: 'pass',
      name: 'Disputed Agent',
      summary: 'Dispute answered: re-probed (up), verdict changed from fail to pass',
    });
    expect(changes[0]!.reasons[0]).toBe(`disputed: ${d.reason}`);

    // Redelivered: the same row, and a copy of the same change (same id: it collapses downstream).
    await send(d);
    const again = await readChanges(ctx.kafka, ctx.topics.agentChanges, [d.id], 2);
    expect(again).toHaveLength(2);
    expect(again[1]).toEqual(again[0]);
    expect(await rows()).toHaveLength(1);
    expect(Number((await t.wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM corrections FINAL'))[0]!.n)).toBe(1);
  }, 90_000);

  it('closes a dispute whose re-probe never comes after the wait limit, and one without a re-probe at once', async () => {
    const at = Date.now();
    const late = disputeOf('dispute-late', at);
    const optedOut = disputeOf('dispute-opted-out', at, {
      requestId: null,
      probeEventId: null,
      notReprobed: 'the owner opted out of probing (unchecked)',
    });
    await send(late);
    await send(optedOut);
    await start({ maxWaitMs: 2_000, pollWindowMs: 300 });
    // The topics are the file's: the first test's dispute is read again here too (and closed, its re-probe being in another warehouse).
    const mine = async () => (await rows()).filter((r) => [late.id, optedOut.id].includes(r.dispute_id));
    await waitFor(async () => (await mine()).length === 2, 40_000, 'both corrections rows');
    const byId = new Map((await mine()).map((r) => [r.dispute_id, r]));
    expect(byId.get(late.id)).toMatchObject({
      outcome: 'not_completed',
      note: 'the re-probe did not complete within 2 s',
      reprobe_result: '',
      verdict_changed: 0,
      rank: 1,
      reprobe_event_id: late.probeEventId,
    });
    // Closed only once the limit had passed.
    expect(Date.parse(`${byId.get(late.id)!.closed_at.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(at + 2_000);
    expect(byId.get(optedOut.id)).toMatchObject({
      outcome: 'not_reprobed',
      note: 'the owner opted out of probing (unchecked)',
      request_id: '',
    });

    const changes = await readChanges(ctx.kafka, ctx.topics.agentChanges, [late.id, optedOut.id], 2);
    expect(changes).toHaveLength(2);
    const summaries = new Map(changes.map((c) => [c.causeEventId, c]));
    expect(summaries.get(late.id)).toMatchObject({
      summary: 'Dispute closed: the re-probe did not complete within 2 s',
      fromState: 'fail',
      toState: null,
    });
    expect(summaries.get(optedOut.id)?.summary).toBe('Dispute recorded, not re-probed: the owner opted out of probing (unchecked)');
  }, 90_000);
});
