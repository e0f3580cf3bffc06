/**
 * A consumer-group runner in the manner of PostHog's Node ingestion consumer.
 *
 * For each batch (one partition's fetched messages, batches handled one at a time):
 *   1. the handler turns each message into a step result: ok (a value for the sink),
 *      dlq (a reason: the message goes to the dead-letters topic) or drop (a reason: logged);
 *      a handler exception is a dlq result, never a crash;
 *   2. the sink writes the batch's ok values (retried with backoff);
 *   3. dlq messages are produced to the dead-letters topic, the reason in their headers;
 *   4. only then is the batch's offset committed.
 * Offsets are never committed automatically, so a crash anywhere before step 4 means the
 * batch is read again by whoever owns the partition next: at-least-once, and sinks are
 * idempotent so a replayed batch changes nothing a query can see.
 *
 * A sink that still fails after its retries, a dead-letter write that fails, or a hook that
 * throws stops the runner without committing (`done` rejects): the process supervisor
 * restarts it, and the restarted consumer resumes from the last commit.
 */
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import { retry } from '../util/retry.js';
import { isTransientKafkaError } from './transient.js';
import { sleepUnlessAborted } from '../util/time.js';
import { silentLogger, type Logger } from '../log.js';
import { EventProducer, type OutgoingMessage } from './producer.js';

export type StepResult<T> = { kind: 'ok'; value: T } | { kind: 'dlq'; reason: string; error?: unknown } | { kind: 'drop'; reason: string };

export const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value });
export const dlq = (reason: string, error?: unknown): StepResult<never> => ({ kind: 'dlq', reason, error });
export const drop = (reason: string): StepResult<never> => ({ kind: 'drop', reason });

export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
  /** Milliseconds since the epoch, as kafkajs gives it. */
  timestamp: string;
}

export interface SinkItem<T> {
  value: T;
  /** Where the value came from: lets an idempotent sink key its rows by topic/partition/offset. */
  source: ConsumedMessage;
}

export interface BatchInfo {
  groupId: string;
  topic: string;
  partition: number;
  firstOffset: string;
  lastOffset: string;
  size: number;
}

export interface BatchOutcome extends BatchInfo {
  ok: number;
  dlq: number;
  dropped: number;
  /** The offset committed after this batch (lastOffset + 1). */
  commitOffset: string;
}

export interface Sink<T> {
  /** Writes one batch's ok values; must be idempotent (a batch can be written again after a crash). */
  write(items: readonly SinkItem<T>[], batch: BatchInfo): Promise<void>;
}

/** What a handler is told besides its message. */
export interface HandlerContext {
  /**
   * Aborts when the batch is given up: the runner stops (with `abortOnStop`) or the group
   * rebalances. A handler with long work ends it then; its result is not used.
   */
  signal: AbortSignal;
}

export type Handler<T> = (message: ConsumedMessage, context: HandlerContext) => StepResult<T> | Promise<StepResult<T>>;

export interface ConsumerRunnerHooks {
  /** After the sink and the dead-letter writes, before the commit. Throwing here stops the runner uncommitted. */
  afterSinkBeforeCommit?: (outcome: BatchOutcome) => void | Promise<void>;
  /** After the commit. */
  afterCommit?: (outcome: BatchOutcome) => void | Promise<void>;
}

/** Header names of a dead-letter message (all values are strings, except the original key). */
export const DLQ_HEADERS = {
  reason: 'dlq-reason',
  error: 'dlq-error',
  originTopic: 'dlq-origin-topic',
  originPartition: 'dlq-origin-partition',
  originOffset: 'dlq-origin-offset',
  originKey: 'dlq-origin-key',
  originTimestamp: 'dlq-origin-timestamp',
  groupId: 'dlq-group-id',
  at: 'dlq-at',
} as const;

export interface ConsumerRunnerOptions<T> {
  kafka: Kafka;
  groupId: string;
  topics: readonly string[];
  handler: Handler<T>;
  sink: Sink<T> | Sink<T>['write'];
  /** Full name of the deployment's dead-letters topic (with its prefix: a prefixed deployment never writes to another's). */
  deadLetterTopic: string;
  /** Producer for dead letters; by default the runner makes (and closes) its own. */
  producer?: EventProducer;
  /** Where a new group starts: the earliest offset (default true, since Kafka is the source of truth) or the latest. */
  fromBeginning?: boolean;
  logger?: Logger;
  hooks?: ConsumerRunnerHooks;
  /** Retries of a failing sink write before the runner stops (default SINK_RETRIES), with doubling backoff from sinkRetryBackoffMs (default 500) up to SINK_RETRY_MAX_MS. */
  sinkRetries?: number;
  sinkRetryBackoffMs?: number;
  /** Partitions whose batches are handled at the same time (default 1: strictly one batch at a time). */
  partitionsConsumedConcurrently?: number;
  /**
   * Messages of one batch handled at the same time (default 1: one after the other). Results keep
   * the batch's order; the sink and the commit still wait for the whole batch.
   */
  handlerConcurrency?: number;
  /**
   * How long the group waits for a silent member before its partitions go to another (default
   * DEFAULT_SESSION_TIMEOUT_MS). Heartbeats go out every `heartbeatIntervalMs` while a batch is
   * worked on, however long its messages take, so this only bounds how long a crashed member
   * holds its partitions.
   */
  sessionTimeoutMs?: number;
  /** Default DEFAULT_HEARTBEAT_INTERVAL_MS; at most a third of the session timeout. */
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  /**
   * Stopping gives up the batches in hand instead of finishing them (default false: they finish
   * and commit): their handlers' signals abort, nothing of them is written or committed, and the
   * next owner of the partitions reads them again. For handlers whose work takes long (probes).
   */
  abortOnStop?: boolean;
  /** Longest a fetch waits for new data (default 1000 ms). */
  maxWaitTimeInMs?: number;
  /** Most bytes one fetch reads from one partition (kafkajs default 1 MiB): with one batch a partition, this bounds a batch's size. */
  maxBytesPerPartition?: number;
  /** Most bytes of one fetch over all partitions (kafkajs default 10 MiB). */
  maxBytes?: number;
}

export interface ConsumerRunnerStats {
  batches: number;
  ok: number;
  dlq: number;
  dropped: number;
  commits: number;
}

/** The runner stopped on purpose without committing: the batch will be read again. */
export class ConsumerStoppedError extends Error {
  override name = 'ConsumerStoppedError';
}

const MAX_REASON = 1000;
/**
 * A sink's store can go away for a while (a ClickHouse server restarting, a broker failing over):
 * the runner backs off and tries again, heartbeating, for about two and a half minutes
 * (0.5 + 1 + 2 + … s, each wait at most 30 s) before it stops and leaves it to the supervisor.
 */
export const SINK_RETRIES = 10;
export const SINK_RETRY_MAX_MS = 30_000;
/** Session and heartbeat of every consumer group unless configured (VERONIKAI_KAFKA_SESSION_TIMEOUT, VERONIKAI_KAFKA_HEARTBEAT_INTERVAL). */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 3_000;

/** A batch given up when the runner stopped (abortOnStop): uncommitted, not a failure. */
class BatchAbandonedError extends Error {
  override name = 'BatchAbandonedError';
}

const REBALANCE_ERRORS = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'NOT_COORDINATOR_FOR_GROUP',
  'FENCED_INSTANCE_ID',
]);

export class ConsumerRunner<T> {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly stats: ConsumerRunnerStats = { batches: 0, ok: 0, dlq: 0, dropped: 0, commits: 0 };
  /** Resolves when the runner stopped gracefully; rejects with the reason when it stopped on a failure. */
  readonly done: Promise<void>;

  private readonly opts: ConsumerRunnerOptions<T>;
  private readonly logger: Logger;
  private readonly consumer: Consumer;
  private readonly sink: Sink<T>;
  private readonly deadLetterTopic: string;
  private producer: EventProducer | null;
  private readonly ownsProducer: boolean;
  private state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';
  private fatal: Error | null = null;
  private stopping: Promise<void> | null = null;
  /** Aborted when the runner starts stopping: a sink backoff in progress ends at once. */
  private readonly stopSignal = new AbortController();
  /** One per batch in hand: aborted when the batch is given up. */
  private readonly batchAborts = new Set<AbortController>();
  private readonly heartbeatIntervalMs: number;
  private resolveDone!: () => void;
  private rejectDone!: (err: Error) => void;

  constructor(opts: ConsumerRunnerOptions<T>) {
    if (opts.topics.length === 0) throw new Error('ConsumerRunner needs at least one topic');
    this.opts = opts;
    this.groupId = opts.groupId;
    this.topics = opts.topics;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'consumer', groupId: opts.groupId });
    this.sink = typeof opts.sink === 'function' ? { write: opts.sink } : opts.sink;
    this.deadLetterTopic = opts.deadLetterTopic;
    this.ownsProducer = !opts.producer;
    this.producer = opts.producer ?? null;
    this.done = new Promise<void>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined); // a caller that never awaits `done` must not crash the process

    const sessionTimeout = opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    // Three heartbeats a session at least: one lost heartbeat must not cost the membership.
    this.heartbeatIntervalMs = Math.max(
      100,
      Math.min(opts.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS, Math.floor(sessionTimeout / 3)),
    );
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      sessionTimeout,
      heartbeatInterval: this.heartbeatIntervalMs,
      rebalanceTimeout: opts.rebalanceTimeoutMs ?? Math.max(60_000, sessionTimeout),
      maxWaitTimeInMs: opts.maxWaitTimeInMs ?? 1_000,
      ...(opts.maxBytesPerPartition ? { maxBytesPerPartition: opts.maxBytesPerPartition } : {}),
      ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}),
      allowAutoTopicCreation: false,
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) void this.fail(payload.error);
    });
  }

  /** Joins the group and starts consuming; resolves once the first assignment is done. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`ConsumerRunner already ${this.state}`);
    this.state = 'starting';
    try {
      if (this.ownsProducer) this.producer = new EventProducer(this.opts.kafka, { logger: this.opts.logger });
      await this.producer!.connect();
      await this.consumer.connect();
      await this.consumer.subscribe({ topics: [...this.opts.topics], fromBeginning: this.opts.fromBeginning ?? true });
      await this.consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.opts.partitionsConsumedConcurrently ?? 1,
        eachBatch: (payload) => this.eachBatch(payload),
      });
      this.state = 'running';
      this.logger.info({ topics: this.opts.topics }, 'consumer started');
    } catch (err) {
      await this.fail(err as Error);
      throw err;
    }
  }

  /**
   * Graceful stop: the batch in hand finishes (and commits), or with `abortOnStop` is given up
   * uncommitted; then the consumer leaves the group, so its partitions move at once.
   */
  stop(): Promise<void> {
    return this.shutdown(null);
  }

  private fail(err: Error): Promise<void> {
    this.fatal ??= err;
    return this.shutdown(err);
  }

  private shutdown(err: Error | null): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopping';
      this.stopSignal.abort();
      if (this.opts.abortOnStop || err) for (const a of this.batchAborts) a.abort(new BatchAbandonedError('the consumer is stopping'));
      try {
        await this.consumer.stop();
      } catch (e) {
        this.logger.warn({ err: e }, 'error while stopping the consumer');
      }
      try {
        await this.consumer.disconnect();
      } catch (e) {
        this.logger.warn({ err: e }, 'error while disconnecting the consumer');
      }
      if (this.ownsProducer && this.producer) {
        await this.producer.close().catch((e: unknown) => this.logger.warn({ err: e }, 'error while closing the producer'));
      }
      this.state = 'stopped';
      if (err) {
        this.logger.error({ err }, 'consumer stopped on a failure; uncommitted batches will be read again');
        this.rejectDone(err);
      } else {
        this.logger.info(this.stats, 'consumer stopped');
        this.resolveDone();
      }
    })();
    return this.stopping;
  }

  private async eachBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    if (this.fatal || !p.isRunning() || p.isStale()) return;
    const info: BatchInfo = {
      groupId: this.groupId,
      topic: batch.topic,
      partition: batch.partition,
      firstOffset: batch.firstOffset() ?? batch.lastOffset(),
      lastOffset: batch.lastOffset(),
      size: batch.messages.length,
    };
    try {
      await this.processBatch(p, info);
    } catch (err) {
      if (err instanceof BatchAbandonedError) {
        this.logger.info({ ...info, reason: err.message }, 'batch given up; it will be read again');
        return;
      }
      if (REBALANCE_ERRORS.has((err as { type?: string }).type ?? '')) {
        // The partition may belong to another member now; it reads the batch again from the last commit.
        this.logger.warn({ ...info, err }, 'group rebalanced during a batch; it will be read again');
        throw err; // kafkajs re-joins the group
      }
      if (isTransientKafkaError(err)) {
        // kafkajs restarts the consumer (its retry, then a crash with restart), which reads the batch again from the last commit.
        this.logger.warn({ ...info, err }, 'lost a broker during a batch; it will be read again once kafkajs reconnects');
        throw err;
      }
      // Anything else: stop here, uncommitted. Pausing keeps kafkajs from fetching this partition again meanwhile.
      p.pause();
      void this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * One batch with heartbeats all along: a handler may work longer than the session timeout
   * (a probe's exchanges and retries) without the group taking the partition away. A heartbeat
   * that finds the group rebalancing gives the batch up, since the partition may be another's.
   */
  private async processBatch(p: EachBatchPayload, info: BatchInfo): Promise<void> {
    const abort = new AbortController();
    this.batchAborts.add(abort);
    if (this.stopSignal.signal.aborted && this.opts.abortOnStop) abort.abort(new BatchAbandonedError('the consumer is stopping'));
    const beat = setInterval(() => {
      p.heartbeat().catch((err: unknown) => {
        if (REBALANCE_ERRORS.has((err as { type?: string }).type ?? '')) abort.abort(err);
        else this.logger.debug({ ...info, err }, 'heartbeat failed; trying again');
      });
    }, this.heartbeatIntervalMs);
    try {
      await this.handleBatch(p, info, abort.signal);
    } finally {
      clearInterval(beat);
      this.batchAborts.delete(abort);
    }
  }

  private async handleBatch(p: EachBatchPayload, info: BatchInfo, signal: AbortSignal): Promise<void> {
    const okItems: SinkItem<T>[] = [];
    const dead: { msg: ConsumedMessage; reason: string; error?: unknown }[] = [];
    let dropped = 0;

    const messages = p.batch.messages.map((m) => toConsumed(info.topic, info.partition, m));
    const results: StepResult<T>[] = new Array(messages.length);
    const lanes = Math.max(1, Math.min(this.opts.handlerConcurrency ?? 1, messages.length));
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < messages.length && !signal.aborted) {
          const i = next++;
          results[i] = await this.runHandler(messages[i]!, signal);
          if (!signal.aborted) await p.heartbeat();
        }
      }),
    );
    // Given up (stopping, or the group rebalanced): nothing of it is written or committed.
    if (signal.aborted) throw signal.reason;
    messages.forEach((msg, i) => {
      const r = results[i]!;
      if (r.kind === 'ok') okItems.push({ value: r.value, source: msg });
      else if (r.kind === 'dlq') dead.push({ msg, reason: r.reason, error: r.error });
      else {
        dropped++;
        this.logger.info({ topic: msg.topic, partition: msg.partition, offset: msg.offset, reason: r.reason }, 'dropped message');
      }
    });

    if (okItems.length > 0) await this.writeSink(p, okItems, info);
    if (dead.length > 0) await this.writeDeadLetters(dead);

    const outcome: BatchOutcome = {
      ...info,
      ok: okItems.length,
      dlq: dead.length,
      dropped,
      commitOffset: (BigInt(info.lastOffset) + 1n).toString(),
    };
    await this.opts.hooks?.afterSinkBeforeCommit?.(outcome);

    await p.commitOffsetsIfNecessary({
      topics: [{ topic: info.topic, partitions: [{ partition: info.partition, offset: outcome.commitOffset }] }],
    });
    p.resolveOffset(info.lastOffset);
    this.stats.batches++;
    this.stats.ok += outcome.ok;
    this.stats.dlq += outcome.dlq;
    this.stats.dropped += dropped;
    this.stats.commits++;
    this.logger.debug(outcome, 'batch committed');
    await this.opts.hooks?.afterCommit?.(outcome);
  }

  private async runHandler(msg: ConsumedMessage, signal: AbortSignal): Promise<StepResult<T>> {
    try {
      const r = await this.opts.handler(msg, { signal });
      if (!r || (r.kind !== 'ok' && r.kind !== 'dlq' && r.kind !== 'drop')) {
        return { kind: 'dlq', reason: 'handler returned no step result' };
      }
      return r;
    } catch (err) {
      // Given up with its batch: the result is never used.
      if (signal.aborted) return { kind: 'drop', reason: 'batch given up' };
      this.logger.warn(
        { topic: msg.topic, partition: msg.partition, offset: msg.offset, err },
        'handler threw; message goes to dead letters',
      );
      return { kind: 'dlq', reason: `handler threw: ${(err as Error)?.message ?? String(err)}`, error: err };
    }
  }

  private async writeSink(p: EachBatchPayload, items: SinkItem<T>[], info: BatchInfo): Promise<void> {
    let attempts = 0;
    try {
      await retry(() => (attempts++, this.sink.write(items, info)), {
        retries: this.opts.sinkRetries ?? SINK_RETRIES,
        baseMs: this.opts.sinkRetryBackoffMs ?? 500,
        maxMs: SINK_RETRY_MAX_MS,
        shouldRetry: (o) => !o.ok && p.isRunning() && !this.stopSignal.signal.aborted,
        sleep: async (ms) => void (await sleepUnlessAborted(ms, this.stopSignal.signal)),
        onRetry: async ({ retry: attempt, delayMs, error }) => {
          this.logger.warn({ ...info, attempt, err: error }, `sink write failed; retrying in ${delayMs} ms`);
          await p.heartbeat();
        },
      });
    } catch (err) {
      // kafkajs stopped this run of the consumer (a lost broker, e.g. the group's coordinator):
      // the partition may be another member's when it rejoins, so the batch is given up,
      // uncommitted, and read again; only a sink failing while the consumer runs stops it.
      if (!p.isRunning() && !this.stopSignal.signal.aborted) {
        throw new BatchAbandonedError(`the consumer stopped running while the sink failed: ${(err as Error)?.message ?? String(err)}`);
      }
      throw new ConsumerStoppedError(
        `sink failed for ${info.topic}[${info.partition}] ${info.firstOffset}..${info.lastOffset} after ${attempts} attempt(s): ${(err as Error)?.message ?? String(err)}`,
        { cause: err },
      );
    }
  }

  private async writeDeadLetters(dead: { msg: ConsumedMessage; reason: string; error?: unknown }[]): Promise<void> {
    const at = new Date().toISOString();
    const out: OutgoingMessage[] = dead.map(({ msg, reason, error }) => {
      const headers: Record<string, Buffer | string | (Buffer | string)[]> = {};
      for (const [k, v] of Object.entries(msg.headers)) if (v !== undefined) headers[k] = v;
      headers[DLQ_HEADERS.reason] = reason.slice(0, MAX_REASON);
      if (error !== undefined) headers[DLQ_HEADERS.error] = errorText(error);
      headers[DLQ_HEADERS.originTopic] = msg.topic;
      headers[DLQ_HEADERS.originPartition] = String(msg.partition);
      headers[DLQ_HEADERS.originOffset] = msg.offset;
      headers[DLQ_HEADERS.originTimestamp] = msg.timestamp;
      if (msg.key) headers[DLQ_HEADERS.originKey] = msg.key;
      headers[DLQ_HEADERS.groupId] = this.groupId;
      headers[DLQ_HEADERS.at] = at;
      return { key: msg.topic, value: msg.value ?? Buffer.alloc(0), headers };
    });
    await this.producer!.send(this.deadLetterTopic, out);
    this.logger.warn(
      { topic: this.deadLetterTopic, count: out.length, reasons: [...new Set(dead.map((d) => d.reason))].slice(0, 5) },
      'sent messages to dead letters',
    );
  }
}

function toConsumed(topic: string, partition: number, m: KafkaMessage): ConsumedMessage {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ?? null,
    value: m.value ?? null,
    headers: m.headers ?? {},
    timestamp: m.timestamp,
  };
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, MAX_REASON);
}
