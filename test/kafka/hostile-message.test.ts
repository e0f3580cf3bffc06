/**
 * Issue 10, item 3 through the real consumer path: the 188-byte Probe message (array block
 * count 10^8) on a real topic, read by a Probe processor in its own process with a 256 MB heap.
 * Before the bounds, decoding it exhausted the heap (exit 134) and a restarted consumer read it
 * again and died again. Now it is dead-lettered with its reason and the consumer goes on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { ProbeEvent } from '../../src/events/types.js';
import { ConsumerRunner, DLQ_HEADERS, ok, type ConsumedMessage } from '../../src/kafka/consumer-runner.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { hostileMessage } from '../events/hostile-message.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'events', 'fixtures', 'probe-consumer-child.ts');

const probe = (id: string): ProbeEvent => ({
  id,
  observedAt: Date.UTC(2026, 0, 5),
  runId: 'r1',
  requestId: null,
  agentKey: 'https://mcp.example.test/mcp',
  protocol: 'mcp',
  targetUrl: 'https://mcp.example.test/mcp',
  transport: 'streamable-http',
  inSample: true,
  exchanges: [],
  robots: 'allowed',
  canary: 'ok',
  errorClass: null,
  retries: 0,
});

describe('a hostile Probe message on a real topic', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  let child: ChildProcess | undefined;
  let reader: ConsumerRunner<ConsumedMessage> | undefined;

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    producer = new EventProducer(ctx.kafka, { logger: testLogger('producer') });
    await producer.connect();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    await reader?.stop();
    await producer?.close();
    await ctx?.cleanup();
  });

  it('is dead-lettered with its reason, and the consumer decodes the events after it', async () => {
    const codec = eventCodec();
    const key = 'https://mcp.example.test/mcp'; // one key: one partition, in this order
    await producer.send(ctx.topics.probes, [
      { key, value: codec.encode('Probe', probe('before')) },
      { key, value: hostileMessage(codec) },
      { key, value: codec.encode('Probe', probe('after')) },
    ]);

    const groupId = uniqueGroupId('hostile');
    const lines: Record<string, unknown>[] = [];
    let stderr = '';
    let exit: { code: number | null; signal: string | null; fatal: string | undefined } | undefined;
    child = spawn(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', CHILD, ctx.brokers, ctx.prefix, groupId], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    child.stdout!.on('data', (d: Buffer) => {
      pending += d.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    child.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on(
      'exit',
      (code, signal) =>
        void (exit = { code, signal, fatal: stderr.split('\n').find((l) => /heap|FATAL|Error/.test(l)) ?? stderr.slice(0, 300) }),
    );

    await waitFor(() => exit !== undefined || lines.some((l) => l.decoded === 'after'), 45_000, 'the event after the hostile one');
    expect(exit).toBeUndefined(); // before the fix: { signal: 'SIGABRT', fatal: 'FATAL ERROR: … JavaScript heap out of memory' }
    expect(lines.filter((l) => 'decoded' in l).map((l) => l.decoded)).toEqual(['before', 'after']);

    const dead: ConsumedMessage[] = [];
    reader = new ConsumerRunner<ConsumedMessage>({
      kafka: ctx.kafka,
      groupId: uniqueGroupId('hostile-dlq'),
      topics: [ctx.topics.deadLetters],
      deadLetterTopic: ctx.topics.deadLetters,
      logger: testLogger('dlq-reader'),
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      maxWaitTimeInMs: 200,
      handler: (m) => ok(m),
      sink: async (items) => void dead.push(...items.map((i) => i.value)),
    });
    await reader.start();
    await waitFor(() => dead.length >= 1, 20_000, 'the dead letter');
    expect(dead).toHaveLength(1);
    const d = dead[0]!;
    expect(d.value).toEqual(hostileMessage(codec));
    expect(d.headers[DLQ_HEADERS.reason]?.toString()).toMatch(
      /^malformed: cannot decode Probe: array block of 100000000 items needs at least \d+ bytes, \d+ remain/,
    );
    expect(d.headers[DLQ_HEADERS.originTopic]?.toString()).toBe(ctx.topics.probes);
    expect(d.headers[DLQ_HEADERS.groupId]?.toString()).toBe(groupId);
  }, 90_000);
});
