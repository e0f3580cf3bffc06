import type { AgentLatestRow, AgentUptimeRow, DateText, DateTimeText, UptimeState, VerdictResult } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';

/**
 * An agent's state: its latest check and verdict (agent_latest) and its history cut into windows
 * and days (agent_status, clickhouse/0022), each read by key.
 */

export type AgentLatestStatusRow = Omit<AgentLatestRow, 'checker_version' | 'agent_key' | 'agent_id' | 'protocol'>;

/** An agent's latest check and verdict under a checker version. */
export async function latestOfAgent(wh: ReadOnlyWarehouse, checkerVersion: string, key: string): Promise<AgentLatestStatusRow | null> {
  const [row] = await wh.query<AgentLatestStatusRow>(
    `SELECT observed_at, event_id, uptime, reason, http_status, latency_ms, in_sample, our_side, source,
            suite_id, suite_version, result, reasons, warnings, a2a_version, a2a_route, signature
     FROM agent_latest FINAL WHERE checker_version = {cv:String} AND agent_key = {key:String} LIMIT 1`,
    { cv: checkerVersion, key },
  );
  return row ?? null;
}

/**
 * The windows of an agent_status row, cut from its arrays relative to the reader's clock (the
 * 24 h window from its recent checks, the day windows from its daily counts and t-digest states),
 * as the columns of v_agent_uptime (AgentUptimeRow). Bound once per query: today and the 24 h mark.
 */
function windowColumns(): string {
  const dayWindow = (n: number) => {
    const cut = (arr: string) => `arrayFilter((x, d) -> d > today_utc - ${n}, ${arr}, days)`;
    return `arraySum(${cut('day_up')}) / nullIf(arraySum(${cut('day_judged')}), 0) AS uptime_${n}d,
      toUInt32(arraySum(${cut('day_checks')})) AS checks_${n}d,
      arrayReduce('quantileTDigestMerge(0.5)', ${cut('day_latency')}) AS latency_p50_${n}d,
      arrayReduce('quantileTDigestMerge(0.95)', ${cut('day_latency')}) AS latency_p95_${n}d`;
  };
  const recentUp = "arrayFilter((l, a, u) -> a > since_24h AND u = 'up', recent_latency, recent_at, recent_uptime)";
  return `arrayCount((a, u) -> a > since_24h AND u = 'up', recent_at, recent_uptime)
        / nullIf(arrayCount((a, u) -> a > since_24h AND u IN ('up', 'down'), recent_at, recent_uptime), 0) AS uptime_24h,
      toUInt32(arrayCount(a -> a > since_24h, recent_at)) AS checks_24h,
      arrayReduce('quantile(0.5)', ${recentUp}) AS latency_p50_24h,
      arrayReduce('quantile(0.95)', ${recentUp}) AS latency_p95_24h,
      ${[7, 30, 90].map(dayWindow).join(',\n      ')},
      arrayMax(arrayFilter(d -> d > today_utc - 90, days)) AS last_day`;
}

// A quantile of an empty window is NaN, which JSON output writes as null (the API reads it so).
const STATUS_WITH = "WITH toDate(now64(3, 'UTC'), 'UTC') AS today_utc, now64(3, 'UTC') - INTERVAL 24 HOUR AS since_24h";

export interface AgentStatusRow extends AgentUptimeRow {
  checker_version: string;
  latest_at: DateTimeText | null;
  latest_uptime: UptimeState | '';
  latest_result: VerdictResult | '';
}

/** An agent_status row as a list shows it: the latest state and the 7 and 30 day uptime. */
export interface AgentStatusListRow {
  checker_version: string;
  agent_key: string;
  latest_at: DateTimeText | null;
  latest_uptime: UptimeState | '';
  latest_result: VerdictResult | '';
  uptime_7d: number | null;
  uptime_30d: number | null;
}

/**
 * The agent_status rows of these agents under every checker version (at most versions × keys
 * rows, read by key), as a list shows them (no latency digests are merged). One query serves a
 * page of agents: the current version's row gives the state and uptime, every version's row the
 * last check time.
 */
export async function agentStatusRows(wh: ReadOnlyWarehouse, keys: readonly string[]): Promise<AgentStatusListRow[]> {
  if (keys.length === 0) return [];
  const uptime = (n: number) =>
    `arraySum(arrayFilter((x, d) -> d > today_utc - ${n}, day_up, days)) / nullIf(arraySum(arrayFilter((x, d) -> d > today_utc - ${n}, day_judged, days)), 0) AS uptime_${n}d`;
  return wh.query<AgentStatusListRow>(
    `${STATUS_WITH}
     SELECT checker_version, agent_key, latest_at, latest_uptime, latest_result, ${uptime(7)}, ${uptime(30)}
     FROM agent_status FINAL WHERE agent_key IN {keys:Array(String)}`,
    { keys: [...new Set(keys)] },
  );
}

/** When an agent was last checked under any checker version; null if never. */
export async function lastCheckedAt(wh: ReadOnlyWarehouse, key: string): Promise<DateTimeText | null> {
  const [row] = await wh.query<{ last: DateTimeText | null }>(
    'SELECT max(latest_at) AS last FROM agent_status FINAL WHERE agent_key = {key:String}',
    { key },
  );
  return row?.last ?? null;
}

/** An agent's uptime windows under a checker version (agent_status by key), or null when it has no history in 90 days. */
export async function agentUptime(wh: ReadOnlyWarehouse, checkerVersion: string, key: string): Promise<AgentUptimeRow | null> {
  const [row] = await wh.query<AgentUptimeRow>(
    `${STATUS_WITH}
     SELECT agent_key, agent_id, protocol, ${windowColumns()}
     FROM agent_status FINAL
     WHERE checker_version = {cv:String} AND agent_key = {key:String} AND arrayExists(d -> d > today_utc - 90, days)
     LIMIT 1`,
    { cv: checkerVersion, key },
  );
  return row ?? null;
}

/** One UTC day of an agent's history as its page charts it (agent_status by key). */
export interface AgentDayRow {
  day: DateText;
  checks: number;
  up: number;
  /** up + down */
  judged: number;
  /** p50 / p95 latency (ms) of the day's checks that were up; null without one. */
  latency_p50: number | null;
  latency_p95: number | null;
}

/**
 * An agent's last 90 UTC days under a checker version, one row per day it was checked (at most
 * 90), from its agent_status row's arrays: one row read by primary key, each day's latency
 * t-digest merged alone.
 */
export async function agentDays(wh: ReadOnlyWarehouse, checkerVersion: string, key: string): Promise<AgentDayRow[]> {
  return wh.query<AgentDayRow>(
    `${STATUS_WITH}
     SELECT d AS day, c AS checks, u AS up, j AS judged,
            arrayReduce('quantileTDigestMerge(0.5)', [l]) AS latency_p50,
            arrayReduce('quantileTDigestMerge(0.95)', [l]) AS latency_p95
     FROM agent_status FINAL
     ARRAY JOIN days AS d, day_checks AS c, day_up AS u, day_judged AS j, day_latency AS l
     WHERE checker_version = {cv:String} AND agent_key = {key:String} AND d > today_utc - 90
     ORDER BY d LIMIT 90`,
    { cv: checkerVersion, key },
  );
}
