import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { ListingEvent } from '../events/types.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';
import { ListingsToAgents, type ListingsToAgentsOptions } from './listings-to-agents.js';

/** Consumer group of the dedupe processor; bump the suffix to rebuild agents from the earliest offset. */
export const DEDUPE_GROUP = 'veronikai.dedupe.v1';

/** Listings topic → `listings` and `agents` tables. Offsets are committed only after both writes. */
export function createDedupeProcessor(
  opts: EventProcessorDeps & { warehouse: Warehouse; optOut?: ListingsToAgentsOptions['optOut'] },
): ConsumerRunner<ListingEvent> {
  const log = opts.logger.child({ processor: 'dedupe' });
  const writer = new ListingsToAgents(opts.warehouse, { optOut: opts.optOut ?? null, log });
  return createEventProcessor(opts, {
    groupId: DEDUPE_GROUP,
    topic: 'listings',
    event: 'Listing',
    write: async (events) => {
      const keys = await writer.write(events);
      log.debug({ listings: events.length, agents: keys.length }, 'listings merged into agents');
    },
  });
}
