import type { Kafka } from 'kafkajs';
import type { RunEvent } from '../events/types.js';
import { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import type { TopicNames } from '../topics.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { decodeStep } from './decode-step.js';

export const RUN_LOG_GROUP = 'veronikai.run-log.v1';

export function runRow(ev: RunEvent): Record<string, unknown> {
  return {
    run_id: ev.runId,
    phase: ev.phase,
    kind: ev.kind,
    observed_at: new Date(ev.observedAt),
    event_id: ev.id,
    budget: ev.budget,
    sample_size: ev.sampleSize,
    seed: ev.seed ?? '',
    counts: ev.counts,
    complete: ev.complete ? 1 : 0,
    note: ev.note ?? '',
  };
}

/** runs topic → `runs` table (start and finish of every run). */
export function createRunLog(opts: { kafka: Kafka; warehouse: Warehouse; topics: TopicNames; logger: Logger; groupId?: string }) {
  return new ConsumerRunner<RunEvent>({
    kafka: opts.kafka,
    groupId: opts.groupId ?? RUN_LOG_GROUP,
    topics: [opts.topics.runs],
    deadLetterTopic: opts.topics.deadLetters,
    fromBeginning: true,
    logger: opts.logger,
    handler: (m) => decodeStep('Run')(m.value),
    sink: (items) => opts.warehouse.insert('runs', items.map((i) => runRow(i.value))),
  });
}
