import type { AgentChangeRow } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { HIDDEN_AGENT_IDS } from './hidden.js';

/** Agent changes as the feeds and the agent page's history read them (agent_changes, clickhouse/0027). */

export interface AgentChangesQuery {
  /** One agent's changes (its short id), or the ecosystem's. */
  agentId?: string | undefined;
  /** Verdict and correction changes of this checker version only (the others have none). */
  checkerVersion: string | null;
  kinds?: readonly AgentChangeRow['kind'][] | undefined;
  limit: number;
}

/**
 * The newest changes first, of agents that are not hidden (the owners' opt-out). Verdict and correction
 * changes are shown for the served checker version only, so a replay under a new version
 * does not repeat the old version's history beside its own.
 *
 * Bounded: it reads in a table's own order, newest first — agent_changes (sorted by time) for the
 * ecosystem, agent_changes_by_agent (sorted by agent, then time) for one agent — and stops at
 * `limit` distinct changes. Instead of FINAL (which reads far more here), a change written twice
 * is taken once by LIMIT 1 BY its sort key, its newest write first: the row FINAL would keep.
 */
export async function agentChanges(wh: ReadOnlyWarehouse, q: AgentChangesQuery): Promise<AgentChangeRow[]> {
  const where = [`agent_id NOT IN ${HIDDEN_AGENT_IDS}`, "(checker_version = '' OR checker_version = {cv:String})"];
  const params: Record<string, string | number | string[]> = { cv: q.checkerVersion ?? '', limit: q.limit };
  if (q.agentId !== undefined) {
    where.push('agent_id = {agentId:String}');
    params.agentId = q.agentId;
  }
  if (q.kinds?.length) {
    where.push('kind IN {kinds:Array(String)}');
    params.kinds = [...q.kinds];
  }
  const table = q.agentId !== undefined ? 'agent_changes_by_agent' : 'agent_changes';
  const order = q.agentId !== undefined ? 'agent_id DESC, observed_at DESC, change_id DESC' : 'observed_at DESC, change_id DESC';
  return wh.query<AgentChangeRow>(
    `SELECT observed_at, change_id, kind, agent_key, agent_id, protocol, name, checker_version, cause_event_id,
            from_state, to_state, summary, reasons
     FROM ${table} WHERE ${where.join(' AND ')}
     ORDER BY ${order}, written_at DESC LIMIT 1 BY observed_at, change_id LIMIT {limit:UInt32}`,
    params,
  );
}
