/**
 * The probe worker: a consumer group over the probe-requests topic.
 *
 * Per message: decode the ProbeRequest (undecodable → dead letters), check the canary before the
 * first probe of each run, probe (politeness inside the engine), and hand the Probe event and the
 * documents it names to the sink (or, past PROBE_WORKER_HELD_BYTES held, produce them at once).
 * Either way the documents go to the documents topic (keyed by their SHA-256) first, then the
 * Probe events to the probes topic (keyed by agent key), each waiting for acknowledgement
 * (acks = all), so a probe event is never on Kafka before the documents it names; only then does
 * the runner commit the batch's offset. A crash before the commit probes the batch again; each Probe event's id is derived
 * from its request's id, so the repeated probe replaces the first one in id-keyed tables.
 *
 * Requests are keyed by site, so the worker owning a partition owns every host of its sites and
 * the per-host, per-site and per-run limits hold without coordination. Messages of a batch are
 * probed concurrently (`concurrency`), and the batches of every partition the worker owns at once;
 * the limiter keeps each host and site within its bounds.
 *
 * Size: each Probe event fits EVENT_MAX_BYTES (the engine sheds headers and bodies past it), and
 * the sink (KafkaObservationSink) splits a batch's events into produce calls of at most
 * PRODUCE_MAX_BYTES, so a batch of large cards never meets Kafka's 1 MB limit. A request whose
 * target URL or agent key is longer than MAX_URL_CHARS goes to dead letters.
 */
import { createHash } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { eventCodec, type EventCodec } from '../events/codec.js';
import type { CanaryEvent, DocumentEvent } from '../events/types.js';
import { ConsumerRunner, dlq, drop, ok, type ConsumerRunnerHooks, type StepResult } from '../kafka/consumer-runner.js';
import { EventProducer } from '../kafka/producer.js';
import { silentLogger, type Logger } from '../log.js';
import { decodeStep } from '../kafka/decode-step.js';
import { TOPICS, type TopicNames } from '../topics.js';
import { SETTINGS } from '../config.js';
import { MAX_URL_CHARS } from '../http/limits.js';
import { chunkMessages } from '../kafka/producer.js';
import { RecentSet } from '../util/recent-set.js';
import { KafkaObservationSink } from './kafka-sink.js';
import type { KeptProbe } from './probe/kept-bodies.js';
import { probeRequestTarget, type ProbeEngine } from './probe/probe-agent.js';

export const PROBE_WORKER_GROUP = 'veronikai-probe-workers';

/**
 * Probes a worker holds at once (VERONIKAI_PROBE_CONCURRENCY), shared by the request partitions
 * it works on (a share each, rounded up). The limiter, not this number, decides what is sent
 * (2 per host, 6 per site, pacing); a probe waiting for its slot holds only a promise, and the
 * results a batch holds are bounded by PROBE_WORKER_HELD_BYTES. With a small number (it was 12)
 * every answer's wait left the sites' slots idle: at 20 ms an answer, 6 slots of one site alone
 * need 6 probes in flight, and a batch spans many sites.
 */
export const PROBE_WORKER_CONCURRENCY = Number(SETTINGS.probeConcurrency.default);

/**
 * Bytes of probe results (kept bodies, documents) a worker holds for the sinks of its open batches.
 * A result that would pass it is produced by its own step instead, so memory stays bounded however
 * large the batches or the documents; results are otherwise sent a batch at a time (fewer, larger
 * produce calls, which is what keeps the worker's CPU low).
 */
export const PROBE_WORKER_HELD_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of probe requests a batch reads from one partition (about 4,000 requests). Each partition's
 * batch waits for its slowest probe (a silent stream, a timeout) before the next: larger batches
 * pay that tail less often, and a worker works on every partition it owns at once, so one
 * partition's tail leaves the others' sites busy. A crash re-probes at most one batch a partition.
 */
export const PROBE_WORKER_BATCH_BYTES = 1024 * 1024;

/**
 * Request ids a worker remembers having sent the probe events of. A batch whose commit failed
 * after its events were sent (the group's coordinator was lost with its broker) is read again
 * once kafkajs reconnects; those requests are not probed again, since a second probe would be a
 * second observation (another time, perhaps another outcome) under the same event id. Two
 * batches' worth a partition, a few MB.
 */
export const PROBE_WORKER_SENT_MEMORY = 50_000;

/** An object's cost beyond the text it holds (the bench measured about 12 KB of heap a held probe of two to four exchanges). */
const HELD_OBJECT_BYTES = 2 * 1024;

/** What a kept probe holds in memory, roughly: its documents, and each exchange's kept body, URL and headers. */
function heldBytes(kept: KeptProbe): number {
  let n = HELD_OBJECT_BYTES;
  for (const d of kept.documents) n += d.body.length + d.url.length + HELD_OBJECT_BYTES;
  for (const e of kept.probe.exchanges) {
    n += e.body.length + e.url.length + HELD_OBJECT_BYTES;
    for (const k in e.headers) n += k.length + e.headers[k]!.length;
  }
  return n;
}

export interface ProbeWorkerOptions {
  kafka: Kafka;
  topics: TopicNames;
  engine: ProbeEngine;
  groupId?: string;
  /** Shared producer (default: the worker makes and closes its own). */
  producer?: EventProducer;
  logger?: Logger;
  concurrency?: number;
  fromBeginning?: boolean;
  /**
   * How long the group waits for a silent worker before its partitions go to another (default:
   * the runner's, tens of seconds). A batch of probes can take minutes (10 s per exchange,
   * retries, pacing), but the runner heartbeats all through it, so a short session only bounds
   * how long a crashed worker holds its requests.
   */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Bytes of requests a batch reads from one partition (default PROBE_WORKER_BATCH_BYTES). */
  maxBytesPerPartition?: number;
  /** Bytes of results held for batch sinks (default PROBE_WORKER_HELD_BYTES). */
  heldBytes?: number;
  /** Longest a fetch waits for new requests (default 1000 ms). */
  maxWaitTimeInMs?: number;
  hooks?: ConsumerRunnerHooks;
  codec?: EventCodec;
}

/** The Probe event id for a request: stable, so a re-probe after a crash replaces the first event. */
export function probeEventIdFor(requestId: string): string {
  const h = createHash('sha256').update(`probe:${requestId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** An onEvent for Canary that produces CanaryEvents to the canary topic, keyed by target. */
export function canaryEventSink(
  producer: EventProducer,
  topics: TopicNames,
  codec: EventCodec = eventCodec(),
): (e: CanaryEvent) => Promise<void> {
  const sink = new KafkaObservationSink(producer, topics, codec);
  return (e) => sink.canary(e);
}

/** Produces documents keyed by their hash, once per hash per call, in produce calls of bounded size. */
export async function produceDocuments(
  producer: EventProducer,
  topics: TopicNames,
  documents: readonly DocumentEvent[],
  codec: EventCodec = eventCodec(),
): Promise<void> {
  const unique = new Map(documents.map((d) => [d.sha256, d]));
  const messages = [...unique.values()].map((d) => ({ key: d.sha256, value: codec.encode('Document', d) }));
  for (const chunk of chunkMessages(messages)) await producer.send(topics.documents, chunk);
}

/** `work`, unless the signal aborts first: then rejects with its reason. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class ProbeWorker {
  readonly runner: ConsumerRunner<KeptProbe | null>;
  private readonly producer: EventProducer;
  private readonly ownsProducer: boolean;
  private readonly engine: ProbeEngine;
  private readonly logger: Logger;

  constructor(opts: ProbeWorkerOptions) {
    this.engine = opts.engine;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'probe-worker' });
    this.ownsProducer = !opts.producer;
    this.producer = opts.producer ?? new EventProducer(opts.kafka, { logger: opts.logger });
    const codec = opts.codec ?? eventCodec();
    const decode = decodeStep('ProbeRequest');
    const engine = opts.engine;
    const topics = opts.topics;
    const producer = this.producer;
    const probes = new KafkaObservationSink(producer, topics, codec);
    const sent = new RecentSet<string>(PROBE_WORKER_SENT_MEMORY);
    const send = async (kept: readonly KeptProbe[]): Promise<void> => {
      // Documents first, then the probe events that name them (in calls of bounded size); resolves once every message is acknowledged.
      await produceDocuments(
        producer,
        topics,
        kept.flatMap((k) => k.documents),
        codec,
      );
      await probes.probes(kept.map((k) => k.probe));
      for (const k of kept) sent.add(k.probe.id);
    };
    const budget = opts.heldBytes ?? PROBE_WORKER_HELD_BYTES;
    let held = 0;

    this.runner = new ConsumerRunner<KeptProbe | null>({
      kafka: opts.kafka,
      groupId: opts.groupId ?? PROBE_WORKER_GROUP,
      topics: [topics.probeRequests],
      deadLetterTopic: topics.deadLetters,
      producer,
      logger: opts.logger,
      fromBeginning: opts.fromBeginning ?? true,
      // Requests are keyed by site, so partitions never share a host or a site: their batches run
      // side by side, sharing the worker's probes (the same throughput as a whole share each, with
      // peak memory flat as the sites grow).
      handlerConcurrency: Math.ceil((opts.concurrency ?? PROBE_WORKER_CONCURRENCY) / TOPICS.probeRequests.partitions),
      partitionsConsumedConcurrently: TOPICS.probeRequests.partitions,
      ...(opts.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: opts.sessionTimeoutMs } : {}),
      ...(opts.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: opts.heartbeatIntervalMs } : {}),
      // A stop gives up the probes in flight: their requests stay uncommitted and are probed again
      // by the next owner (the same event ids), instead of holding the shutdown for minutes.
      abortOnStop: true,
      maxBytesPerPartition: opts.maxBytesPerPartition ?? PROBE_WORKER_BATCH_BYTES,
      ...(opts.maxWaitTimeInMs !== undefined ? { maxWaitTimeInMs: opts.maxWaitTimeInMs } : {}),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      handler: async (msg, { signal }): Promise<StepResult<KeptProbe | null>> => {
        const decoded = decode(msg.value);
        if (decoded.kind !== 'ok') return decoded;
        const req = decoded.value;
        if (req.protocol !== 'a2a' && req.protocol !== 'mcp')
          return dlq(`probe request with unknown protocol "${String(req.protocol).slice(0, 50)}"`);
        if (typeof req.targetUrl !== 'string' || req.targetUrl === '') return dlq('probe request without a target URL');
        if (req.targetUrl.length > MAX_URL_CHARS || req.agentKey.length > MAX_URL_CHARS) {
          return dlq(`probe request with a target URL or agent key over ${MAX_URL_CHARS} characters`);
        }
        if (sent.has(probeEventIdFor(req.id))) return drop('probed and sent already; read again after a lost commit');
        await untilAborted(engine.beforeRun(req.runId), signal);
        // The engine takes no signal: a probe given up runs on unheard until the process exits, and
        // its result is never used (the batch is not committed, so the request is probed again).
        const found = await untilAborted(engine.probeWithDocuments(probeRequestTarget(req)), signal);
        const kept: KeptProbe = { probe: { ...found.probe, id: probeEventIdFor(req.id) }, documents: found.documents };
        const bytes = heldBytes(kept);
        if (held + bytes > budget) {
          // Past the budget: sent now, so the batch holds nothing of it (null: nothing left for the sink).
          await send([kept]);
          return ok(null);
        }
        held += bytes;
        return ok(kept);
      },
      sink: async (items) => {
        const kept = items.map((i) => i.value).filter((k): k is KeptProbe => k !== null);
        try {
          await send(kept);
        } finally {
          for (const k of kept) held -= heldBytes(k);
        }
      },
    });
  }

  get done(): Promise<void> {
    return this.runner.done;
  }

  async start(): Promise<void> {
    await this.producer.connect();
    await this.runner.start();
    this.engine.canary?.start();
    this.logger.info({ groupId: this.runner.groupId }, 'probe worker started');
  }

  async stop(): Promise<void> {
    this.engine.canary?.stop();
    await this.runner.stop();
    if (this.ownsProducer) await this.producer.close();
  }
}

export async function startProbeWorker(opts: ProbeWorkerOptions): Promise<ProbeWorker> {
  const w = new ProbeWorker(opts);
  await w.start();
  return w;
}
