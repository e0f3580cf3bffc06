import type { Kafka } from 'kafkajs';
import type { EventMap, EventName } from '../events/types.js';
import { ConsumerRunner, type BatchInfo, type ConsumerRunnerHooks, type ConsumerRunnerOptions } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import { decodeStep } from '../kafka/decode-step.js';

export interface EventProcessorDeps {
  kafka: Kafka;
  topics: TopicNames;
  logger: Logger;
  /** Overrides the processor's consumer group (tests). */
  groupId?: string;
  /** Namespace of the deployment, prefixed to the default group (as topicNames prefixes topics). */
  groupPrefix?: string;
  hooks?: ConsumerRunnerHooks;
  /** How long the group waits for a silent member before reassigning its partitions. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Retries of a failing sink write before the processor stops (default: the runner's, minutes of backoff). */
  sinkRetries?: number;
}

export interface EventProcessorSpec<K extends EventName> {
  /** Default consumer group (a deployment may override it). */
  groupId: string;
  /** Which topic of TopicNames it reads. */
  topic: keyof TopicNames;
  /** The event type on that topic. */
  event: K;
  /** Writes one batch; must be idempotent (a batch is written again after a crash). `batch`: its partition and offsets. */
  write(events: Array<EventMap[K]>, batch: BatchInfo): Promise<void>;
  /** Fetch sizes, which bound a batch (default: kafkajs's, 1 MiB a partition), and how many partitions' batches are written at once (default 1). */
  batches?: Pick<ConsumerRunnerOptions<unknown>, 'maxBytesPerPartition' | 'maxBytes' | 'partitionsConsumedConcurrently'>;
}

/**
 * A processor: one consumer group that decodes one event type from one topic and
 * writes each batch to its sink before the offsets are committed, from the earliest
 * offset for a new group (Kafka is the source of truth). Undecodable messages go to
 * the dead-letter topic with their reason.
 */
export function createEventProcessor<K extends EventName>(
  deps: EventProcessorDeps,
  spec: EventProcessorSpec<K>,
): ConsumerRunner<EventMap[K]> {
  const decode = decodeStep(spec.event);
  return new ConsumerRunner<EventMap[K]>({
    kafka: deps.kafka,
    groupId: deps.groupId ?? `${deps.groupPrefix ?? ''}${spec.groupId}`,
    topics: [deps.topics[spec.topic]],
    deadLetterTopic: deps.topics.deadLetters,
    fromBeginning: true,
    logger: deps.logger,
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
    ...(deps.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: deps.sessionTimeoutMs } : {}),
    ...(deps.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: deps.heartbeatIntervalMs } : {}),
    ...(deps.sinkRetries !== undefined ? { sinkRetries: deps.sinkRetries } : {}),
    ...spec.batches,
    handler: (m) => decode(m.value),
    sink: (items, batch) =>
      spec.write(
        items.map((i) => i.value),
        batch,
      ),
  });
}
