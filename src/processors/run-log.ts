import type { RunEvent } from '../events/types.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';

export const RUN_LOG_GROUP = 'veronikai.run-log.v1';

export function runRow(ev: RunEvent): InsertRow<'runs'> {
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
export function createRunLog(opts: EventProcessorDeps & { warehouse: Warehouse }) {
  return createEventProcessor(opts, {
    groupId: RUN_LOG_GROUP,
    topic: 'runs',
    event: 'Run',
    write: (events) => opts.warehouse.insert('runs', events.map(runRow)),
  });
}
