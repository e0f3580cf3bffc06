import type { Kafka } from 'kafkajs';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { EventProducer } from '../kafka/producer.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createChangeLog } from './change-log.js';
import { createCorrectionsProcessor } from './corrections.js';
import { createDedupeProcessor } from './dedupe.js';
import { createDocumentStore } from './documents.js';
import { createListingHistory } from './listing-history.js';
import { createRunLog } from './run-log.js';
import { createSourceFetchLog } from './source-fetch-log.js';
import type { Checker } from './verdicts/checker.js';
import type { Signer } from './verdicts/judge-probe.js';
import { createVerdictProcessor } from './verdicts/processor.js';
import { createWebhookDeliveriesProcessor } from './webhook-deliveries.js';

export interface ProcessorDeps {
  kafka: Kafka;
  warehouse: Warehouse;
  topics: TopicNames;
  logger: Logger;
  /** Signs verdicts (the verdict processor). */
  sign: Signer;
  checker?: Checker;
  /** The owners' opt-out file (Config.optOutFile), applied by the dedupe processor. */
  optOutFile?: string | null;
  /** Namespace of the deployment, prefixed to every consumer group. */
  groupPrefix?: string;
  /** Retries of a failing sink write before a processor stops (default: the runner's). */
  sinkRetries?: number;
  /** Publishes agent changes (the dedupe and verdict processors); default: a producer of their own. */
  producer?: EventProducer;
}

/** Every stream processor by name; each is one consumer group. */
const FACTORIES: Readonly<Record<string, (deps: ProcessorDeps) => ConsumerRunner<unknown>>> = {
  dedupe: (d) => createDedupeProcessor({ ...d, optOut: d.optOutFile ?? null }) as ConsumerRunner<unknown>,
  'listing-history': (d) => createListingHistory(d) as ConsumerRunner<unknown>,
  'source-fetch-log': (d) => createSourceFetchLog(d) as ConsumerRunner<unknown>,
  'run-log': (d) => createRunLog(d) as ConsumerRunner<unknown>,
  documents: (d) => createDocumentStore(d) as ConsumerRunner<unknown>,
  verdicts: (d) => createVerdictProcessor({ ...d, ...(d.checker ? { checker: d.checker } : {}) }) as ConsumerRunner<unknown>,
  'change-log': (d) => createChangeLog(d) as ConsumerRunner<unknown>,
  'webhook-deliveries': (d) => createWebhookDeliveriesProcessor(d) as ConsumerRunner<unknown>,
  corrections: (d) => createCorrectionsProcessor({ ...d, ...(d.checker ? { checker: d.checker } : {}) }) as ConsumerRunner<unknown>,
};

export const PROCESSOR_NAMES = Object.keys(FACTORIES);

export function createProcessors(deps: ProcessorDeps, names: readonly string[] = PROCESSOR_NAMES): ConsumerRunner<unknown>[] {
  return names.map((n) => FACTORIES[n]!(deps));
}
