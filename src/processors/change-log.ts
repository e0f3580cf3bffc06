import type { AgentChangeEvent } from '../events/types.js';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';

/** Consumer group of the change log. */
export const CHANGE_LOG_GROUP = 'veronikai.change-log.v1';

/** An agent_changes row (clickhouse/0027) of a change. */
export function agentChangeRow(c: AgentChangeEvent): InsertRow<'agent_changes'> {
  return {
    observed_at: new Date(c.observedAt),
    change_id: c.id,
    kind: c.kind,
    agent_key: c.agentKey,
    agent_id: c.agentId,
    protocol: c.protocol,
    name: c.name,
    checker_version: c.checkerVersion,
    cause_event_id: c.causeEventId,
    from_state: c.fromState,
    to_state: c.toState,
    summary: c.summary,
    reasons: c.reasons,
  };
}

/**
 * agent-changes topic → `agent_changes` table. A change's id and observed_at are functions of its
 * cause, so a change published or delivered twice writes the same sort key and the copies collapse
 * (read with FINAL).
 */
export function createChangeLog(opts: EventProcessorDeps & { warehouse: Warehouse }): ConsumerRunner<AgentChangeEvent> {
  return createEventProcessor(opts, {
    groupId: CHANGE_LOG_GROUP,
    topic: 'agentChanges',
    event: 'AgentChange',
    write: (events) => opts.warehouse.insert('agent_changes', events.map(agentChangeRow)),
  });
}
