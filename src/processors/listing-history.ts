import type { Kafka } from 'kafkajs';
import type { ListingEvent } from '../events/types.js';
import { agentKey } from '../identity/agent-key.js';
import { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { decodeStep } from './decode-step.js';

/** Consumer group of the listing history (the verdict processor's join context). */
export const LISTING_HISTORY_GROUP = 'veronikai.listing-history.v1';

export function listingHistoryRow(ev: ListingEvent): Record<string, unknown> | null {
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
export function createListingHistory(opts: { kafka: Kafka; warehouse: Warehouse; topics: TopicNames; logger: Logger; groupId?: string }) {
  return new ConsumerRunner<ListingEvent>({
    kafka: opts.kafka,
    groupId: opts.groupId ?? LISTING_HISTORY_GROUP,
    topics: [opts.topics.listings],
    deadLetterTopic: opts.topics.deadLetters,
    fromBeginning: true,
    logger: opts.logger,
    handler: (m) => decodeStep('Listing')(m.value),
    sink: async (items) => {
      const rows = items.map((i) => listingHistoryRow(i.value)).filter((r): r is Record<string, unknown> => r !== null);
      if (rows.length > 0) await opts.warehouse.insert('listing_history', rows);
    },
  });
}
