/**
 * The probe worker end to end over the real broker: ProbeRequests for real MCP and A2A SDK peers
 * on loopback go in on probe-requests; Probe events come back on the probes topic, read by a
 * separate consumer; offsets are committed only after the events are acknowledged.
 */
import { createHash } from 'node:crypto';
import type { Admin, Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { CanaryEvent, DocumentEvent, ProbeEvent } from '../../src/events/types.js';
import type { BatchOutcome } from '../../src/kafka/consumer-runner.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { Canary } from '../../src/producers/canary.js';
import { MAX_URL_CHARS } from '../../src/http/limits.js';
import { ProbeEngine } from '../../src/producers/probe/probe-agent.js';
import { ProbeWorker, canaryEventSink, probeEventIdFor } from '../../src/producers/probe-worker.js';
import { startHttpServer, type TestServer } from '../helpers/hostile-servers.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { startA2AAgent, startMcpStreamableStateless, type Peer } from '../helpers/peers.js';
import { probeRequest as request } from '../helpers/probe-requests.js';

const codec = eventCodec();

async function readAll<T>(ctx: KafkaTestContext, topic: string, decode: (v: Buffer) => T, into: T[]): Promise<Consumer> {
  const consumer = ctx.kafka.consumer({ groupId: uniqueGroupId('reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value) into.push(decode(message.value));
    },
  });
  return consumer;
}

describe('probe worker over Kafka', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  let worker: ProbeWorker;
  let mcp: Peer;
  let a2a: Peer;
  let disallowing: TestServer;
  let canaryTarget: TestServer;
  const readers: Consumer[] = [];
  let admin: Admin;
  const outcomes: Array<{ outcome: BatchOutcome; probesOnTopic: number }> = [];

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    producer = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
    await producer.connect();
    mcp = await startMcpStreamableStateless();
    a2a = await startA2AAgent({ legacy: true, wellKnown: false });
    disallowing = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.url === '/robots.txt' ? 'User-agent: veronikai\nDisallow: /\n' : 'should not be asked');
    });
    canaryTarget = await startHttpServer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const canary = new Canary({
      targets: [`${canaryTarget.url}/`],
      contact: 'probes@veronikai.test',
      allowLoopback: true,
      onEvent: canaryEventSink(producer, ctx.topics),
    });
    const engine = new ProbeEngine({
      contact: 'probes@veronikai.test',
      allowLoopback: true,
      timeoutMs: 2000,
      bodyWindowMs: 300,
      maxRetries: 0,
      canary,
    });
    admin = ctx.kafka.admin();
    await admin.connect();
    worker = new ProbeWorker({
      kafka: ctx.kafka,
      topics: ctx.topics,
      engine,
      producer,
      groupId: uniqueGroupId('probe-worker'),
      logger: testLogger('probe-worker'),
      sessionTimeoutMs: 30_000,
      maxWaitTimeInMs: 200,
      // Room for one of the large cards below: the batch holds it for its sink, and the others,
      // past the budget, are produced by their own steps. Both paths must deliver every event.
      heldBytes: 700 * 1024,
      hooks: {
        // Between the sink and the commit: the batch's Probe events must already be on the topic.
        afterSinkBeforeCommit: async (outcome) => {
          const offsets = await admin.fetchTopicOffsets(ctx.topics.probes);
          outcomes.push({ outcome, probesOnTopic: offsets.reduce((n, p) => n + Number(p.high), 0) });
        },
      },
    });
    await worker.start();
  });

  afterAll(async () => {
    await Promise.allSettled(readers.map((r) => r.disconnect()));
    await worker?.stop().catch(() => undefined);
    await admin?.disconnect().catch(() => undefined);
    await producer?.close();
    await Promise.allSettled([mcp?.close(), a2a?.close(), disallowing?.close(), canaryTarget?.close()]);
    await ctx?.cleanup();
  });

  it('probes MCP and A2A peers and emits Probe events with every exchange, robots and canary', async () => {
    const runId = 'run-e2e';
    const reqs = [request('mcp', mcp.url, runId), request('a2a', a2a.url, runId), request('a2a', `${disallowing.url}/agent.json`, runId)];
    await producer.send(ctx.topics.probeRequests, [
      ...reqs.map((r) => ({ key: r.site, value: codec.encode('ProbeRequest', r) })),
      { key: 'bad', value: Buffer.from('not avro at all') },
    ]);

    const probes: ProbeEvent[] = [];
    const canaries: CanaryEvent[] = [];
    const documents: DocumentEvent[] = [];
    readers.push(await readAll(ctx, ctx.topics.probes, (v) => codec.decodeAs('Probe', v), probes));
    readers.push(await readAll(ctx, ctx.topics.canary, (v) => codec.decodeAs('Canary', v), canaries));
    readers.push(await readAll(ctx, ctx.topics.documents, (v) => codec.decodeAs('Document', v), documents));
    await waitFor(() => probes.length >= 3, 30_000, 'three probe events');

    const byReq = new Map(probes.map((p) => [p.requestId, p]));
    const m = byReq.get(reqs[0]!.id)!;
    expect(m).toMatchObject({
      id: probeEventIdFor(reqs[0]!.id),
      runId,
      agentKey: reqs[0]!.agentKey,
      protocol: 'mcp',
      targetUrl: mcp.url,
      transport: 'streamable-http',
      inSample: true,
      robots: 'allowed',
      canary: 'ok',
      errorClass: null,
    });
    expect(m.exchanges.map((e) => [e.role, e.status])).toEqual([['mcp-get', 200]]);
    expect(m.exchanges[0]!.headers['content-type']).toBe('text/event-stream');

    const a = byReq.get(reqs[1]!.id)!;
    expect(a).toMatchObject({ protocol: 'a2a', robots: 'allowed', canary: 'ok', errorClass: null });
    expect(a.exchanges.map((e) => [e.role, e.status])).toEqual([
      ['card', 404],
      ['well-known', 404],
      ['legacy', 200],
    ]);
    // The card is not on the probe event: the event names it by hash, the documents topic holds it.
    expect(a.exchanges[2]).toMatchObject({ bodyKept: 'document' });
    expect(a.exchanges.every((e) => e.body.length === 0)).toBe(true);
    await waitFor(() => documents.some((d) => d.sha256 === a.exchanges[2]!.bodySha256), 10_000, 'the card on the documents topic');
    const card = documents.find((d) => d.sha256 === a.exchanges[2]!.bodySha256)!;
    expect(JSON.parse(card.body.toString()).name).toBe('VeronikAI Test Agent');
    expect(createHash('sha256').update(card.body).digest('hex')).toBe(card.sha256);

    const d = byReq.get(reqs[2]!.id)!;
    expect(d).toMatchObject({ robots: 'disallowed', errorClass: 'robots_disallowed', exchanges: [] });
    expect(disallowing.paths).toEqual(['/robots.txt']);

    // The canary was checked before the run, and its event went to the canary topic.
    await waitFor(() => canaries.length >= 1, 10_000, 'a canary event');
    expect(canaries[0]).toMatchObject({ target: `${canaryTarget.url}/`, ok: true, status: 204, runId });

    // Committed only after the batch's probe events were acknowledged; the bad message went to dead letters.
    await waitFor(() => outcomes.reduce((n, o) => n + o.outcome.ok + o.outcome.dlq, 0) >= 4, 10_000, 'commits');
    let seen = 0;
    for (const o of outcomes) {
      seen += o.outcome.ok;
      expect(o.probesOnTopic).toBeGreaterThanOrEqual(seen);
    }
    expect(outcomes.reduce((n, o) => n + o.outcome.dlq, 0)).toBe(1);
    expect(probes).toHaveLength(3);
  });

  it('a batch of large cards on one site (one request partition) reaches the probes topic: no produce call nears 1 MB, and results past the held-bytes budget are sent at once', async () => {
    // Five agents on one site, each with a ~500 KB card: one consumer batch, and at least three of
    // the five Probe events share one of the two probes partitions (1.5 MB in one record batch
    // if sent in one call; Kafka's default limit is 1 MB).
    const card = JSON.stringify({ name: 'Large Card Agent', description: 'd'.repeat(500 * 1024) });
    const big = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(card);
    });
    try {
      const runId = 'run-large';
      const reqs = Array.from({ length: 5 }, (_, i) => request('a2a', `${big.url}/agents/${i}/card.json`, runId));
      await producer.send(
        ctx.topics.probeRequests,
        reqs.map((r) => ({ key: r.site, value: codec.encode('ProbeRequest', r) })),
      );
      const probes: ProbeEvent[] = [];
      const documents: DocumentEvent[] = [];
      readers.push(await readAll(ctx, ctx.topics.probes, (v) => codec.decodeAs('Probe', v), probes));
      readers.push(await readAll(ctx, ctx.topics.documents, (v) => codec.decodeAs('Document', v), documents));
      const ids = new Set(reqs.map((r) => r.id));
      await waitFor(() => probes.filter((p) => ids.has(p.requestId ?? '')).length >= 5, 25_000, 'five large probe events');
      const hash = createHash('sha256').update(card).digest('hex');
      for (const p of probes.filter((x) => ids.has(x.requestId ?? ''))) {
        expect(p.exchanges.map((e) => [e.role, e.status])).toEqual([['card', 200]]);
        expect(p.exchanges[0]).toMatchObject({ bodyKept: 'document', bodySha256: hash, bodyBytes: Buffer.byteLength(card) });
        expect(p.exchanges[0]!.body.length).toBe(0);
      }
      // The ~500 KB card reached the documents topic whole, under the same hash.
      await waitFor(() => documents.some((d) => d.sha256 === hash), 10_000, 'the large card on the documents topic');
      expect(documents.find((d) => d.sha256 === hash)!.body.toString()).toBe(card);
    } finally {
      await big.close();
    }
  });

  it('a probe request with an over-long target URL goes to dead letters, and the worker goes on', async () => {
    const before = outcomes.reduce((n, o) => n + o.outcome.dlq, 0);
    const r = request('mcp', `${mcp.url}?${'q'.repeat(MAX_URL_CHARS)}`, 'run-long');
    await producer.send(ctx.topics.probeRequests, [{ key: r.site, value: codec.encode('ProbeRequest', r) }]);
    await waitFor(() => outcomes.reduce((n, o) => n + o.outcome.dlq, 0) > before, 20_000, 'a dead letter');
  });
});
