import type { Warehouse } from './warehouse.js';

/**
 * The daily tables that outlive the 90-day raw tables (daily_rollups,
 * agent_daily_history), recomputed from the raw tables with INSERT … SELECT.
 * (agent_latest, the third forever-kept table, has one writer: the verdict
 * processor inserts each judged probe's row, src/processors/verdicts/processor.ts.)
 *
 * Why recompute instead of materialized views or summing engines: a replay of
 * old events must not count twice, and ClickHouse drops rows already past
 * their TTL at insert while a materialized view on the table still receives
 * them. A summing table fed per inserted row would count every redelivery.
 * Here every refresh computes whole-day totals from `checks FINAL` /
 * `verdicts FINAL` (one row per event id, however often it was delivered)
 * and the target ReplacingMergeTree keeps the newest totals per key, so any
 * number of refreshes after any number of deliveries gives the same numbers.
 *
 * A day is recomputed only while all of its raw rows are inside the TTL
 * (day >= today - 89, UTC): the first row of day D expires at D + 90 days,
 * after today ends. Older days keep the totals computed while their rows
 * existed: a replay of events older than that (dropped at insert anyway)
 * changes nothing, and a new checker version gets rollups for the days
 * whose raw rows are still there.
 */

/** The oldest UTC day (as SQL) whose raw check and verdict rows are all still inside the 90-day TTL. */
export const OLDEST_REFRESHABLE_DAY_SQL = "toDate(now64(3, 'UTC'), 'UTC') - 89";

export interface RefreshOptions {
  /** UTC days ('YYYY-MM-DD' or Date) to recompute; default: every refreshable day (the last 90). */
  days?: ReadonlyArray<string | Date>;
  /** Only this checker version's rows (default: every version). */
  checkerVersion?: string;
}

export interface AgentRefreshOptions extends RefreshOptions {
  /** Only these agents (default: all). */
  agentKeys?: readonly string[];
}

function dayString(d: string | Date): string {
  if (d instanceof Date) return d.toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new RangeError(`day must be YYYY-MM-DD, got ${JSON.stringify(d)}`);
  return d;
}

function dayFilter(column: string, options: RefreshOptions, params: Record<string, string | string[]>): string {
  let sql = `toDate(${column}, 'UTC') >= ${OLDEST_REFRESHABLE_DAY_SQL}`;
  if (options.days) {
    params.days = [...new Set(options.days.map(dayString))];
    sql += ` AND toDate(${column}, 'UTC') IN {days:Array(Date)}`;
  }
  if (options.checkerVersion !== undefined) {
    params.checker_version = options.checkerVersion;
    sql += ' AND checker_version = {checker_version:String}';
  }
  return sql;
}

/**
 * Hidden agents (Methods §9) count in no ecosystem figure. A day rolled up before an agent was
 * hidden keeps its checks until that day is recomputed (any later check of the day, or a replay).
 */
const UNHIDDEN = "agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";

/** Recomputes daily_rollups for the given (or all refreshable) days. Idempotent. */
export async function refreshDailyRollups(warehouse: Warehouse, options: RefreshOptions = {}): Promise<void> {
  if (options.days && options.days.length === 0) return;
  const params: Record<string, string | string[]> = {};
  const where = dayFilter('observed_at', options, params);
  await warehouse.exec(
    `INSERT INTO daily_rollups
       (day, protocol, source, checker_version,
        checks, up, down, unknown, skipped, pass, fail, unknown_verdict, na,
        sample_checks, sample_up, sample_down, sample_unknown, sample_skipped,
        sample_pass, sample_fail, sample_unknown_verdict, sample_na, computed_at)
     SELECT
       toDate(v.observed_at, 'UTC') AS day, v.protocol, c.source, v.checker_version,
       count(),
       countIf(c.uptime = 'up'), countIf(c.uptime = 'down'), countIf(c.uptime = 'unknown'), countIf(c.uptime = 'skipped'),
       countIf(v.result = 'pass'), countIf(v.result = 'fail'), countIf(v.result = 'unknown'), countIf(v.result = 'n/a'),
       countIf(c.in_sample = 1),
       countIf(c.in_sample = 1 AND c.uptime = 'up'), countIf(c.in_sample = 1 AND c.uptime = 'down'),
       countIf(c.in_sample = 1 AND c.uptime = 'unknown'), countIf(c.in_sample = 1 AND c.uptime = 'skipped'),
       countIf(c.in_sample = 1 AND v.result = 'pass'), countIf(c.in_sample = 1 AND v.result = 'fail'),
       countIf(c.in_sample = 1 AND v.result = 'unknown'), countIf(c.in_sample = 1 AND v.result = 'n/a'),
       now64(3, 'UTC')
     FROM (SELECT event_id, protocol, observed_at, checker_version, result FROM verdicts FINAL WHERE ${where} AND ${UNHIDDEN}) AS v
     INNER JOIN (SELECT event_id, checker_version, source, uptime, in_sample FROM checks FINAL WHERE ${where} AND ${UNHIDDEN}) AS c
       ON c.event_id = v.event_id AND c.checker_version = v.checker_version
     GROUP BY day, v.protocol, c.source, v.checker_version`,
    params,
  );
}

/** Recomputes agent_daily_history for the given (or all refreshable) days and agents. Idempotent. */
export async function refreshAgentDailyHistory(warehouse: Warehouse, options: AgentRefreshOptions = {}): Promise<void> {
  if (options.days?.length === 0 || options.agentKeys?.length === 0) return;
  const params: Record<string, string | string[]> = {};
  let where = dayFilter('observed_at', options, params);
  if (options.agentKeys) {
    params.agent_keys = [...new Set(options.agentKeys)];
    where += ' AND agent_key IN {agent_keys:Array(String)}';
  }
  const answered = "uptime = 'up' AND latency_ms IS NOT NULL";
  await warehouse.exec(
    `INSERT INTO agent_daily_history
       (checker_version, agent_key, day, agent_id, protocol, checks, up, down, unknown, skipped, sample_checks, sample_up,
        latency_p50_ms, latency_p95_ms, latency_digest, computed_at)
     SELECT
       checker_version, agent_key, toDate(observed_at, 'UTC') AS day, any(agent_id), any(protocol),
       count(), countIf(uptime = 'up'), countIf(uptime = 'down'), countIf(uptime = 'unknown'), countIf(uptime = 'skipped'),
       countIf(in_sample = 1), countIf(in_sample = 1 AND uptime = 'up'),
       if(countIf(${answered}) = 0, NULL, toUInt32(round(quantileTDigestIf(0.5)(assumeNotNull(latency_ms), ${answered})))),
       if(countIf(${answered}) = 0, NULL, toUInt32(round(quantileTDigestIf(0.95)(assumeNotNull(latency_ms), ${answered})))),
       quantileTDigestStateIf(assumeNotNull(latency_ms), ${answered}),
       now64(3, 'UTC')
     FROM checks FINAL
     WHERE ${where}
     GROUP BY checker_version, agent_key, day`,
    params,
  );
}
