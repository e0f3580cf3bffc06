import type { DateTimeText, UptimeState, VerdictResult } from '../../warehouse/rows.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';

/**
 * What the changes processor reads back after the verdict processor wrote a batch: the batch's own
 * checks and verdicts, and each agent's recent decided states before them. Every read is by a
 * table's sort key.
 */

/** A probe (or a batch's span of probes) to look up by the checks/verdicts sort keys. */
export interface ProbeRef {
  id: string;
  agentKey: string;
  observedAt: number;
}

const probeRefParams = (refs: readonly ProbeRef[]) => ({
  keys: [...new Set(refs.map((r) => r.agentKey))],
  ids: refs.map((r) => r.id),
  from: new Date(Math.min(...refs.map((r) => r.observedAt))),
  to: new Date(Math.max(...refs.map((r) => r.observedAt))),
});

/**
 * The checks rows of these probes under one checker version (absent while the verdict processor
 * has not written them). Reads by the sort key (agent_key, observed_at, event_id, checker_version).
 */
export async function checksOfProbes(
  wh: ReadOnlyWarehouse,
  checkerVersion: string,
  refs: readonly ProbeRef[],
): Promise<Array<{ event_id: string; uptime: UptimeState; reason: string }>> {
  if (refs.length === 0) return [];
  return wh.query(
    `SELECT event_id, uptime, reason FROM checks
     WHERE agent_key IN {keys:Array(String)} AND observed_at >= {from:DateTime64(3, 'UTC')} AND observed_at <= {to:DateTime64(3, 'UTC')}
       AND event_id IN {ids:Array(String)} AND checker_version = {cv:String}
     LIMIT 1 BY event_id`,
    { ...probeRefParams(refs), cv: checkerVersion },
  );
}

/** The verdicts rows of these probes under one checker version, by the sort key (checker_version, agent_key, observed_at, event_id). */
export async function verdictsOfProbes(
  wh: ReadOnlyWarehouse,
  checkerVersion: string,
  refs: readonly ProbeRef[],
): Promise<Array<{ event_id: string; result: VerdictResult; reasons: string[] }>> {
  if (refs.length === 0) return [];
  return wh.query(
    `SELECT event_id, result, reasons FROM verdicts
     WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)}
       AND observed_at >= {from:DateTime64(3, 'UTC')} AND observed_at <= {to:DateTime64(3, 'UTC')} AND event_id IN {ids:Array(String)}
     LIMIT 1 BY event_id`,
    { ...probeRefParams(refs), cv: checkerVersion },
  );
}

/** One point of an agent's history: its decided state at one probe. */
export interface AgentStatePointRow {
  agent_key: string;
  observed_at: DateTimeText;
  event_id: string;
  state: string;
}

export interface AgentHistoryQuery {
  checkerVersion: string;
  agentKeys: readonly string[];
  /** Only probes observed in [since, until]. */
  since: Date;
  until: Date;
  /** At most this many points per agent, the newest. */
  perAgent: number;
}

/** Each agent's newest checks with uptime up or down in [since, until], by the checks sort key. */
export async function uptimeHistory(wh: ReadOnlyWarehouse, q: AgentHistoryQuery): Promise<AgentStatePointRow[]> {
  if (q.agentKeys.length === 0) return [];
  return wh.query<AgentStatePointRow>(
    `SELECT agent_key, observed_at, event_id, uptime AS state FROM checks FINAL
     WHERE agent_key IN {keys:Array(String)} AND observed_at >= {since:DateTime64(3, 'UTC')} AND observed_at <= {until:DateTime64(3, 'UTC')}
       AND checker_version = {cv:String} AND uptime IN ('up', 'down')
     ORDER BY agent_key, observed_at DESC, event_id DESC LIMIT {perAgent:UInt32} BY agent_key`,
    { keys: [...q.agentKeys], since: q.since, until: q.until, cv: q.checkerVersion, perAgent: q.perAgent },
  );
}

/** Each agent's newest decided verdicts (pass, fail, n/a) of one checker version in [since, until], by the verdicts sort key. */
export async function verdictHistory(wh: ReadOnlyWarehouse, q: AgentHistoryQuery): Promise<AgentStatePointRow[]> {
  if (q.agentKeys.length === 0) return [];
  return wh.query<AgentStatePointRow>(
    `SELECT agent_key, observed_at, event_id, result AS state FROM verdicts FINAL
     WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)}
       AND observed_at >= {since:DateTime64(3, 'UTC')} AND observed_at <= {until:DateTime64(3, 'UTC')} AND result != 'unknown'
     ORDER BY agent_key, observed_at DESC, event_id DESC LIMIT {perAgent:UInt32} BY agent_key`,
    { keys: [...q.agentKeys], since: q.since, until: q.until, cv: q.checkerVersion, perAgent: q.perAgent },
  );
}
