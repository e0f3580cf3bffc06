/**
 * The webhook deliverer over the real broker and the real embedded warehouse, with a receiver on
 * loopback: AgentChange events produced to agent-changes come out as signed POSTs; every outcome
 * reaches webhook_deliveries through its processor; what was not delivered is a dead letter.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { AgentChangeEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import { DLQ_HEADERS, type ConsumerRunner } from '../../src/kafka/consumer-runner.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { createWebhookDeliveriesProcessor } from '../../src/processors/webhook-deliveries.js';
import { WebhookDeliverer, WEBHOOK_DLQ_HEADERS, type WebhookDelivererOptions } from '../../src/webhooks/deliverer.js';
import { deliveryId, verifySignature } from '../../src/webhooks/signature.js';
import { parseSubscriptions } from '../../src/webhooks/subscriptions.js';
import type { WebhookDeliveryRow } from '../../src/warehouse/rows.js';
import { startHttpServer, type TestServer } from '../helpers/hostile-servers.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow } from '../helpers/warehouse-rows.js';

const codec = eventCodec();
const SECRET = 'receiver-secret-0123456789';
const ATTEMPTS = 3;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let seq = 0;
function change(kind: AgentChangeEvent['kind'], key: string, extra: Partial<AgentChangeEvent> = {}): AgentChangeEvent {
  seq++;
  return {
    id: `${String(seq).padStart(4, '0')}${Math.random().toString(16).slice(2, 10)}`.padEnd(32, '0'),
    observedAt: Date.now() - 60_000,
    kind,
    agentKey: key,
    agentId: agentId(key),
    protocol: 'mcp',
    name: `Agent ${key}`,
    checkerVersion: '',
    causeEventId: `probe-${seq}`,
    fromState: kind === 'down' ? 'up' : 'down',
    toState: kind,
    summary: `${key} went ${kind}`,
    reasons: kind === 'down' ? ['timeout'] : [],
    ...extra,
  };
}

describe('webhook deliverer over Kafka', () => {
  let ctx: KafkaTestContext;
  let t: TestWarehouse;
  let producer: EventProducer;
  let receiver: TestServer;
  let recorder: ConsumerRunner<unknown>;
  let dlqReader: Consumer;
  const deliverers: WebhookDeliverer[] = [];
  const received: Received[] = [];
  const deadLetters: Array<{ value: Buffer; headers: Record<string, string> }> = [];
  /** Answers of /flaky by delivery id: fails twice, then 200. */
  const flaky = new Map<string, number>();

  const key = (name: string) => `https://${name}.webhooks.test/mcp`;
  const subscriptions = (base: string) =>
    parseSubscriptions({
      subscriptions: [
        { id: 'ok', url: `${base}/ok`, secret: SECRET, agents: [key('ok'), key('dup'), key('restart')] },
        { id: 'flaky', url: `${base}/flaky`, secret: SECRET, agents: [agentId(key('flaky'))] },
        { id: 'fail', url: `${base}/fail`, secret: SECRET, agents: [key('fail')] },
        { id: 'downs', url: `${base}/downs`, secret: SECRET, kinds: ['down'], agents: [key('filtered')] },
        { id: 'nobody', url: `${base}/nobody`, secret: SECRET, agents: [key('someone-else')] },
        { id: 'stale', url: `${base}/stale`, secret: SECRET, agents: [key('stale'), key('hidden')] },
      ],
    });

  const startDeliverer = async (extra: Partial<WebhookDelivererOptions> = {}): Promise<WebhookDeliverer> => {
    const d = new WebhookDeliverer({
      kafka: ctx.kafka,
      topics: ctx.topics,
      warehouse: t.wh,
      subscriptions: subscriptions(receiver.url),
      contact: 'hooks@veronikai.test',
      maxAgeMs: 3_600_000,
      producer,
      groupId: uniqueGroupId('webhooks'),
      logger: testLogger('webhooks'),
      allowLoopback: true,
      tuning: { maxAttempts: ATTEMPTS, retryBaseMs: 20, retryMaxMs: 50, timeoutMs: 2_000 },
      sessionTimeoutMs: 30_000,
      maxWaitTimeInMs: 200,
      ...extra,
    });
    await d.start();
    deliverers.push(d);
    return d;
  };

  const publish = (...changes: AgentChangeEvent[]) =>
    producer.send(
      ctx.topics.agentChanges,
      changes.map((c) => ({ key: c.agentKey, value: codec.encode('AgentChange', c) })),
    );

  const rows = (changeId: string) =>
    t.wh.query<WebhookDeliveryRow>('SELECT * FROM webhook_deliveries FINAL WHERE change_id = {c:String} ORDER BY subscription_id', {
      c: changeId,
    });
  const rowOf = async (changeId: string, subscription: string): Promise<WebhookDeliveryRow> => {
    let row: WebhookDeliveryRow | undefined;
    await waitFor(
      async () => (row = (await rows(changeId)).find((r) => r.subscription_id === subscription)) !== undefined,
      30_000,
      `the ${subscription} row of ${changeId}`,
    );
    return row!;
  };
  const at = (path: string, changeId: string) =>
    received.filter((r) => r.path === path && (JSON.parse(r.body) as { change: { id: string } }).change.id === changeId);

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    t = await withWarehouse('webhooks');
    producer = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
    await producer.connect();
    receiver = await startHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = {
          path: new URL(req.url ?? '/', 'http://x').pathname,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(r);
        const id = String(req.headers['x-veronikai-delivery']);
        let status = 200;
        if (r.path === '/fail') status = 500;
        if (r.path === '/flaky') {
          const n = (flaky.get(id) ?? 0) + 1;
          flaky.set(id, n);
          status = n <= 2 ? 503 : 200;
        }
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status === 200 ? 'thanks' : 'not now');
      });
    });
    recorder = createWebhookDeliveriesProcessor({
      kafka: ctx.kafka,
      topics: ctx.topics,
      warehouse: t.wh,
      logger: testLogger('recorder'),
      groupId: uniqueGroupId('recorder'),
    }) as ConsumerRunner<unknown>;
    await recorder.start();
    dlqReader = ctx.kafka.consumer({ groupId: uniqueGroupId('dlq'), maxWaitTimeInMs: 200 });
    await dlqReader.connect();
    await dlqReader.subscribe({ topics: [ctx.topics.deadLetters], fromBeginning: true });
    await dlqReader.run({
      eachMessage: async ({ message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
        deadLetters.push({ value: message.value ?? Buffer.alloc(0), headers });
      },
    });
    await startDeliverer();
  }, 120_000);

  afterAll(async () => {
    for (const d of deliverers) await d.stop().catch(() => undefined);
    await recorder?.stop().catch(() => undefined);
    await dlqReader?.disconnect().catch(() => undefined);
    await producer?.close();
    await receiver?.close();
    await t?.close();
    await ctx?.cleanup();
  });

  it('delivers a change once, signed, with its delivery id, and records it', async () => {
    const c = change('down', key('ok'));
    await publish(c);
    const row = await rowOf(c.id, 'ok');
    const got = at('/ok', c.id);
    expect(got).toHaveLength(1);
    const r = got[0]!;
    const id = deliveryId('ok', c.id);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toMatch(/^VeronikAI-webhooks\/\S+ \(\+mailto:hooks@veronikai\.test;/);
    expect(r.headers['x-veronikai-delivery']).toBe(id);
    expect(r.headers['x-veronikai-event']).toBe('down');
    const ts = Number(r.headers['x-veronikai-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(60);
    expect(
      verifySignature(
        SECRET,
        { timestamp: r.headers['x-veronikai-timestamp'] as string, signature: r.headers['x-veronikai-signature'] as string },
        r.body,
      ),
    ).toBe(true);
    expect(
      verifySignature(
        'another-secret-0123456789',
        { timestamp: r.headers['x-veronikai-timestamp'] as string, signature: r.headers['x-veronikai-signature'] as string },
        r.body,
      ),
    ).toBe(false);
    expect(JSON.parse(r.body)).toEqual({
      id,
      change: {
        id: c.id,
        kind: 'down',
        observedAt: new Date(c.observedAt).toISOString(),
        agentKey: c.agentKey,
        agentId: c.agentId,
        protocol: 'mcp',
        name: c.name,
        checkerVersion: '',
        causeEventId: c.causeEventId,
        fromState: 'up',
        toState: 'down',
        summary: c.summary,
        reasons: ['timeout'],
      },
      agent: { id: c.agentId },
    });
    expect(row).toMatchObject({
      delivery_id: id,
      status: 'delivered',
      attempts: 1,
      last_status: 200,
      kind: 'down',
      agent_id: c.agentId,
      error_class: '',
      error: '',
    });
  });

  it('retries a receiver that fails twice, and delivers once on the third attempt', async () => {
    const c = change('up', key('flaky'));
    await publish(c);
    const row = await rowOf(c.id, 'flaky');
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200 });
    const got = at('/flaky', c.id);
    expect(got).toHaveLength(3);
    // One delivery id for all three; each attempt signed with its own timestamp.
    expect(new Set(got.map((g) => g.headers['x-veronikai-delivery']))).toEqual(new Set([deliveryId('flaky', c.id)]));
    for (const g of got)
      expect(
        verifySignature(
          SECRET,
          { timestamp: g.headers['x-veronikai-timestamp'] as string, signature: g.headers['x-veronikai-signature'] as string },
          g.body,
        ),
      ).toBe(true);
  });

  it('a receiver that always fails ends in a dead letter and a dead row', async () => {
    const c = change('down', key('fail'));
    await publish(c);
    const row = await rowOf(c.id, 'fail');
    expect(row).toMatchObject({ status: 'dead', attempts: ATTEMPTS, last_status: 500, error_class: 'http_status' });
    expect(row.error).toMatch(/answered 500 \(after 3 attempts\)/);
    expect(at('/fail', c.id)).toHaveLength(ATTEMPTS);
    await waitFor(
      () => deadLetters.some((d) => d.headers[WEBHOOK_DLQ_HEADERS.delivery] === deliveryId('fail', c.id)),
      20_000,
      'the dead letter',
    );
    const dl = deadLetters.find((d) => d.headers[WEBHOOK_DLQ_HEADERS.delivery] === deliveryId('fail', c.id))!;
    expect(dl.headers[DLQ_HEADERS.reason]).toMatch(/^webhook dead for subscription fail: the receiver answered 500/);
    expect(dl.headers[DLQ_HEADERS.originTopic]).toBe(ctx.topics.agentChanges);
    expect(dl.headers[WEBHOOK_DLQ_HEADERS.subscription]).toBe('fail');
    // The dead letter is the change as consumed: replayable.
    expect(codec.decodeAs('AgentChange', dl.value)).toEqual(c);
  });

  it('a change published twice is delivered once', async () => {
    const c = change('down', key('dup'));
    await publish(c, c);
    await rowOf(c.id, 'ok');
    // A duplicate that comes later, after the first was recorded, is skipped too.
    await publish(c);
    const marker = change('up', key('dup'));
    await publish(marker);
    await rowOf(marker.id, 'ok');
    expect(at('/ok', c.id)).toHaveLength(1);
  });

  it('a restarted deliverer does not deliver again what was delivered', async () => {
    const c = change('down', key('restart'));
    await publish(c);
    await rowOf(c.id, 'ok');
    expect(at('/ok', c.id)).toHaveLength(1);
    for (const d of deliverers.splice(0)) await d.stop();
    // The deriver publishes the change again (a crash), and a new deliverer (new memory, and a new
    // group: it reads the whole topic again) starts: the deliveries table says it is done.
    await publish(c);
    await startDeliverer();
    const marker = change('up', key('restart'));
    await publish(marker);
    await rowOf(marker.id, 'ok');
    expect(at('/ok', c.id)).toHaveLength(1);
    // Nor anything else delivered before the restart.
    expect(received.filter((r) => r.path === '/ok')).toHaveLength(
      new Set(received.filter((r) => r.path === '/ok').map((r) => r.headers['x-veronikai-delivery'])).size,
    );
  });

  it('filters by kind and agent', async () => {
    const verdict = change('verdict', key('filtered'));
    const down = change('down', key('filtered'));
    await publish(verdict, down);
    await rowOf(down.id, 'downs');
    expect(at('/downs', down.id)).toHaveLength(1);
    expect(at('/downs', verdict.id)).toHaveLength(0);
    expect(await rows(verdict.id)).toEqual([]);
    // Only the subscriptions of its agent heard about it.
    expect((await rows(down.id)).map((r) => r.subscription_id)).toEqual(['downs']);
    expect(received.filter((r) => r.path === '/nobody')).toHaveLength(0);
  });

  it('does not send a change older than the age limit, or one of a hidden agent', async () => {
    const old = change('down', key('stale'), { observedAt: Date.now() - 2 * 3_600_000 });
    await t.wh.insert('agents', [agentRow({ agent_key: key('hidden'), name: 'Hidden', opt_out: 'hidden' })]);
    const hidden = change('down', key('hidden'));
    await publish(old, hidden);
    expect(await rowOf(old.id, 'stale')).toMatchObject({ status: 'stale', attempts: 0, last_status: null });
    expect(await rowOf(hidden.id, 'stale')).toMatchObject({ status: 'hidden', attempts: 0 });
    expect(received.filter((r) => r.path === '/stale')).toHaveLength(0);
  });

  it('refuses a loopback target without the allowance: recorded, dead-lettered, never sent', async () => {
    const guarded = await startDeliverer({
      allowLoopback: false,
      subscriptions: parseSubscriptions({
        subscriptions: [{ id: 'guarded', url: `${receiver.url}/guarded`, secret: SECRET, agents: [key('guarded')] }],
      }),
    });
    const c = change('down', key('guarded'));
    await publish(c);
    const row = await rowOf(c.id, 'guarded');
    expect(row).toMatchObject({ status: 'refused', attempts: 0, last_status: null, error_class: 'blocked_address' });
    expect(row.error).toMatch(/refused 127\.0\.0\.1: loopback address/);
    await waitFor(
      () => deadLetters.some((d) => d.headers[WEBHOOK_DLQ_HEADERS.delivery] === deliveryId('guarded', c.id)),
      20_000,
      'the dead letter',
    );
    const dl = deadLetters.find((d) => d.headers[WEBHOOK_DLQ_HEADERS.delivery] === deliveryId('guarded', c.id))!;
    expect(dl.headers[DLQ_HEADERS.reason]).toMatch(/^webhook refused for subscription guarded: refused 127\.0\.0\.1: loopback address/);
    expect(dl.headers[DLQ_HEADERS.groupId]).toBe(guarded.runner.groupId);
    expect(received.filter((r) => r.path === '/guarded')).toHaveLength(0);
  });
});
