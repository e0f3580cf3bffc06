import { PRODUCE_MAX_BYTES, PRODUCE_RECORD_OVERHEAD_BYTES, PRODUCE_RETRY } from './limits.js';
import kafkajs from 'kafkajs';
import type { IHeaders, Kafka, Producer, RecordMetadata } from 'kafkajs';
import { silentLogger, type Logger } from '../log.js';

const { Partitioners } = kafkajs;

export interface OutgoingMessage {
  /** Partitioning key (see TopicSpec.key); null spreads messages over partitions. */
  key: Buffer | string | null;
  value: Buffer;
  headers?: Record<string, Buffer | string | (Buffer | string)[]>;
  /** Milliseconds since the epoch, as a string (kafkajs' convention); default: now. */
  timestamp?: string;
}

export interface EventProducerOptions {
  logger?: Logger;
  /** Upper bound on unacknowledged requests per broker; the idempotent producer allows ≤ 5. */
  maxInFlightRequests?: number;
}

/**
 * The one way events are written. Idempotent (the broker drops retried duplicates, order
 * is kept per partition), acks = all, and keys are partitioned with the Java client's
 * murmur2, so every client of a topic agrees on key → partition.
 */
export class EventProducer {
  private readonly producer: Producer;
  private readonly logger: Logger;
  private connected: Promise<void> | null = null;
  private closed = false;
  /** Sends under way: close() lets them finish (acknowledged or failed) before it disconnects. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(kafka: Kafka, opts: EventProducerOptions = {}) {
    const maxInFlightRequests = opts.maxInFlightRequests ?? 5;
    if (maxInFlightRequests < 1 || maxInFlightRequests > 5) {
      throw new RangeError('maxInFlightRequests must be between 1 and 5 for an idempotent producer');
    }
    this.logger = (opts.logger ?? silentLogger).child({ component: 'producer' });
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { ...PRODUCE_RETRY },
    });
  }

  /** Connects once; send() calls it, so calling it first only surfaces errors earlier. */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('producer is closed'));
    this.connected ??= this.producer.connect().catch((err: unknown) => {
      this.connected = null;
      throw err;
    });
    return this.connected;
  }

  /**
   * Resolves once every message is acknowledged by all in-sync replicas. After close() began,
   * rejects without sending anything: whoever still sends then was not stopped before it.
   */
  async send(topic: string, messages: readonly OutgoingMessage[]): Promise<RecordMetadata[]> {
    if (messages.length === 0) return [];
    if (this.closed) throw new ProducerClosedError(`producer is closed; ${messages.length} message(s) for ${topic} not sent`);
    const sending = this.sendNow(topic, messages);
    this.inFlight.add(sending);
    try {
      return await sending;
    } finally {
      this.inFlight.delete(sending);
    }
  }

  private async sendNow(topic: string, messages: readonly OutgoingMessage[]): Promise<RecordMetadata[]> {
    await this.connect();
    const result = await this.producer.send({
      topic,
      acks: -1,
      messages: messages.map((m) => ({
        key: m.key,
        value: m.value,
        headers: m.headers as IHeaders | undefined,
        timestamp: m.timestamp,
      })),
    });
    this.logger.debug({ topic, count: messages.length }, 'produced');
    return result;
  }

  /** Refuses new sends, waits for those under way, then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    if (this.connected) {
      await this.connected.catch(() => undefined);
      await this.producer.disconnect();
    }
  }
}

/** A send after the producer was closed. */
export class ProducerClosedError extends Error {
  override name = 'ProducerClosedError';
}

export async function createEventProducer(kafka: Kafka, opts: EventProducerOptions = {}): Promise<EventProducer> {
  const p = new EventProducer(kafka, opts);
  await p.connect();
  return p;
}

/** Bytes a message counts against PRODUCE_MAX_BYTES: key, value, headers and the record's framing. */
export function messageBytes(m: OutgoingMessage): number {
  let n = m.value.length + PRODUCE_RECORD_OVERHEAD_BYTES;
  if (m.key !== null) n += typeof m.key === 'string' ? Buffer.byteLength(m.key) : m.key.length;
  for (const [name, value] of Object.entries(m.headers ?? {})) {
    n += Buffer.byteLength(name);
    for (const v of Array.isArray(value) ? value : [value]) n += typeof v === 'string' ? Buffer.byteLength(v) : v.length;
  }
  return n;
}

/**
 * Splits messages, in order, into runs of at most `maxBytes` (messageBytes). A message larger
 * than `maxBytes` on its own makes a run of one.
 */
export function chunkMessages(messages: readonly OutgoingMessage[], maxBytes: number = PRODUCE_MAX_BYTES): OutgoingMessage[][] {
  const out: OutgoingMessage[][] = [];
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const m of messages) {
    const n = messageBytes(m);
    if (current.length > 0 && bytes + n > maxBytes) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}
