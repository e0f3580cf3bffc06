import type { QueryParams, Warehouse } from './warehouse.js';

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

/**
 * The settings of every INSERT … SELECT here. ReplacingMergeTree collapses each inserted block by
 * its sorting key by default (optimize_on_insert), a sort and merge pass over the whole block;
 * these statements give one row per key already (their GROUP BY or the unique rows they join),
 * and every read of these tables collapses copies anyway (FINAL, or the newest by key). Without
 * that pass a million agent-days are inserted in about half the time (measured on the embedded
 * engine: 2.2–3.0 s against 5.2–5.8 s, the t-digest change below included).
 */
export const DERIVED_INSERT_SETTINGS = 'SETTINGS optimize_on_insert = 0';

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

/**
 * Probe rows a daily model is computed from: a subquery with one row per probe of one checker
 * version (or several, told apart by checker_version), and its parameters. The raw tables give
 * them (checks and verdicts FINAL, the functions below); a replay from the kept facts gives the
 * same rows from the facts and its judgements (replay-facts.ts). Columns: event_id,
 * checker_version, agent_key, agent_id, protocol, run_id, observed_at, source, uptime, latency_ms,
 * in_sample and result; a source only for the functions that read no verdict (agent_daily_history)
 * may leave out result.
 */
export interface ProbeRows {
  sql: string;
  params: QueryParams;
}

/** Writes daily_rollups from `rows`: whole days (a day's rows must all be there), hidden agents left out. */
export async function insertDailyRollups(warehouse: Warehouse, rows: ProbeRows): Promise<void> {
  await warehouse.exec(
    `INSERT INTO daily_rollups
       (day, protocol, source, checker_version,
        checks, up, down, unknown, skipped, pass, fail, unknown_verdict, na,
        sample_checks, sample_up, sample_down, sample_unknown, sample_skipped,
        sample_pass, sample_fail, sample_unknown_verdict, sample_na, computed_at)
     SELECT
       toDate(observed_at, 'UTC') AS day, protocol, source, checker_version,
       count(),
       countIf(uptime = 'up'), countIf(uptime = 'down'), countIf(uptime = 'unknown'), countIf(uptime = 'skipped'),
       countIf(result = 'pass'), countIf(result = 'fail'), countIf(result = 'unknown'), countIf(result = 'n/a'),
       countIf(in_sample = 1),
       countIf(in_sample = 1 AND uptime = 'up'), countIf(in_sample = 1 AND uptime = 'down'),
       countIf(in_sample = 1 AND uptime = 'unknown'), countIf(in_sample = 1 AND uptime = 'skipped'),
       countIf(in_sample = 1 AND result = 'pass'), countIf(in_sample = 1 AND result = 'fail'),
       countIf(in_sample = 1 AND result = 'unknown'), countIf(in_sample = 1 AND result = 'n/a'),
       now64(3, 'UTC')
     FROM (${rows.sql})
     WHERE ${UNHIDDEN}
     GROUP BY day, protocol, source, checker_version
     ${DERIVED_INSERT_SETTINGS}`,
    rows.params,
  );
}

/** Recomputes daily_rollups for the given (or all refreshable) days. Idempotent. */
export async function refreshDailyRollups(warehouse: Warehouse, options: RefreshOptions = {}): Promise<void> {
  if (options.days && options.days.length === 0) return;
  const params: Record<string, string | string[]> = {};
  const where = dayFilter('observed_at', options, params);
  await insertDailyRollups(warehouse, {
    sql: `SELECT v.event_id AS event_id, v.checker_version AS checker_version, v.agent_key AS agent_key, v.protocol AS protocol,
            v.observed_at AS observed_at, v.result AS result, c.source AS source, c.uptime AS uptime, c.in_sample AS in_sample
          FROM (SELECT event_id, agent_key, protocol, observed_at, checker_version, result FROM verdicts FINAL WHERE ${where}) AS v
          INNER JOIN (SELECT event_id, checker_version, source, uptime, in_sample FROM checks FINAL WHERE ${where}) AS c
            ON c.event_id = v.event_id AND c.checker_version = v.checker_version`,
    params,
  });
}

/** Writes agent_daily_history from `rows`: whole agent-days (an agent-day's rows must all be there). */
export async function insertAgentDailyHistory(warehouse: Warehouse, rows: ProbeRows): Promise<void> {
  const answered = "uptime = 'up' AND latency_ms IS NOT NULL";
  // One t-digest a group: p50 and p95 are read from the state the row keeps (the same numbers as
  // quantileTDigest of the same values; test/warehouse/rollups.test.ts).
  await warehouse.exec(
    `INSERT INTO agent_daily_history
       (checker_version, agent_key, day, agent_id, protocol, checks, up, down, unknown, skipped, sample_checks, sample_up,
        latency_p50_ms, latency_p95_ms, latency_digest, computed_at)
     SELECT checker_version, agent_key, day, agent_id, protocol, checks, up, down, unknown, skipped, sample_checks, sample_up,
            if(answered = 0, NULL, toUInt32(round(q[1]))), if(answered = 0, NULL, toUInt32(round(q[2]))), digest, now64(3, 'UTC')
     FROM (
       SELECT
         checker_version, agent_key, toDate(observed_at, 'UTC') AS day, any(agent_id) AS agent_id, any(protocol) AS protocol,
         count() AS checks, countIf(uptime = 'up') AS up, countIf(uptime = 'down') AS down, countIf(uptime = 'unknown') AS unknown,
         countIf(uptime = 'skipped') AS skipped, countIf(in_sample = 1) AS sample_checks, countIf(in_sample = 1 AND uptime = 'up') AS sample_up,
         countIf(${answered}) AS answered,
         quantileTDigestStateIf(assumeNotNull(latency_ms), ${answered}) AS digest,
         arrayReduce('quantilesTDigestMerge(0.5, 0.95)', [digest]) AS q
       FROM (${rows.sql})
       GROUP BY checker_version, agent_key, day
     )
     ${DERIVED_INSERT_SETTINGS}`,
    rows.params,
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
  await insertAgentDailyHistory(warehouse, { sql: `SELECT * FROM checks FINAL WHERE ${where}`, params });
}

// ---- the read model of the API pages ----

export interface AgentStatusRefreshOptions {
  /** The checker version whose rows to refresh (default: every version). */
  checkerVersion?: string;
  /** Only these agents (default: every judged agent). */
  agentKeys?: readonly string[];
  /** Only agent keys in [from, to): a bulk refresh in bounded pieces (a backfill, the benchmark). */
  keyRange?: { from: string; to: string };
}

function agentStatusFilter(options: AgentStatusRefreshOptions, params: Record<string, string | string[]>): string {
  const where: string[] = [];
  if (options.checkerVersion !== undefined) {
    params.checker_version = options.checkerVersion;
    where.push('checker_version = {checker_version:String}');
  }
  if (options.agentKeys) {
    params.agent_keys = [...new Set(options.agentKeys)];
    where.push('agent_key IN {agent_keys:Array(String)}');
  }
  if (options.keyRange) {
    params.key_from = options.keyRange.from;
    params.key_to = options.keyRange.to;
    where.push('agent_key >= {key_from:String} AND agent_key < {key_to:String}');
  }
  return where.length > 0 ? where.join(' AND ') : '1';
}

/**
 * Rewrites agent_status (clickhouse/0022) for the given agents: their latest state, the daily
 * counts of their last 90 UTC days (from agent_daily_history, so run it after
 * refreshAgentDailyHistory) and their checks of the last 24 hours. Every agent with an
 * agent_latest row under the version gets a row. The windows are summed from those arrays
 * when read, relative to the reader's clock, so a row stays right until the agent's next check
 * (which rewrites it). Reads by primary key only; idempotent.
 */
export async function refreshAgentStatus(warehouse: Warehouse, options: AgentStatusRefreshOptions = {}): Promise<void> {
  if (options.agentKeys?.length === 0) return;
  const params: Record<string, string | string[]> = {};
  const where = agentStatusFilter(options, params);
  await warehouse.exec(
    `INSERT INTO agent_status
       (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
        days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
     SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
            h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency,
            r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
     FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE ${where}) AS l
     LEFT JOIN (
       SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
              groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
       FROM agent_daily_history FINAL
       WHERE ${where} AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
       GROUP BY checker_version, agent_key
     ) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
     LEFT JOIN (
       -- (a NULL latency is kept through a tuple: groupArray skips NULLs, which would misalign the arrays)
       SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime,
              arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
       FROM checks FINAL
       WHERE ${where} AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
       GROUP BY checker_version, agent_key
     ) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key
     ${DERIVED_INSERT_SETTINGS}`,
    params,
  );
}

/** The SELECT that counts the census of a checker version (also the backfill in clickhouse/0024). */
const CENSUS_SELECT = `
  SELECT {cv:String}, toUInt32(countIf(a.active = 1)), toUInt32(countIf(a.active = 0)),
         toUInt32(countIf(a.active = 1 AND l.uptime = 'up')), toUInt32(countIf(a.active = 1 AND l.uptime = 'down')),
         toUInt32(countIf(a.active = 1 AND l.uptime = 'unknown')), toUInt32(countIf(a.active = 1 AND l.uptime = 'skipped')),
         toUInt32(countIf(a.active = 1 AND l.result = 'pass')), toUInt32(countIf(a.active = 1 AND l.result = 'fail')),
         toUInt32(countIf(a.active = 1 AND l.result = 'unknown')), toUInt32(countIf(a.active = 1 AND l.result = 'n/a')),
         toUInt32(countIf(a.active = 1 AND l.agent_key = '')),
         if(countIf(l.agent_key != '') = 0, NULL, maxIf(l.observed_at, l.agent_key != '')),
         now64(3, 'UTC')
  FROM (SELECT agent_key, active FROM agents FINAL WHERE opt_out != 'hidden') AS a
  LEFT JOIN (SELECT agent_key, uptime, result, observed_at FROM agent_latest FINAL WHERE checker_version = {cv:String}) AS l
    ON l.agent_key = a.agent_key
  SETTINGS join_use_nulls = 0`;

/**
 * Recounts census_totals (clickhouse/0024) for a checker version: agents by active flag and every
 * active, unhidden agent's latest check and verdict. Reads the whole index, so it runs when a
 * version is pinned and at most every CENSUS_REFRESH_INTERVAL_MS from the verdict processor, never
 * per request.
 */
export async function refreshCensus(warehouse: Warehouse, checkerVersion: string): Promise<void> {
  await warehouse.exec(
    `INSERT INTO census_totals
       (checker_version, active, inactive, up, down, unknown, skipped, pass, fail, unknown_verdict, na, never, as_of, computed_at)
     ${CENSUS_SELECT}`,
    { cv: checkerVersion },
  );
}

/** The census is recounted by the verdict processor at most this often (it reads every agent). */
export const CENSUS_REFRESH_INTERVAL_MS = 60_000;

/** Writes run_samples from `rows`: each in-sample probe with its result. */
export async function insertRunSamples(warehouse: Warehouse, rows: ProbeRows): Promise<void> {
  await warehouse.exec(
    `INSERT INTO run_samples (run_id, checker_version, event_id, agent_key, agent_id, observed_at, uptime, result)
     SELECT run_id, checker_version, event_id, agent_key, agent_id, observed_at, uptime, result
     FROM (${rows.sql})
     WHERE in_sample = 1
     ${DERIVED_INSERT_SETTINGS}`,
    rows.params,
  );
}

/** The in-sample checks that match `where` (on checks and verdicts alike), each with its verdict's result ('' when it has none yet). */
const sampledChecks = (where: string): string =>
  `SELECT c.run_id AS run_id, c.checker_version AS checker_version, c.event_id AS event_id, c.agent_key AS agent_key,
     c.agent_id AS agent_id, c.observed_at AS observed_at, c.uptime AS uptime, v.result AS result, c.in_sample AS in_sample
   FROM (SELECT run_id, checker_version, event_id, agent_key, agent_id, observed_at, uptime, in_sample FROM checks FINAL
         WHERE ${where} AND in_sample = 1) AS c
   LEFT JOIN (SELECT event_id, result FROM verdicts FINAL WHERE ${where}) AS v
     ON v.event_id = c.event_id`;

/**
 * Rewrites run_samples (clickhouse/0025) for the given events: each in-sample check with its
 * verdict's result. Reads checks and verdicts by the agents' keys (their primary key), so its
 * cost is the batch's, not the table's. Idempotent.
 */
export async function refreshRunSamples(
  warehouse: Warehouse,
  events: { checkerVersion: string; agentKeys: readonly string[]; eventIds: readonly string[] },
): Promise<void> {
  if (events.eventIds.length === 0) return;
  await insertRunSamples(warehouse, {
    sql: sampledChecks('checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND event_id IN {ids:Array(String)}'),
    params: { cv: events.checkerVersion, keys: [...new Set(events.agentKeys)], ids: [...new Set(events.eventIds)] },
  });
}

/**
 * Rewrites run_samples for every in-sample check of a checker version observed on the given UTC
 * days: a replay's derivation once it has caught up (its batches write none). Idempotent.
 */
export async function refreshRunSamplesOfDays(
  warehouse: Warehouse,
  options: { checkerVersion: string; days: ReadonlyArray<string | Date> },
): Promise<void> {
  if (options.days.length === 0) return;
  await insertRunSamples(warehouse, {
    sql: sampledChecks("toDate(observed_at, 'UTC') IN {days:Array(Date)} AND checker_version = {cv:String}"),
    params: { cv: options.checkerVersion, days: [...new Set(options.days.map(dayString))] },
  });
}
