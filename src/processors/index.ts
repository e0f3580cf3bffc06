import type { Kafka } from 'kafkajs';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createDedupeProcessor } from './dedupe.js';
import { createSourceFetchLog } from './source-fetch-log.js';

export interface ProcessorDeps {
  kafka: Kafka;
  warehouse: Warehouse;
  topics: TopicNames;
  logger: Logger;
}

/** Every stream processor by name; each is one consumer group. */
const FACTORIES: Readonly<Record<string, (deps: ProcessorDeps) => ConsumerRunner<unknown>>> = {
  dedupe: (d) => createDedupeProcessor(d) as ConsumerRunner<unknown>,
  'source-fetch-log': (d) => createSourceFetchLog(d) as ConsumerRunner<unknown>,
};

export const PROCESSOR_NAMES = Object.keys(FACTORIES);

export function createProcessors(deps: ProcessorDeps, names: readonly string[] = PROCESSOR_NAMES): ConsumerRunner<unknown>[] {
  return names.map((n) => FACTORIES[n]!(deps));
}
