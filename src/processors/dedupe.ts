import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { ListingEvent } from '../events/types.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';
import { ListingsToAgents, type ListingsToAgentsOptions } from './listings-to-agents.js';
import type { EventProducer } from '../kafka/producer.js';
import { changePublisher, processorProducer } from './changes/publish.js';

/** Consumer group of the dedupe processor; bump the suffix to rebuild agents from the earliest offset. */
export const DEDUPE_GROUP = 'veronikai.dedupe.v1';

/**
 * Listings topic → `listings` and `agents` tables, and the `listed` / `delisted` changes of the
 * agents it recomputes → agent-changes topic (published before the agents rows are written).
 * Offsets are committed only after all of them.
 */
export function createDedupeProcessor(
  opts: EventProcessorDeps & { warehouse: Warehouse; optOut?: ListingsToAgentsOptions['optOut']; producer?: EventProducer | undefined },
): ConsumerRunner<ListingEvent> {
  const log = opts.logger.child({ processor: 'dedupe' });
  const { producer, closeWith } = processorProducer(opts);
  const writer = new ListingsToAgents(opts.warehouse, {
    optOut: opts.optOut ?? null,
    log,
    onAgentChanges: changePublisher(producer, opts.topics),
  });
  const runner = createEventProcessor(opts, {
    groupId: DEDUPE_GROUP,
    topic: 'listings',
    event: 'Listing',
    write: async (events) => {
      const keys = await writer.write(events);
      log.debug({ listings: events.length, agents: keys.length }, 'listings merged into agents');
    },
  });
  closeWith(runner as ConsumerRunner<unknown>);
  return runner;
}
