/**
 * Kafka for tests: the broker from test/setup/kafka.ts, a unique topic prefix per test file
 * (so files running at the same time never share a topic), and the platform's topics under it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { inject } from 'vitest';
import { createKafka } from '../../src/kafka/client.js';
import { deleteTopicsWithPrefix, ensureTopics, type EnsureTopicsOptions } from '../../src/kafka/topics-admin.js';
import { createLogger, silentLogger, type Logger } from '../../src/log.js';
import { topicNames, type TopicNames } from '../../src/topics.js';

/** Waits until the broker of this test run is ready and returns its bootstrap servers. */
export async function kafkaBrokers(timeoutMs = 120_000): Promise<string> {
  const k = inject('kafka');
  if (k.disabled) throw new Error(`Kafka tests are disabled (${k.disabled})`);
  if (!k.statusFile) return k.brokers;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(k.statusFile)) {
      const status = JSON.parse(readFileSync(k.statusFile, 'utf8')) as { state: string; error?: string };
      if (status.state === 'ready') return k.brokers;
      throw new Error(`the test Kafka broker did not start: ${status.error ?? status.state}`);
    }
    if (Date.now() > deadline) throw new Error(`the test Kafka broker was not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Test logs stay quiet unless LOG_LEVEL asks for them. */
export function testLogger(name = 'test'): Logger {
  return process.env.LOG_LEVEL ? createLogger(name, { level: process.env.LOG_LEVEL }) : silentLogger;
}

/** `t-<file>-<random>.`: a topic prefix no other test file or run shares. */
export function uniqueTopicPrefix(fileOrName: string): string {
  const name = fileOrName.startsWith('file:') ? basename(fileURLToPath(fileOrName)) : basename(fileOrName);
  const slug = name
    .replace(/\.test\.[cm]?[jt]s$/, '')
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .slice(0, 40);
  return `t-${slug}-${randomBytes(4).toString('hex')}.`;
}

export interface KafkaTestContext {
  brokers: string;
  kafka: Kafka;
  prefix: string;
  topics: TopicNames;
  /** Deletes this context's topics (worth it on a shared, external broker). */
  cleanup(): Promise<void>;
}

/**
 * Everything a Kafka test file needs: call in beforeAll with `import.meta.url`. The platform's
 * topics are created under a fresh prefix, capped at 2 partitions unless told otherwise (few
 * partitions keep group rebalances quick).
 */
export async function setupKafkaTest(fileUrl: string, opts: EnsureTopicsOptions & { create?: boolean } = {}): Promise<KafkaTestContext> {
  const brokers = await kafkaBrokers();
  const kafka = createKafka({ brokers, clientId: 'veronikai-test', logger: testLogger('kafka') });
  const prefix = uniqueTopicPrefix(fileUrl);
  if (opts.create !== false) await ensureTopics(kafka, prefix, { maxPartitions: 2, ...opts });
  return {
    brokers,
    kafka,
    prefix,
    topics: topicNames(prefix),
    cleanup: async () => {
      await deleteTopicsWithPrefix(kafka, prefix).catch(() => undefined);
    },
  };
}

/** A consumer-group id no other test shares. */
export function uniqueGroupId(label: string): string {
  return `g-${label}-${randomBytes(4).toString('hex')}`;
}

/** Polls `check` until it returns true (or throws after the timeout). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The events on `topic` from its earliest offset (a group of its own), decoded, once `atLeast` of them have arrived. */
export async function readTopicUntil<T>(
  kafka: Kafka,
  topic: string,
  decode: (v: Buffer) => T,
  atLeast: number,
  timeoutMs = 30_000,
): Promise<T[]> {
  const out: T[] = [];
  const consumer = kafka.consumer({ groupId: uniqueGroupId('reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void (message.value && out.push(decode(message.value))) });
    await waitFor(() => out.length >= atLeast, timeoutMs, `${atLeast} event(s) on ${topic}`);
  } finally {
    await consumer.disconnect();
  }
  return out;
}
