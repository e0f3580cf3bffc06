import type { Kafka } from 'kafkajs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, UsageError } from '../../src/config.js';
import { eventCodec } from '../../src/events/codec.js';
import type { AnyEvent, DisputeEvent, ProbeRequestEvent } from '../../src/events/types.js';
import { agentId, agentKey } from '../../src/identity/agent-key.js';
import { OptOutList } from '../../src/identity/opt-out.js';
import { createEventProducer, type EventProducer } from '../../src/kafka/producer.js';
import { probeEventIdFor } from '../../src/producers/probe-worker.js';
import { dispute, DISPUTE_REASON_MAX_CHARS, prepareDispute, sendDispute } from '../../src/runtime/usecases/dispute.js';
import { disputeExitCode } from '../../src/cli/commands/dispute.js';
import { formatDispute } from '../../src/cli/format.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow, listingRow, writeJudged, type RowOverrides } from '../helpers/warehouse-rows.js';

/**
 * `veronikai dispute`'s runtime on the real broker and the embedded warehouse: the Dispute event
 * records what was disputed (the latest check and verdict of the served checker version), and a
 * ProbeRequest with reason `dispute`, in a run of its own (no daily run, no budget), asks for the
 * re-probe whose Probe event id the dispute names. Opted-out agents are recorded, never probed.
 */

const V = 'dispute-test-1';
const MCP = 'https://mcp.weather-owner.dev/mcp';
const A2A_CARD = 'https://agents.recipes-owner.dev/.well-known/agent-card.json';
const A2A = agentKey('a2a', { cardUrl: A2A_CARD })!;
const QUIET = 'https://mcp.quiet-owner.dev/mcp';
const T = Date.now() - 3600_000;

function agent(key: string, protocol: 'a2a' | 'mcp', name: string, extra: RowOverrides<'agents'> = {}) {
  return agentRow({
    agent_key: key,
    protocol,
    name,
    endpoint_url: protocol === 'mcp' ? key : `${key}/a2a`,
    card_url: protocol === 'a2a' ? A2A_CARD : '',
    first_seen: new Date(T),
    last_seen: new Date(T),
    version: T,
    ...extra,
  });
}

/** Every event on a topic now (a fresh group from the earliest offset), once `atLeast` arrived. */
async function readTopic(kafka: Kafka, topic: string, atLeast: number): Promise<Array<{ key: string; event: AnyEvent }>> {
  const out: Array<{ key: string; event: AnyEvent }> = [];
  const consumer = kafka.consumer({ groupId: uniqueGroupId('dispute-reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => void out.push({ key: String(message.key), event: eventCodec().decode(message.value) }),
  });
  try {
    await waitFor(() => out.length >= atLeast, 20_000, `${atLeast} event(s) on ${topic}`);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await consumer.disconnect();
  }
  return out;
}

describe('dispute runtime', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  let t: TestWarehouse;
  const log = testLogger('dispute');

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    producer = await createEventProducer(ctx.kafka);
  });
  afterAll(async () => {
    await producer?.close();
    await ctx?.cleanup();
  });
  beforeEach(async () => {
    t = await withWarehouse('dispute');
    await t.wh.insert('agents', [
      agent(MCP, 'mcp', 'Weather MCP'),
      agent(A2A, 'a2a', 'Recipes'),
      agent(QUIET, 'mcp', 'Quiet', { opt_out: 'unchecked', opt_out_reason: 'owner asked on 2026-11-02' }),
    ]);
    await t.wh.insert('listings', [
      listingRow({
        item_id: 'io.github.weather/w',
        agent_key: MCP,
        name: 'Weather MCP',
        endpoint_transport: 'streamable-http',
        content_hash: 'h',
        first_seen: new Date(T),
        last_event_id: 'l1',
        version: T,
      }),
    ]);
    // The result disputed: the latest check of the served (pinned) version says down, fail.
    await writeJudged(t.wh, [{ id: 'probe-before', agent: MCP, at: new Date(T), uptime: 'down', result: 'fail' }], V);
    await t.wh.insert('checker_current', [{ checker_version: V, set_at: new Date(), note: 'test' }]);
  });
  afterEach(async () => {
    await t?.close();
  });

  it('records the dispute and a re-probe request with reason dispute, outside any daily run', async () => {
    const now = Date.now();
    // The URL as the owner wrote it: another case, a default port; it canonicalises to the agent's key.
    const prepared = await prepareDispute(
      t.wh,
      { target: 'HTTPS://MCP.Weather-Owner.dev:443/mcp', reason: '  Up all week;\u0007 you said down.\n' },
      { now: () => now },
    );
    await sendDispute(producer, ctx.topics, prepared);

    const [recorded] = await readTopic(ctx.kafka, ctx.topics.disputes, 1);
    expect(recorded!.key).toBe(MCP);
    expect(recorded!.event.name).toBe('Dispute');
    const d = recorded!.event.value as DisputeEvent;
    expect(d).toEqual(prepared.dispute);
    expect(d).toMatchObject({
      observedAt: now,
      agentKey: MCP,
      agentId: agentId(MCP),
      protocol: 'mcp',
      name: 'Weather MCP',
      reason: 'Up all week; you said down.',
      checkerVersion: V,
      disputedEventId: 'probe-before',
      disputedAt: T,
      disputedUptime: 'down',
      disputedResult: 'fail',
      disputedReasons: ['MCP-001'],
      notReprobed: null,
    });

    const requests = await readTopic(ctx.kafka, ctx.topics.probeRequests, 1);
    expect(requests).toHaveLength(1);
    const req = requests[0]!.event.value as ProbeRequestEvent;
    expect(requests[0]!.key).toBe('weather-owner.dev');
    expect(req).toMatchObject({
      agentKey: MCP,
      agentId: agentId(MCP),
      protocol: 'mcp',
      site: 'weather-owner.dev',
      targetUrl: MCP,
      transport: 'streamable-http',
      reason: 'dispute',
      inSample: false,
      runId: `dispute:${d.id}`,
      observedAt: now,
    });
    // The re-probe's Probe event will carry the id the dispute names (the probe worker derives it from the request).
    expect(d.requestId).toBe(req.id);
    expect(d.probeEventId).toBe(probeEventIdFor(req.id));
    // Outside the budget: no daily run was started for it.
    const admin = ctx.kafka.admin();
    await admin.connect();
    const runs = await admin.fetchTopicOffsets(ctx.topics.runs);
    await admin.disconnect();
    expect(runs.reduce((n, o) => n + Number(o.high), 0)).toBe(0);
  }, 60_000);

  it('finds an A2A agent by its card URL or its page, records an opted-out agent without probing it, and refuses unknown agents', async () => {
    const byCard = await prepareDispute(t.wh, { target: A2A_CARD, reason: 'card is valid' });
    expect(byCard.dispute).toMatchObject({
      agentKey: A2A,
      protocol: 'a2a',
      disputedEventId: null,
      disputedResult: null,
      checkerVersion: V,
    });
    expect(byCard.request).toMatchObject({ targetUrl: A2A_CARD, site: 'recipes-owner.dev', transport: null });
    const byPage = await prepareDispute(t.wh, { target: `https://veronikai.example/agents/${agentId(A2A)}`, reason: 'card is valid' });
    expect(byPage.agent.agent_key).toBe(A2A);

    const quiet = await prepareDispute(t.wh, { target: QUIET, reason: 'we are up' });
    expect(quiet.request).toBeNull();
    expect(quiet.dispute).toMatchObject({
      requestId: null,
      probeEventId: null,
      notReprobed: 'the owner opted out of probing (unchecked: owner asked on 2026-11-02)',
    });
    // The opt-out file counts as the scheduler counts it.
    const file = new OptOutList([{ match: 'host:mcp.weather-owner.dev', mode: 'unchecked', reason: 'by mail' }]);
    expect((await prepareDispute(t.wh, { target: MCP, reason: 'x' }, { optOut: file })).request).toBeNull();

    await expect(prepareDispute(t.wh, { target: 'https://nobody.example/mcp', reason: 'x' })).rejects.toThrow(UsageError);
    await expect(prepareDispute(t.wh, { target: 'https://nobody.example/mcp', reason: 'x' })).rejects.toThrow(
      /no agent in the index has the key https:\/\/nobody\.example\/mcp/,
    );
    await expect(prepareDispute(t.wh, { target: MCP, reason: ' \n ' })).rejects.toThrow(/--reason must say/);
    await expect(prepareDispute(t.wh, { target: MCP, reason: 'x'.repeat(DISPUTE_REASON_MAX_CHARS + 1) })).rejects.toThrow(/at most 2000/);
    await expect(prepareDispute(t.wh, { target: 'mcp.weather-owner.dev', reason: 'x' })).rejects.toThrow(/needs the agent's URL/);
  }, 60_000);

  it('runs the whole command path against the configured broker, and says when no probe worker listens', async () => {
    const config = loadConfig({ dataDir: t.dir, brokers: ctx.brokers, logLevel: 'silent' });
    const outcome = await dispute(config, log, { target: MCP, reason: 'Up all week.' }, { topicPrefix: ctx.prefix });
    expect(outcome).toMatchObject({ kafkaVia: 'configured', workersListening: false });
    expect(outcome.request?.reason).toBe('dispute');
    // Recorded, but nobody probes yet: exit 1, and the output says why.
    expect(disputeExitCode(outcome)).toBe(1);
    const text = formatDispute(outcome).join('\n');
    expect(text).toContain(`dispute ${outcome.dispute.id} recorded for Weather MCP (mcp ${MCP}), agent ${agentId(MCP)}`);
    expect(text).toContain('disputed result: down, fail (MCP-001)');
    expect(text).toContain(
      `re-probe: requested now, outside the daily budget (request ${outcome.request!.id}, probe ${outcome.dispute.probeEventId}) of ${MCP}`,
    );
    expect(text).toMatch(/but: no probe worker is running/);
    const events = await readTopic(ctx.kafka, ctx.topics.disputes, 1);
    expect(events.map((e) => (e.event.value as DisputeEvent).id)).toContain(outcome.dispute.id);
    expect(disputeExitCode({ ...outcome, workersListening: true })).toBe(0);
  }, 60_000);
});
