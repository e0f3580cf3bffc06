/**
 * A consumer's session while it works and when it stops: heartbeats go out all through a
 * handler that takes longer than the session timeout (so the session can stay short), and a
 * runner with `abortOnStop` gives its batch up at once, uncommitted, and leaves the group, so
 * the next member gets the partition and reads the batch again without waiting for a session.
 */
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumerRunner, ok, type ConsumerRunnerOptions } from '../../src/kafka/consumer-runner.js';
import { EventProducer, ProducerClosedError } from '../../src/kafka/producer.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';

/** The broker's least session timeout (group.min.session.timeout.ms). */
const SESSION_MS = 6_000;

async function committedOffsets(kafka: Kafka, groupId: string, topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (t?.partitions ?? []).sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  } finally {
    await admin.disconnect();
  }
}

describe('consumer sessions', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  const runners: ConsumerRunner<unknown>[] = [];

  beforeAll(async () => {
    // One partition a topic: one batch holds every message.
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
    producer = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
  });
  afterAll(async () => {
    await Promise.allSettled(runners.map((r) => r.stop()));
    await producer?.close();
    await ctx?.cleanup();
  });

  function runner<T>(opts: Omit<ConsumerRunnerOptions<T>, 'kafka' | 'deadLetterTopic'>): ConsumerRunner<T> {
    const r = new ConsumerRunner<T>({
      kafka: ctx.kafka,
      deadLetterTopic: ctx.topics.deadLetters,
      logger: testLogger('consumer'),
      maxWaitTimeInMs: 200,
      ...opts,
    });
    runners.push(r as ConsumerRunner<unknown>);
    return r;
  }

  it('a closing producer lets the sends under way finish and sends nothing after', async () => {
    const p = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
    const topic = ctx.topics.deadLetters;
    const sending = p.send(topic, [{ key: 'in-flight', value: Buffer.from('x') }]);
    const closing = p.close();
    await expect(sending).resolves.toHaveLength(1);
    await closing;
    await expect(p.send(topic, [{ key: 'late', value: Buffer.from('y') }])).rejects.toBeInstanceOf(ProducerClosedError);
  });

  it('keeps its partition through a handler longer than the session timeout', { timeout: 60_000 }, async () => {
    const topic = ctx.topics.canary;
    await producer.send(topic, [{ key: 'slow', value: Buffer.from('slow') }]);
    const groupId = uniqueGroupId('heartbeat');
    let calls = 0;
    const r = runner<string>({
      groupId,
      topics: [topic],
      sessionTimeoutMs: SESSION_MS,
      heartbeatIntervalMs: 1_000,
      handler: async (m) => {
        calls++;
        // Half again the session: without heartbeats during the work the group would drop this
        // member, the commit would be refused, and the message handled a second time.
        await new Promise((res) => setTimeout(res, SESSION_MS * 1.5));
        return ok(m.value!.toString());
      },
      sink: () => Promise.resolve(),
    });
    await r.start();
    await waitFor(() => r.stats.commits === 1, 30_000, 'the slow batch to commit');
    expect(calls).toBe(1);
    expect(await committedOffsets(ctx.kafka, groupId, topic)).toEqual(['1']);
    // And no second delivery follows.
    await new Promise((res) => setTimeout(res, 1_500));
    expect(calls).toBe(1);
  });

  it(
    'with abortOnStop: a stop gives the batch up uncommitted, leaves the group, and the next member reads it again at once',
    { timeout: 60_000 },
    async () => {
      const topic = ctx.topics.runs;
      await producer.send(
        topic,
        ['a', 'b', 'c'].map((k) => ({ key: k, value: Buffer.from(k) })),
      );
      const groupId = uniqueGroupId('abort');
      const started: string[] = [];
      let aborted = 0;
      const first = runner<string>({
        groupId,
        topics: [topic],
        // Long enough that a member which did not leave would hold the partition past the checks below.
        sessionTimeoutMs: 30_000,
        handlerConcurrency: 3,
        abortOnStop: true,
        // Work that only ends when it is given up (a probe of a server that never answers).
        handler: (m, { signal }) =>
          new Promise((_, reject) => {
            started.push(m.value!.toString());
            signal.addEventListener('abort', () => (aborted++, reject(new Error('aborted'))), { once: true });
          }),
        sink: () => Promise.reject(new Error('a given-up batch must never reach the sink')),
      });
      await first.start();
      await waitFor(() => started.length === 3, 20_000, 'the three messages to be in hand');

      const stopAt = Date.now();
      await first.stop();
      const stopMs = Date.now() - stopAt;
      expect(stopMs).toBeLessThan(5_000);
      expect(aborted).toBe(3);
      await expect(first.done).resolves.toBeUndefined();
      expect(first.stats.commits).toBe(0);
      expect(await committedOffsets(ctx.kafka, groupId, topic)).toEqual(['-1']);

      const seen: string[] = [];
      const second = runner<string>({
        groupId,
        topics: [topic],
        sessionTimeoutMs: 30_000,
        handler: (m) => ok(m.value!.toString()),
        sink: async (items) => void seen.push(...items.map((i) => i.value)),
      });
      const joinAt = Date.now();
      await second.start();
      await waitFor(() => seen.length === 3, 20_000, 'the given-up messages to be read again');
      // Well under the first member's 30 s session: it left the group when it stopped.
      expect(Date.now() - joinAt).toBeLessThan(10_000);
      expect(seen.sort()).toEqual(['a', 'b', 'c']);
      await waitFor(async () => (await committedOffsets(ctx.kafka, groupId, topic))[0] === '3', 10_000, 'the second member to commit');
    },
  );
});
