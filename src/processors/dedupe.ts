import type { Kafka } from 'kafkajs';
import { decodeStep } from './decode-step.js';
import type { ListingEvent } from '../events/types.js';
import { ConsumerRunner, type ConsumerRunnerHooks } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { ListingsToAgents } from './listings-to-agents.js';

/** Consumer group of the dedupe processor; bump the suffix to rebuild agents from the earliest offset. */
export const DEDUPE_GROUP = 'veronikai.dedupe.v1';

export const decodeListing = decodeStep('Listing');

export interface DedupeProcessorOptions {
  kafka: Kafka;
  warehouse: Warehouse;
  topics: TopicNames;
  logger: Logger;
  groupId?: string;
  hooks?: ConsumerRunnerHooks;
  /** How long the group waits for a silent member before reassigning its partitions. */
  sessionTimeoutMs?: number;
}

/** Listings topic → `listings` and `agents` tables. Offsets are committed only after both writes. */
export function createDedupeProcessor(opts: DedupeProcessorOptions): ConsumerRunner<ListingEvent> {
  const writer = new ListingsToAgents(opts.warehouse);
  const log = opts.logger.child({ processor: 'dedupe' });
  return new ConsumerRunner<ListingEvent>({
    kafka: opts.kafka,
    groupId: opts.groupId ?? DEDUPE_GROUP,
    topics: [opts.topics.listings],
    deadLetterTopic: opts.topics.deadLetters,
    fromBeginning: true,
    logger: opts.logger,
    hooks: opts.hooks,
    sessionTimeoutMs: opts.sessionTimeoutMs,
    handler: (message) => decodeListing(message.value),
    sink: async (items) => {
      const keys = await writer.write(items.map((i) => i.value));
      log.debug({ listings: items.length, agents: keys.length }, 'listings merged into agents');
    },
  });
}
