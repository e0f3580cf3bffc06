import type { ListingEvent } from '../events/types.js';
import { agentKey } from '../identity/agent-key.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';

/** Consumer group of the listing history (the verdict processor's join context). */
export const LISTING_HISTORY_GROUP = 'veronikai.listing-history.v1';

export function listingHistoryRow(ev: ListingEvent): InsertRow<'listing_history'> | null {
  if (ev.status === 'invalid') return null;
  const key = agentKey(ev.protocol, ev);
  if (!key) return null;
  return {
    agent_key: key,
    observed_at: new Date(ev.observedAt),
    event_id: ev.id,
    source: ev.source,
    item_id: ev.itemId,
    status: ev.status,
    endpoint_transport: ev.endpointTransport ?? '',
    server_json: ev.serverJson ?? '',
  };
}

/** listings topic → `listing_history`, one row per listing event of an agent (keyed by event id). */
export function createListingHistory(opts: EventProcessorDeps & { warehouse: Warehouse }) {
  return createEventProcessor(opts, {
    groupId: LISTING_HISTORY_GROUP,
    topic: 'listings',
    event: 'Listing',
    write: async (events) => {
      const rows = events.map(listingHistoryRow).filter((r): r is InsertRow<'listing_history'> => r !== null);
      if (rows.length > 0) await opts.warehouse.insert('listing_history', rows);
    },
  });
}
