import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConsumerRunner,
  DLQ_HEADERS,
  drop,
  ok,
  type BatchOutcome,
  type ConsumedMessage,
  type ConsumerRunnerOptions,
  type SinkItem,
} from '../../src/kafka/consumer-runner.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';

type Row = { key: string; value: string; partition: number; offset: string };

async function committed(kafka: Kafka, groupId: string, topic: string): Promise<Record<number, string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Object.fromEntries((t?.partitions ?? []).map((p) => [p.partition, p.offset]));
  } finally {
    await admin.disconnect();
  }
}

async function endOffsets(kafka: Kafka, topic: string): Promise<Record<number, string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return Object.fromEntries((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
  } finally {
    await admin.disconnect();
  }
}

/** The group's commits reach the end of every partition (an empty partition needs no commit). */
async function fullyCommitted(kafka: Kafka, groupId: string, topic: string): Promise<boolean> {
  const [c, end] = await Promise.all([committed(kafka, groupId, topic), endOffsets(kafka, topic)]);
  return Object.entries(end).every(([p, high]) => (c[Number(p)] === '-1' ? '0' : c[Number(p)]) === high);
}

const toRow = (m: ConsumedMessage): Row => ({
  key: m.key!.toString(),
  value: m.value!.toString(),
  partition: m.partition,
  offset: m.offset,
});

describe('EventProducer + ConsumerRunner', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  const runners: ConsumerRunner<unknown>[] = [];

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    producer = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
    await producer.connect();
  });
  afterAll(async () => {
    await Promise.allSettled(runners.map((r) => r.stop()));
    await producer?.close();
    await ctx?.cleanup();
  });

  function runner<T>(opts: Omit<ConsumerRunnerOptions<T>, 'kafka' | 'deadLetterTopic'> & { deadLetterTopic?: string }): ConsumerRunner<T> {
    const r = new ConsumerRunner<T>({
      kafka: ctx.kafka,
      deadLetterTopic: ctx.topics.deadLetters,
      logger: testLogger('consumer'),
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      maxWaitTimeInMs: 200,
      ...opts,
    });
    runners.push(r as ConsumerRunner<unknown>);
    return r;
  }

  async function produce(topic: string, n: number, tag: string): Promise<void> {
    await producer.send(
      topic,
      Array.from({ length: n }, (_, i) => ({ key: `${tag}-k${i % 4}`, value: Buffer.from(`${tag}-${i}`), headers: { 'x-tag': tag } })),
    );
  }

  it('round-trips keyed messages with headers; a separate group reads them all again', async () => {
    const topic = ctx.topics.probes;
    await produce(topic, 12, 'rt');

    const seen: ConsumedMessage[] = [];
    const a = runner<Row>({
      groupId: uniqueGroupId('rt-a'),
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items) => void seen.push(...items.map((i) => i.source)),
    });
    await a.start();
    await waitFor(() => seen.length >= 12, 20_000, '12 messages in group a');
    expect(seen.map((m) => m.value!.toString()).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `rt-${i}`).sort());
    expect(seen.every((m) => m.headers['x-tag']?.toString() === 'rt')).toBe(true);
    // Same key, same partition (murmur2 like the Java client).
    const partitionsByKey = new Map<string, Set<number>>();
    for (const m of seen) partitionsByKey.set(m.key!.toString(), (partitionsByKey.get(m.key!.toString()) ?? new Set()).add(m.partition));
    for (const parts of partitionsByKey.values()) expect(parts.size).toBe(1);
    await waitFor(() => fullyCommitted(ctx.kafka, a.groupId, topic), 10_000, 'group a commits');
    await a.stop();
    await a.done;

    const again: Row[] = [];
    const b = runner<Row>({
      groupId: uniqueGroupId('rt-b'),
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items) => void again.push(...items.map((i) => i.value)),
    });
    await b.start();
    await waitFor(() => again.length >= 12, 20_000, '12 messages in group b');
    await b.stop();
    expect(again).toHaveLength(12);
  });

  it('commits a batch only after the sink wrote it', async () => {
    const topic = ctx.topics.listings;
    await produce(topic, 6, 'order');
    const groupId = uniqueGroupId('order');
    const events: string[] = [];
    const violations: string[] = [];
    const r = runner<Row>({
      groupId,
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items, batch) => {
        events.push(`sink ${batch.partition}:${items.length}`);
      },
      hooks: {
        afterSinkBeforeCommit: async (o: BatchOutcome) => {
          events.push(`before-commit ${o.partition}`);
          // The sink has written, and nothing of this batch is committed yet.
          const c = await committed(ctx.kafka, groupId, topic);
          if (BigInt(c[o.partition] ?? '-1') >= BigInt(o.commitOffset)) violations.push(`committed before the sink: ${JSON.stringify(o)}`);
        },
        afterCommit: async (o: BatchOutcome) => {
          events.push(`committed ${o.partition}`);
          const c = await committed(ctx.kafka, groupId, topic);
          if (c[o.partition] !== o.commitOffset) violations.push(`commit ${o.commitOffset} not visible: ${c[o.partition]}`);
        },
      },
    });
    await r.start();
    await waitFor(() => r.stats.ok >= 6, 20_000, '6 messages');
    await r.stop();
    await r.done;
    expect(violations).toEqual([]);
    // Per batch: sink, then the hook, then the commit, never interleaved.
    for (let i = 0; i < events.length; i += 3) {
      expect(events[i]).toMatch(/^sink (\d+):/);
      const p = /^sink (\d+):/.exec(events[i]!)![1];
      expect(events.slice(i + 1, i + 3)).toEqual([`before-commit ${p}`, `committed ${p}`]);
    }
    expect(await fullyCommitted(ctx.kafka, groupId, topic)).toBe(true);
  });

  it('a crash between the sink write and the commit leaves the batch uncommitted; a restart reads it again', async () => {
    const topic = ctx.topics.runs; // one partition
    await produce(topic, 5, 'crash');
    const groupId = uniqueGroupId('crash');
    const firstSink: Row[] = [];
    const crashing = runner<Row>({
      groupId,
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items) => void firstSink.push(...items.map((i) => i.value)),
      hooks: {
        afterSinkBeforeCommit: () => {
          throw new Error('simulated crash after the sink');
        },
      },
    });
    await crashing.start();
    await expect(crashing.done).rejects.toThrow('simulated crash after the sink');
    expect(firstSink.length).toBeGreaterThan(0);
    expect(crashing.stats.commits).toBe(0);
    expect(await committed(ctx.kafka, groupId, topic)).toEqual({ 0: '-1' });

    const secondSink: Row[] = [];
    const restarted = runner<Row>({
      groupId,
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items) => void secondSink.push(...items.map((i) => i.value)),
    });
    await restarted.start();
    await waitFor(() => secondSink.length >= 5, 20_000, 'the restarted consumer to read all 5');
    await restarted.stop();
    // Everything the crashed run wrote is delivered again (the sink must be idempotent).
    expect(secondSink.map((r) => r.value)).toEqual(expect.arrayContaining(firstSink.map((r) => r.value)));
    expect(await fullyCommitted(ctx.kafka, groupId, topic)).toBe(true);
  });

  it('a sink that keeps failing stops the runner uncommitted; a restarted consumer sees the messages again', async () => {
    const topic = ctx.topics.canary; // one partition
    await produce(topic, 4, 'sinkfail');
    const groupId = uniqueGroupId('sinkfail');
    let attempts = 0;
    const failing = runner<Row>({
      groupId,
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async () => {
        attempts++;
        throw new Error('warehouse unavailable');
      },
      sinkRetries: 2,
      sinkRetryBackoffMs: 20,
    });
    await failing.start();
    await expect(failing.done).rejects.toThrow(/sink failed .* after 3 attempt\(s\): warehouse unavailable/);
    expect(attempts).toBe(3);
    expect(await committed(ctx.kafka, groupId, topic)).toEqual({ 0: '-1' });

    const rows: Row[] = [];
    const restarted = runner<Row>({
      groupId,
      topics: [topic],
      handler: (m) => ok(toRow(m)),
      sink: async (items) => void rows.push(...items.map((i) => i.value)),
    });
    await restarted.start();
    await waitFor(() => rows.length >= 4, 20_000, 'the 4 messages after the restart');
    await restarted.stop();
    expect(rows.map((r) => r.value).sort()).toEqual(['sinkfail-0', 'sinkfail-1', 'sinkfail-2', 'sinkfail-3']);
  });

  it('a handler exception sends that message to dead letters with its reason, and the run goes on', async () => {
    const topic = ctx.topics.sourceFetches;
    await produce(topic, 6, 'dlq');
    const groupId = uniqueGroupId('dlq');
    const sunk: SinkItem<string>[] = [];
    const r = runner<string>({
      groupId,
      topics: [topic],
      handler: (m) => {
        const v = m.value!.toString();
        if (v === 'dlq-2') throw new Error('cannot decode dlq-2');
        if (v === 'dlq-4') return drop('not interesting');
        return ok(v);
      },
      sink: async (items) => void sunk.push(...items),
    });
    await r.start();
    await waitFor(() => r.stats.ok + r.stats.dlq + r.stats.dropped >= 6, 20_000, '6 messages handled');

    // The run goes on: later messages are handled too.
    await produce(topic, 2, 'later');
    await waitFor(() => r.stats.ok >= 6, 20_000, 'later messages');
    expect(sunk.map((s) => s.value).sort()).toEqual(['dlq-0', 'dlq-1', 'dlq-3', 'dlq-5', 'later-0', 'later-1']);
    expect(r.stats).toMatchObject({ dlq: 1, dropped: 1 });
    await r.stop();
    await r.done;

    const dead: ConsumedMessage[] = [];
    const reader = runner<ConsumedMessage>({
      groupId: uniqueGroupId('dlq-reader'),
      topics: [ctx.topics.deadLetters],
      handler: (m) => ok(m),
      sink: async (items) => void dead.push(...items.map((i) => i.value)),
    });
    await reader.start();
    await waitFor(() => dead.length >= 1, 20_000, 'the dead letter');
    await reader.stop();
    expect(dead).toHaveLength(1);
    const d = dead[0]!;
    const h = (name: string): string | undefined => d.headers[name]?.toString();
    expect(d.key!.toString()).toBe(topic);
    expect(d.value!.toString()).toBe('dlq-2');
    expect(h(DLQ_HEADERS.reason)).toBe('handler threw: cannot decode dlq-2');
    expect(h(DLQ_HEADERS.error)).toBe('Error: cannot decode dlq-2');
    expect(h(DLQ_HEADERS.originTopic)).toBe(topic);
    expect(h(DLQ_HEADERS.originKey)).toMatch(/^dlq-k\d$/);
    expect(h(DLQ_HEADERS.groupId)).toBe(groupId);
    expect(h('x-tag')).toBe('dlq'); // the original headers travel along
    const originPartition = Number(h(DLQ_HEADERS.originPartition));
    const originOffset = h(DLQ_HEADERS.originOffset);
    expect(Number.isInteger(originPartition)).toBe(true);
    expect(originOffset).toMatch(/^\d+$/);
  });
});
