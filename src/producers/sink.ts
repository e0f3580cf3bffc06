import type { ListingEvent, ProbeEvent, RunEvent, SourceFetchEvent } from '../events/types.js';

/** Where producers put what they observed. In production: Kafka topics (see kafka-sink.ts). */
export interface ObservationSink {
  sourceFetch(event: SourceFetchEvent): Promise<void>;
  listings(events: ListingEvent[]): Promise<void>;
  run(event: RunEvent): Promise<void>;
  probe?(event: ProbeEvent): Promise<void>;
}

/** Keeps events in memory; for unit tests of producers' logic. */
export class MemorySink implements ObservationSink {
  readonly fetches: SourceFetchEvent[] = [];
  readonly listingEvents: ListingEvent[] = [];
  readonly runs: RunEvent[] = [];
  async sourceFetch(event: SourceFetchEvent): Promise<void> {
    this.fetches.push(event);
  }
  async listings(events: ListingEvent[]): Promise<void> {
    this.listingEvents.push(...events);
  }
  async run(event: RunEvent): Promise<void> {
    this.runs.push(event);
  }
}
