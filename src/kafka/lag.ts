import type { Admin, Kafka } from 'kafkajs';
import { pollUntil } from '../util/poll.js';
import { isTransientKafkaError } from './transient.js';

/**
 * How far a consumer group is behind, read one way everywhere. A partition the group has
 * never committed counts from its low watermark (what it could still read), not from offset 0:
 * on a topic with a retention limit, such as probe-requests, offset 0 may be long gone, and
 * counting from it would make a caught-up group look behind forever.
 */
export interface PartitionSpan {
  partition: number;
  /** Low watermark: the first offset still on the broker. */
  low: bigint;
  /** High watermark: the offset the next message will get. */
  high: bigint;
}

/** The offset span of every partition of a topic, now, in partition order. */
export async function topicSpans(admin: Admin, topic: string): Promise<PartitionSpan[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets
    .map((p) => ({ partition: p.partition, low: BigInt(p.low), high: BigInt(p.high) }))
    .sort((a, b) => a.partition - b.partition);
}

/** Messages within `spans`. */
export const spanTotal = (spans: readonly PartitionSpan[]): bigint => spans.reduce((n, s) => n + (s.high - s.low), 0n);

/** Messages of `spans` the group has committed: a partition without a commit counts from its low watermark. */
export async function committedWithin(admin: Admin, groupId: string, topic: string, spans: readonly PartitionSpan[]): Promise<bigint> {
  const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const at = new Map((t?.partitions ?? []).map((p) => [p.partition, p.offset]));
  let sum = 0n;
  for (const s of spans) {
    const raw = at.get(s.partition);
    const off = raw === undefined || raw === '-1' ? s.low : BigInt(raw);
    const clamped = off < s.low ? s.low : off > s.high ? s.high : off;
    sum += clamped - s.low;
  }
  return sum;
}

/** Messages of the topics, as they are now, that the group has not committed yet. */
export async function lagOf(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
  spans?: ReadonlyMap<string, readonly PartitionSpan[]>,
): Promise<bigint> {
  let behind = 0n;
  for (const topic of topics) {
    const s = spans?.get(topic) ?? (await topicSpans(admin, topic));
    behind += spanTotal(s) - (await committedWithin(admin, groupId, topic, s));
  }
  return behind;
}

/**
 * Resolves once the consumer group has committed every message now on the topics, or
 * rejects after the timeout or when the signal aborts. Messages produced after the call are not waited for.
 */
export async function waitUntilConsumed(
  kafka: Kafka,
  groupId: string,
  topics: readonly string[],
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const spans = await pollUntil(
      `offsets of ${topics.join(', ')}`,
      async () => {
        try {
          const m = new Map<string, PartitionSpan[]>();
          for (const topic of topics) m.set(topic, await topicSpans(admin, topic));
          return { done: true, value: m };
        } catch (err) {
          if (!isTransientKafkaError(err)) throw err;
          return { done: false, why: `${(err as Error).message} (retrying)` };
        }
      },
      { timeoutMs, intervalMs: 200, ...(signal ? { signal } : {}) },
    );
    await pollUntil(
      `consumer group ${groupId}`,
      async () => {
        let behind: bigint;
        try {
          behind = await lagOf(admin, groupId, topics, spans);
        } catch (err) {
          // A broker of a cluster lost, a coordinator moving: the next look asks another (until the timeout).
          if (!isTransientKafkaError(err)) throw err;
          return { done: false, why: `${(err as Error).message} (retrying)` };
        }
        return behind === 0n
          ? { done: true, value: undefined }
          : { done: false, why: `${behind} message(s) behind on ${topics.join(', ')}` };
      },
      { timeoutMs, intervalMs: 200, ...(signal ? { signal } : {}) },
    );
  } finally {
    await admin.disconnect();
  }
}
