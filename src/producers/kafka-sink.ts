import { eventCodec, type EventCodec } from '../events/codec.js';
import type { CanaryEvent, ListingEvent, ProbeEvent, ProbeRequestEvent, RunEvent, SourceFetchEvent } from '../events/types.js';
import { chunkMessages, type EventProducer, type OutgoingMessage } from '../kafka/producer.js';
import type { TopicNames } from '../topics.js';
import { PRODUCE_MAX_BYTES } from '../kafka/limits.js';
import type { ObservationSink } from './sink.js';

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
