/**
 * Kafka client throughput: @platformatic/kafka against kafkajs (the client behind src/kafka),
 * on the real broker, the same topic and the same messages.
 *
 *   npx tsx bench/kafka.ts [messages per client, default 100000]
 *
 * Messages are realistic encoded probe events (the Avro codec of src/events, A2A and MCP
 * probes with the bodies a probe worker keeps), keyed by agent key, into a topic shaped like
 * `probes` (6 partitions). Both clients produce idempotently with acks=all, in awaited
 * batches of BATCH messages (as the project's producers send), alternating in ROUNDS so that
 * a noisy machine weighs on both alike. Each then reads the whole topic (2 × N messages) in its
 * own consumer group with manual commits: kafkajs with eachBatch and a commit per batch (as
 * src/kafka/consumer-runner.ts does), platformatic with its message stream and a commit every
 * BATCH messages. Decoding is left out: this compares the clients, not the codec.
 *
 * The broker: VERONIKAI_KAFKA_BROKERS when set, else a local one started for the run (the
 * project's stack, src/stack/kafka/) and stopped at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Consumer as PConsumer, Producer as PProducer, ProduceAcks, type Message as PMessage } from '@platformatic/kafka';
import { loadConfig } from '../src/config.js';
import { eventCodec } from '../src/events/codec.js';
import type { ProbeEvent, ProbeExchange } from '../src/events/types.js';
import { createKafka } from '../src/kafka/client.js';
import { EventProducer, type OutgoingMessage } from '../src/kafka/producer.js';
import { createLogger, silentLogger } from '../src/log.js';
import { freePort, startBroker, type BrokerHandle } from '../src/stack/kafka/index.js';
import { TOPICS } from '../src/topics.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.argv[2] ?? 100_000);
const BATCH = 1000;
const ROUNDS = 4;
const PARTITIONS = TOPICS.probes.partitions;

// ---- realistic probe events ----

function exchange(
  role: string,
  url: string,
  status: number | null,
  body: string,
  kept: ProbeExchange['bodyKept'],
  headers: Record<string, string>,
): ProbeExchange {
  const b = Buffer.from(kept === 'document' || kept === 'none' ? '' : body);
  return {
    role,
    url,
    status,
    headers,
    body: b,
    bodyTruncated: false,
    bodyBytes: Buffer.byteLength(body),
    bodySha256: randomUUID().replace(/-/g, '').repeat(2),
    bodyKept: kept,
    remoteAddress: status === null ? null : '203.0.113.7',
    startedAt: 1_767_225_600_000,
    durationMs: 42 + (body.length % 300),
    errorClass: status === null ? 'timeout' : null,
    errorMessage: status === null ? 'no answer in 10000 ms' : null,
    retries: 0,
  };
}

function probeEvents(n: number): Array<{ key: string; value: Buffer }> {
  const codec = eventCodec();
  const out: Array<{ key: string; value: Buffer }> = [];
  for (let i = 0; i < n; i++) {
    const site = `agent-${i % 5000}.example-host-${i % 97}.dev`;
    const mcp = i % 3 === 0;
    const key = mcp ? `mcp:https://${site}/mcp` : `a2a:https://${site}/.well-known/agent-card.json`;
    const exchanges = mcp
      ? [
          exchange(
            'mcp-get',
            `https://${site}/mcp`,
            i % 7 === 0 ? 401 : 405,
            i % 7 === 0 ? '' : '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed"},"id":null}',
            'excerpt',
            {
              'content-type': 'application/json',
              'www-authenticate': i % 7 === 0 ? 'Bearer resource_metadata="https://' + site + '/.well-known/oauth-protected-resource"' : '',
            },
          ),
        ]
      : [
          exchange(
            'card',
            `https://${site}/.well-known/agent-card.json`,
            i % 11 === 0 ? 404 : 200,
            '{"name":"x"}'.padEnd(1500 + (i % 900), ' '),
            i % 11 === 0 ? 'none' : 'document',
            { 'content-type': i % 11 === 0 ? 'text/html' : 'application/json', etag: `"${i.toString(16)}"` },
          ),
          ...(i % 11 === 0
            ? [
                exchange('card-legacy', `https://${site}/.well-known/agent.json`, i % 13 === 0 ? null : 200, '', 'document', {
                  'content-type': 'application/json',
                }),
              ]
            : []),
        ];
    const e: ProbeEvent = {
      id: randomUUID(),
      observedAt: 1_767_225_600_000 + i,
      runId: 'bench-run',
      requestId: randomUUID(),
      agentKey: key,
      protocol: mcp ? 'mcp' : 'a2a',
      targetUrl: exchanges[0]!.url,
      transport: mcp ? 'streamable-http' : null,
      inSample: i % 4 === 0,
      exchanges,
      robots: 'allowed',
      canary: 'ok',
      errorClass: null,
      retries: 0,
    };
    out.push({ key, value: codec.encode('Probe', e) });
  }
  return out;
}

// ---- the two clients ----

interface Phase {
  messages: number;
  ms: number;
  commits: number;
}
const rate = (p: Phase): number => p.messages / (p.ms / 1000);
const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

async function produceKafkajs(producer: EventProducer, topic: string, msgs: Array<{ key: string; value: Buffer }>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < msgs.length; i += BATCH) {
    const batch: OutgoingMessage[] = msgs.slice(i, i + BATCH).map((m) => ({ key: m.key, value: m.value }));
    await producer.send(topic, batch);
  }
  return performance.now() - t0;
}

async function producePlatformatic(
  producer: PProducer<Buffer, Buffer, Buffer, Buffer>,
  topic: string,
  msgs: Array<{ key: string; value: Buffer }>,
): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < msgs.length; i += BATCH) {
    await producer.send({ messages: msgs.slice(i, i + BATCH).map((m) => ({ topic, key: Buffer.from(m.key), value: m.value })) });
  }
  return performance.now() - t0;
}

async function consumeKafkajs(brokers: string, topic: string, expected: number): Promise<Phase> {
  const kafka = createKafka({ brokers, clientId: 'bench-kafkajs-consumer', logger: silentLogger });
  const consumer = kafka.consumer({ groupId: `bench-kafkajs-${randomUUID()}`, maxWaitTimeInMs: 1000, allowAutoTopicCreation: false });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let seen = 0;
  let commits = 0;
  let t0 = 0;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset }) => {
      if (t0 === 0) t0 = performance.now();
      const last = batch.messages[batch.messages.length - 1];
      if (!last) return;
      resolveOffset(last.offset);
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }]);
      commits++;
      seen += batch.messages.length;
      if (seen >= expected) resolveDone();
    },
  });
  await done;
  const ms = performance.now() - t0;
  await consumer.disconnect();
  return { messages: seen, ms, commits };
}

async function consumePlatformatic(brokers: string, topic: string, expected: number): Promise<Phase> {
  const consumer = new PConsumer<Buffer, Buffer, Buffer, Buffer>({
    clientId: 'bench-platformatic-consumer',
    groupId: `bench-platformatic-${randomUUID()}`,
    bootstrapBrokers: brokers.split(','),
    maxWaitTime: 1000,
  });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  let seen = 0;
  let commits = 0;
  let t0 = 0;
  const pending = new Map<number, PMessage<Buffer, Buffer, Buffer, Buffer>>();
  const commit = async (): Promise<void> => {
    if (pending.size === 0) return;
    // The next offset to read, as kafkajs commits it; leader epoch unknown (-1).
    const offsets = [...pending.values()].map((m) => ({ topic: m.topic, partition: m.partition, offset: m.offset + 1n, leaderEpoch: -1 }));
    pending.clear();
    await consumer.commit({ offsets });
    commits++;
  };
  for await (const m of stream) {
    if (t0 === 0) t0 = performance.now();
    pending.set(m.partition, m);
    seen++;
    if (seen % BATCH === 0) await commit();
    if (seen >= expected) break;
  }
  await commit();
  const ms = performance.now() - t0;
  await stream.close();
  await consumer.close(true);
  return { messages: seen, ms, commits };
}

// ---- run ----

async function main(): Promise<void> {
  let broker: BrokerHandle | null = null;
  let dataDir: string | null = null;
  let brokers = process.env.VERONIKAI_KAFKA_BROKERS?.trim() ?? '';
  if (!brokers) {
    dataDir = mkdtempSync(join(tmpdir(), 'veronikai-bench-kafka-'));
    const port = await freePort();
    const controllerPort = await freePort([port]);
    process.stdout.write('starting a local broker (src/stack/kafka/)…\n');
    broker = await startBroker({
      dataDir,
      cacheDir: loadConfig().cacheDir,
      port,
      controllerPort,
      logger: createLogger('bench-broker', { level: 'warn' }),
      heap: '1g',
    });
    brokers = broker.brokers;
  }
  try {
    const kafka = createKafka({ brokers, clientId: 'bench-kafkajs', logger: silentLogger });
    const topic = `bench-kafka-${Date.now()}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });

    const msgs = probeEvents(N);
    const bytes = msgs.reduce((s, m) => s + m.value.length, 0);
    const version = (pkg: string): string =>
      (JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    console.log(
      `VeronikAI Kafka client benchmark: kafkajs ${version('kafkajs')} against @platformatic/kafka ${version('@platformatic/kafka')}`,
    );
    console.log(
      `node ${process.version}; broker ${broker ? `${broker.version} (local, started for this run)` : brokers}; topic ${topic} (${PARTITIONS} partitions)`,
    );
    console.log(
      `messages: ${fmt(N)} encoded probe events per client, mean ${fmt(bytes / N)} bytes; sends of ${BATCH}, acks=all, idempotent; ${ROUNDS} alternating rounds`,
    );
    console.log('');

    const kProducer = new EventProducer(kafka, { logger: silentLogger });
    await kProducer.connect();
    const pProducer = new PProducer<Buffer, Buffer, Buffer, Buffer>({
      clientId: 'bench-platformatic',
      bootstrapBrokers: brokers.split(','),
      idempotent: true,
      acks: ProduceAcks.ALL,
      autocreateTopics: false,
    });
    // Warm-up: connections, metadata, producer ids.
    await produceKafkajs(kProducer, topic, msgs.slice(0, BATCH));
    await producePlatformatic(pProducer, topic, msgs.slice(0, BATCH));

    const per = Math.ceil(N / ROUNDS);
    const prod = { kafkajs: { messages: 0, ms: 0, commits: 0 }, platformatic: { messages: 0, ms: 0, commits: 0 } };
    for (let r = 0; r < ROUNDS; r++) {
      const slice = msgs.slice(r * per, Math.min(N, (r + 1) * per));
      const order = r % 2 === 0 ? (['kafkajs', 'platformatic'] as const) : (['platformatic', 'kafkajs'] as const);
      for (const who of order) {
        const ms = who === 'kafkajs' ? await produceKafkajs(kProducer, topic, slice) : await producePlatformatic(pProducer, topic, slice);
        prod[who].messages += slice.length;
        prod[who].ms += ms;
      }
    }
    await kProducer.close();
    await pProducer.close();
    console.log(
      `produce  kafkajs       ${fmt(rate(prod.kafkajs)).padStart(9)} msg/s   (${fmt(prod.kafkajs.messages)} in ${(prod.kafkajs.ms / 1000).toFixed(1)} s)`,
    );
    console.log(
      `produce  platformatic  ${fmt(rate(prod.platformatic)).padStart(9)} msg/s   (${fmt(prod.platformatic.messages)} in ${(prod.platformatic.ms / 1000).toFixed(1)} s)`,
    );

    const total = 2 * N + 2 * BATCH;
    const cons = { kafkajs: [] as Phase[], platformatic: [] as Phase[] };
    for (let r = 0; r < 2; r++) {
      const order = r % 2 === 0 ? (['kafkajs', 'platformatic'] as const) : (['platformatic', 'kafkajs'] as const);
      for (const who of order)
        cons[who].push(who === 'kafkajs' ? await consumeKafkajs(brokers, topic, total) : await consumePlatformatic(brokers, topic, total));
    }
    const sum = (ps: Phase[]): Phase =>
      ps.reduce((a, p) => ({ messages: a.messages + p.messages, ms: a.ms + p.ms, commits: a.commits + p.commits }), {
        messages: 0,
        ms: 0,
        commits: 0,
      });
    const ck = sum(cons.kafkajs);
    const cp = sum(cons.platformatic);
    console.log(
      `consume  kafkajs       ${fmt(rate(ck)).padStart(9)} msg/s   (${fmt(ck.messages)} in ${(ck.ms / 1000).toFixed(1)} s, ${ck.commits} commits; whole topic twice, own group each time)`,
    );
    console.log(
      `consume  platformatic  ${fmt(rate(cp)).padStart(9)} msg/s   (${fmt(cp.messages)} in ${(cp.ms / 1000).toFixed(1)} s, ${cp.commits} commits)`,
    );
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();

    const produceRatio = rate(prod.platformatic) / rate(prod.kafkajs);
    const consumeRatio = rate(cp) / rate(ck);
    // One figure: the ratio of the time each client needs for produce + consume of the same messages.
    const timeK = prod.kafkajs.ms / prod.kafkajs.messages + ck.ms / ck.messages;
    const timeP = prod.platformatic.ms / prod.platformatic.messages + cp.ms / cp.messages;
    const r = timeK / timeP;
    console.log('');
    console.log(
      `produce platformatic/kafkajs ${produceRatio.toFixed(2)}, consume ${consumeRatio.toFixed(2)}; switch threshold 1.5: ${r >= 1.5 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `kafka: platformatic/kafkajs = ${r.toFixed(2)} (messages ${fmt(N)} per client, produce ${produceRatio.toFixed(2)}: ${fmt(rate(prod.platformatic))} vs ${fmt(rate(prod.kafkajs))} msg/s, consume ${consumeRatio.toFixed(2)}: ${fmt(rate(cp))} vs ${fmt(rate(ck))} msg/s)`,
    );
  } finally {
    await broker?.stop(15_000);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
