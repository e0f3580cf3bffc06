import type { Kafka } from 'kafkajs';
import { decodeStep } from './decode-step.js';
import type { SourceFetchEvent } from '../events/types.js';
import { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/** Consumer group of the source-fetch log; the table is keyed by event id, so a replay writes nothing new. */
export const SOURCE_FETCH_LOG_GROUP = 'veronikai.source-fetch-log.v1';

export function sourceFetchRow(ev: SourceFetchEvent) {
  return {
    event_id: ev.id,
    run_id: ev.runId,
    source: ev.source,
    url: ev.url,
    page: ev.page,
    cursor: ev.cursor ?? '',
    mode: ev.mode,
    status: ev.status,
    ok: ev.ok ? 1 : 0,
    not_modified: ev.notModified ? 1 : 0,
    etag: ev.etag ?? '',
    item_count: ev.itemCount,
    invalid_item_count: ev.invalidItemCount,
    next_cursor: ev.nextCursor ?? '',
    bytes: ev.bytes,
    gate: ev.gate,
    duration_ms: ev.durationMs,
    error_class: ev.errorClass ?? '',
    error: ev.error ?? '',
    observed_at: new Date(ev.observedAt),
  };
}

const decode = decodeStep('SourceFetch');

/** source-fetches topic → `source_fetches` table, so analysts can see every page request and why one failed. */
export function createSourceFetchLog(opts: { kafka: Kafka; warehouse: Warehouse; topics: TopicNames; logger: Logger; groupId?: string }) {
  return new ConsumerRunner<SourceFetchEvent>({
    kafka: opts.kafka,
    groupId: opts.groupId ?? SOURCE_FETCH_LOG_GROUP,
    topics: [opts.topics.sourceFetches],
    deadLetterTopic: opts.topics.deadLetters,
    fromBeginning: true,
    logger: opts.logger,
    handler: (m) => decode(m.value),
    sink: (items) => opts.warehouse.insert('source_fetches', items.map((i) => sourceFetchRow(i.value))),
  });
}
