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

/** One row of priorStates: a point of an agent's history (kind uptime or verdict), or its name. */
export interface PriorStateRow {
  kind: 'uptime' | 'verdict' | 'name';
  agent_key: string;
  observed_at: DateTimeText;
  event_id: string;
  /** The decided state (up | down; pass | fail | n/a), or the agent's name. */
  state: string;
}

export interface PriorStatesQuery {
  checkerVersion: string;
  agentKeys: readonly string[];
  /** The batch's own probes: left out (the caller has them), and where its span starts and ends. */
  eventIds: readonly string[];
  /** Only probes observed from `since` on (the raw tables' TTL). */
  since: Date;
  /** The batch's first and last observation times. */
  from: Date;
  until: Date;
}

/**
 * What a batch's changes are derived against, in one statement: for each agent, its newest decided
 * uptime and newest decided verdict before the batch's first probe, every other decided point of
 * it inside the batch's span (late or redelivered probes written by an earlier batch), and its
 * name. Any older point is hidden behind the newest before the span, so nothing else can be the
 * state a probe of the batch follows; the read returns a few rows an agent, however long its
 * history. By each table's sort key, with FINAL as every read of these tables.
 */
export async function priorStates(wh: ReadOnlyWarehouse, q: PriorStatesQuery): Promise<PriorStateRow[]> {
  if (q.agentKeys.length === 0) return [];
  // Points before the span fold into one group an agent (its newest); each point inside is a group of its own.
  const newest = (table: string, kind: string, state: string, decided: string) =>
    `SELECT '${kind}' AS kind, agent_key, argMax(observed_at, (observed_at, event_id)) AS t, argMax(event_id, (observed_at, event_id)) AS id,
            argMax(CAST(${state} AS String), (observed_at, event_id)) AS state
     FROM ${table} FINAL
     WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND ${decided}
       AND observed_at >= {since:DateTime64(3, 'UTC')} AND observed_at <= {until:DateTime64(3, 'UTC')} AND event_id NOT IN {ids:Array(String)}
     GROUP BY agent_key, if(observed_at < {from:DateTime64(3, 'UTC')}, '', event_id)`;
  return wh.query<PriorStateRow>(
    `SELECT kind, agent_key, t AS observed_at, id AS event_id, state FROM (
       ${newest('checks', 'uptime', 'uptime', "uptime IN ('up', 'down')")}
       UNION ALL
       ${newest('verdicts', 'verdict', 'result', "result != 'unknown'")}
       UNION ALL
       SELECT 'name' AS kind, agent_key, toDateTime64(0, 3, 'UTC') AS t, '' AS id, name AS state
       FROM agents FINAL WHERE agent_key IN {keys:Array(String)})`,
    {
      keys: [...q.agentKeys],
      ids: [...q.eventIds],
      since: q.since,
      from: q.from,
      until: q.until,
      cv: q.checkerVersion,
    },
  );
}

/** The names of these agents ('' for none), by key. */
export async function agentNames(wh: ReadOnlyWarehouse, agentKeys: readonly string[]): Promise<Map<string, string>> {
  const rows = await wh.query<{ agent_key: string; name: string }>(
    'SELECT agent_key, name FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
    { keys: [...agentKeys] },
  );
  return new Map(rows.map((r) => [r.agent_key, r.name]));
}
