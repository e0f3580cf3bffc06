/**
 * The probe worker: a consumer group over the probe-requests topic.
 *
 * Per message: decode the ProbeRequest (undecodable → dead letters), check the canary before the
 * first probe of each run, probe (politeness inside the engine), and hand the Probe event and the
 * documents it names to the sink. The sink produces the batch's documents to the documents topic
 * (keyed by their SHA-256) first, then its Probe events to the probes topic (keyed by agent key),
 * each waiting for acknowledgement (acks = all), so a probe event is never on Kafka before the
 * documents it names; only then does the runner commit the batch's offset. A crash before the commit probes the batch again; each Probe event's id is derived
 * from its request's id, so the repeated probe replaces the first one in id-keyed tables.
 *
 * Requests are keyed by site, so the worker owning a partition owns every host of its sites and
 * the per-host, per-site and per-run limits hold without coordination. Messages of a batch are
 * probed concurrently (`concurrency`); the limiter keeps each host and site within its bounds.
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
import { ConsumerRunner, dlq, ok, type ConsumerRunnerHooks, type StepResult } from '../kafka/consumer-runner.js';
import { EventProducer } from '../kafka/producer.js';
import { silentLogger, type Logger } from '../log.js';
import { decodeStep } from '../kafka/decode-step.js';
import type { TopicNames } from '../topics.js';
import { SETTINGS } from '../config.js';
import { MAX_URL_CHARS } from './http/limits.js';
import { chunkMessages, KafkaObservationSink } from './kafka-sink.js';
import type { KeptProbe } from './probe/kept-bodies.js';
import { probeRequestTarget, type ProbeEngine } from './probe/probe-agent.js';

export const PROBE_WORKER_GROUP = 'veronikai-probe-workers';

/**
 * Probes of one batch held at once (VERONIKAI_PROBE_CONCURRENCY). The limiter, not this number,
 * decides what is sent (2 per host, 6 per site, pacing); a probe waiting for its slot holds only
 * a promise. With a small number (it was 12) every answer's wait left the sites' slots idle: at
 * 20 ms an answer, 6 slots of one site alone need 6 probes in flight, and a batch spans many
 * sites. The default lets a whole batch (64 KiB of probe requests, about 250) wait at once, so
 * every site of the batch can be kept at its limit.
 */
export const PROBE_WORKER_CONCURRENCY = Number(SETTINGS.probeConcurrency.default);

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
   * A batch of probes can take minutes (10 s per exchange, retries, pacing); heartbeats are sent
   * between messages, so the session must outlast the longest probe. Default 5 min.
   */
  sessionTimeoutMs?: number;
  /** Keeps batches small, so a crash re-probes little (default 64 KiB of requests). */
  maxBytesPerPartition?: number;
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
export function canaryEventSink(producer: EventProducer, topics: TopicNames, codec: EventCodec = eventCodec()): (e: CanaryEvent) => Promise<void> {
  const sink = new KafkaObservationSink(producer, topics, codec);
  return (e) => sink.canary(e);
}

/** Produces documents keyed by their hash, once per hash per call, in produce calls of bounded size. */
export async function produceDocuments(producer: EventProducer, topics: TopicNames, documents: readonly DocumentEvent[], codec: EventCodec = eventCodec()): Promise<void> {
  const unique = new Map(documents.map((d) => [d.sha256, d]));
  const messages = [...unique.values()].map((d) => ({ key: d.sha256, value: codec.encode('Document', d) }));
  for (const chunk of chunkMessages(messages)) await producer.send(topics.documents, chunk);
}

export class ProbeWorker {
  readonly runner: ConsumerRunner<KeptProbe>;
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

    this.runner = new ConsumerRunner<KeptProbe>({
      kafka: opts.kafka,
      groupId: opts.groupId ?? PROBE_WORKER_GROUP,
      topics: [topics.probeRequests],
      deadLetterTopic: topics.deadLetters,
      producer,
      logger: opts.logger,
      fromBeginning: opts.fromBeginning ?? true,
      handlerConcurrency: opts.concurrency ?? PROBE_WORKER_CONCURRENCY,
      sessionTimeoutMs: opts.sessionTimeoutMs ?? 300_000,
      rebalanceTimeoutMs: Math.max(60_000, opts.sessionTimeoutMs ?? 300_000),
      maxBytesPerPartition: opts.maxBytesPerPartition ?? 64 * 1024,
      ...(opts.maxWaitTimeInMs !== undefined ? { maxWaitTimeInMs: opts.maxWaitTimeInMs } : {}),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      handler: async (msg): Promise<StepResult<KeptProbe>> => {
        const decoded = decode(msg.value);
        if (decoded.kind !== 'ok') return decoded;
        const req = decoded.value;
        if (req.protocol !== 'a2a' && req.protocol !== 'mcp') return dlq(`probe request with unknown protocol "${String(req.protocol).slice(0, 50)}"`);
        if (typeof req.targetUrl !== 'string' || req.targetUrl === '') return dlq('probe request without a target URL');
        if (req.targetUrl.length > MAX_URL_CHARS || req.agentKey.length > MAX_URL_CHARS) {
          return dlq(`probe request with a target URL or agent key over ${MAX_URL_CHARS} characters`);
        }
        await engine.beforeRun(req.runId);
        const kept = await engine.probeWithDocuments(probeRequestTarget(req));
        return ok({ probe: { ...kept.probe, id: probeEventIdFor(req.id) }, documents: kept.documents });
      },
      // The sink step: documents, then probe events (in calls of bounded size); resolves once every message is acknowledged.
      sink: async (items) => {
        await produceDocuments(producer, topics, items.flatMap((i) => i.value.documents), codec);
        await probes.probes(items.map((i) => i.value.probe));
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
