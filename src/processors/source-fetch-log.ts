import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';
import type { SourceFetchEvent } from '../events/types.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/** Consumer group of the source-fetch log; the table is keyed by event id, so a replay writes nothing new. */
export const SOURCE_FETCH_LOG_GROUP = 'veronikai.source-fetch-log.v1';

export function sourceFetchRow(ev: SourceFetchEvent): InsertRow<'source_fetches'> {
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

/** source-fetches topic → `source_fetches` table, so analysts can see every page request and why one failed. */
export function createSourceFetchLog(opts: EventProcessorDeps & { warehouse: Warehouse }) {
  return createEventProcessor(opts, {
    groupId: SOURCE_FETCH_LOG_GROUP,
    topic: 'sourceFetches',
    event: 'SourceFetch',
    write: (events) => opts.warehouse.insert('source_fetches', events.map(sourceFetchRow)),
  });
}
