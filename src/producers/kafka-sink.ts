import { eventCodec, type EventCodec } from '../events/codec.js';
import type { CanaryEvent, ListingEvent, ProbeEvent, ProbeRequestEvent, RunEvent, SourceFetchEvent } from '../events/types.js';
import type { EventProducer, OutgoingMessage } from '../kafka/producer.js';
import type { TopicNames } from '../topics.js';
import { PRODUCE_MAX_BYTES, PRODUCE_RECORD_OVERHEAD_BYTES } from './http/limits.js';
import type { ObservationSink } from './sink.js';

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

/**
 * Observations as Avro events on their topics, keyed as topics.ts documents. Every send is split
 * so that one produce call (one record batch per partition) stays within PRODUCE_MAX_BYTES, well
 * under Kafka's 1 MB default; the calls go one after the other, so order per partition is kept.
 */
export class KafkaObservationSink implements ObservationSink {
  constructor(
    private readonly producer: EventProducer,
    private readonly topics: TopicNames,
    private readonly codec: EventCodec = eventCodec(),
    private readonly maxBytes: number = PRODUCE_MAX_BYTES,
  ) {}

  private async send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    for (const chunk of chunkMessages(messages, this.maxBytes)) await this.producer.send(topic, chunk);
  }

  async sourceFetch(event: SourceFetchEvent): Promise<void> {
    await this.send(this.topics.sourceFetches, [{ key: event.source, value: this.codec.encode('SourceFetch', event) }]);
  }

  async listings(events: ListingEvent[]): Promise<void> {
    await this.send(
      this.topics.listings,
      events.map((e) => ({ key: `${e.source}:${e.itemId}`, value: this.codec.encode('Listing', e) })),
    );
  }

  async run(event: RunEvent): Promise<void> {
    await this.send(this.topics.runs, [{ key: event.runId, value: this.codec.encode('Run', event) }]);
  }

  /** Probe requests are keyed by site, so the worker that owns a partition owns every host of a site. */
  async probeRequests(events: ProbeRequestEvent[]): Promise<void> {
    await this.send(
      this.topics.probeRequests,
      events.map((e) => ({ key: e.site, value: this.codec.encode('ProbeRequest', e) })),
    );
  }

  async probe(event: ProbeEvent): Promise<void> {
    await this.probes([event]);
  }

  /** Probe events keyed by agent key; resolves once every one is acknowledged. */
  async probes(events: ProbeEvent[]): Promise<void> {
    await this.send(
      this.topics.probes,
      events.map((e) => ({ key: e.agentKey, value: this.codec.encode('Probe', e) })),
    );
  }

  /** Canary events keyed by target. */
  async canary(event: CanaryEvent): Promise<void> {
    await this.send(this.topics.canary, [{ key: event.target, value: this.codec.encode('Canary', event) }]);
  }
}
