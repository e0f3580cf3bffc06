import { eventCodec, type EventCodec } from '../events/codec.js';
import type { ListingEvent, ProbeEvent, ProbeRequestEvent, RunEvent, SourceFetchEvent } from '../events/types.js';
import type { EventProducer } from '../kafka/producer.js';
import type { TopicNames } from '../topics.js';
import type { ObservationSink } from './sink.js';

/** Observations as Avro events on their topics, keyed as topics.ts documents. */
export class KafkaObservationSink implements ObservationSink {
  constructor(
    private readonly producer: EventProducer,
    private readonly topics: TopicNames,
    private readonly codec: EventCodec = eventCodec(),
  ) {}

  async sourceFetch(event: SourceFetchEvent): Promise<void> {
    await this.producer.send(this.topics.sourceFetches, [{ key: event.source, value: this.codec.encode('SourceFetch', event) }]);
  }

  async listings(events: ListingEvent[]): Promise<void> {
    await this.producer.send(
      this.topics.listings,
      events.map((e) => ({ key: `${e.source}:${e.itemId}`, value: this.codec.encode('Listing', e) })),
    );
  }

  async run(event: RunEvent): Promise<void> {
    await this.producer.send(this.topics.runs, [{ key: event.runId, value: this.codec.encode('Run', event) }]);
  }

  /** Probe requests are keyed by site, so the worker that owns a partition owns every host of a site. */
  async probeRequests(events: ProbeRequestEvent[]): Promise<void> {
    await this.producer.send(
      this.topics.probeRequests,
      events.map((e) => ({ key: e.site, value: this.codec.encode('ProbeRequest', e) })),
    );
  }

  async probe(event: ProbeEvent): Promise<void> {
    await this.producer.send(this.topics.probes, [{ key: event.agentKey, value: this.codec.encode('Probe', event) }]);
  }
}
