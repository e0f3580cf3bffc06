import { eventCodec, type EventCodec } from '../../events/codec.js';
import type { AgentChangeEvent } from '../../events/types.js';
import type { Kafka } from 'kafkajs';
import type { ConsumerRunner } from '../../kafka/consumer-runner.js';
import { EventProducer } from '../../kafka/producer.js';
import type { Logger } from '../../log.js';
import type { TopicNames } from '../../topics.js';

/**
 * Changes per produce call: a change is well under 2 KB (a summary, a few rule ids), so a call
 * stays far below Kafka's 1 MB request limit.
 */
export const CHANGES_PER_SEND = 200;

/** Publishes agent changes to the agent-changes topic, keyed by agent key; resolves once all are acknowledged. */
export type ChangePublisher = (changes: readonly AgentChangeEvent[]) => Promise<void>;

export function changePublisher(producer: EventProducer, topics: TopicNames, codec: EventCodec = eventCodec()): ChangePublisher {
  return async (changes) => {
    for (let i = 0; i < changes.length; i += CHANGES_PER_SEND) {
      const chunk = changes.slice(i, i + CHANGES_PER_SEND);
      await producer.send(
        topics.agentChanges,
        chunk.map((c) => ({ key: c.agentKey, value: codec.encode('AgentChange', c) })),
      );
    }
  };
}

/**
 * The producer a processor publishes with: the one passed in (the platform's, closed by the
 * platform), or its own, closed once the processor's runner has stopped.
 */
export function processorProducer(opts: { kafka: Kafka; logger: Logger; producer?: EventProducer | undefined }): {
  producer: EventProducer;
  closeWith(runner: ConsumerRunner<unknown>): void;
} {
  const own = !opts.producer;
  const producer = opts.producer ?? new EventProducer(opts.kafka, { logger: opts.logger });
  return {
    producer,
    closeWith: (runner) => {
      if (!own) return;
      const close = () =>
        producer.close().catch((err: unknown) => opts.logger.warn({ err }, 'error while closing the agent-changes producer'));
      runner.done.then(close, close);
    },
  };
}
