import type {
  AgentLatestRow,
  AgentUptimeRow,
  DateTimeText,
  Flag,
  Protocol,
  RunRow,
  OutcomeCounts,
  UptimeState,
  VerdictResult,
} from './rows.js';
import { VIEWS } from './rows.js';
import type { ReadOnlyWarehouse } from './warehouse.js';

/**
 * The read model: every query the API, the dashboard, the statistics and replay run,
 * each typed by the rows it returns. Latest-state tables are ReplacingMergeTree, so
 * every read of one uses FINAL; analyst views are read at __v2. Rows come back as the
 * port returns them (see rows.ts); turning them into API responses is the caller's job.
 */

/**
 * Agents whose owners asked to be hidden (Methods §9), as a subquery of their keys: every
 * figure the API serves (run samples, census, daily totals) leaves them out, like the agent
 * pages and the search, which read `opt_out != 'hidden'` on the agents row itself.
 */
const HIDDEN_AGENT_KEYS = "(SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";

// ---- health ----

export async function ping(wh: ReadOnlyWarehouse): Promise<void> {
  await wh.query('SELECT 1 AS ok');
}

// ---- checker versions ----

/** The checker version the *_current views show, or null while the warehouse has none. */
export async function checkerVersionShown(wh: ReadOnlyWarehouse): Promise<string | null> {
  const [row] = await wh.query<{ checker_version: string | null }>(`SELECT checker_version FROM ${VIEWS.checkerCurrent}`);
  return row?.checker_version ? row.checker_version : null;
}

/** The most recently judged checker version other than `current` (by judged_at), or null. */
export async function newestOtherCheckerVersion(wh: ReadOnlyWarehouse, current: string): Promise<string | null> {
  const [row] = await wh.query<{ checker_version: string }>(
    `SELECT checker_version FROM verdicts WHERE checker_version != {cv:String}
     GROUP BY checker_version ORDER BY max(judged_at) DESC LIMIT 1`,
    { cv: current },
  );
  return row?.checker_version ?? null;
}

/** Verdict rows stored under a checker version (without FINAL: is there any at all?). */
export async function hasVerdicts(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<boolean> {
  const [row] = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM verdicts WHERE checker_version = {v:String}', {
    v: checkerVersion,
  });
  return Number(row?.n ?? 0) > 0;
}

/**
 * The version a replay under `current` is compared with: the one the *_current views show
 * when it is another version with verdicts, else the most recently judged other version; null when none.
 */
export async function previousCheckerVersion(wh: ReadOnlyWarehouse, current: string): Promise<string | null> {
  const shown = await checkerVersionShown(wh);
  if (shown !== null && shown !== current && (await hasVerdicts(wh, shown))) return shown;
  return newestOtherCheckerVersion(wh, current);
}

/** Deduplicated verdict rows of a checker version (rows past the 90-day TTL excepted). */
export async function countVerdicts(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<number> {
  const [row] = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM verdicts FINAL WHERE checker_version = {cv:String}', {
    cv: checkerVersion,
  });
  return Number(row?.n ?? 0);
}

// ---- version comparison (replay) ----

const VERSION_PAIR = `(SELECT event_id, result FROM verdicts FINAL WHERE checker_version = {old:String}) AS o
     INNER JOIN (SELECT event_id, agent_key, observed_at, result FROM verdicts FINAL WHERE checker_version = {new:String}) AS n
     ON n.event_id = o.event_id`;

export interface VersionPairTotals {
  compared: number;
  changed: number;
  agents: number;
}

/** Probe events both versions judged (by event id), how many changed result, for how many agents. */
export async function versionPairTotals(wh: ReadOnlyWarehouse, previous: string, current: string): Promise<VersionPairTotals> {
  const [row] = await wh.query<VersionPairTotals>(
    `SELECT toUInt32(count()) AS compared, toUInt32(countIf(o.result != n.result)) AS changed,
            toUInt32(uniqExactIf(n.agent_key, o.result != n.result)) AS agents
     FROM ${VERSION_PAIR}`,
    { old: previous, new: current },
  );
  return { compared: Number(row?.compared ?? 0), changed: Number(row?.changed ?? 0), agents: Number(row?.agents ?? 0) };
}

export interface ResultTransitionRow {
  old_result: VerdictResult;
  new_result: VerdictResult;
  events: number;
}

/** Result changes old → new with their event counts, most frequent first. */
export async function versionTransitions(wh: ReadOnlyWarehouse, previous: string, current: string): Promise<ResultTransitionRow[]> {
  return wh.query<ResultTransitionRow>(
    `SELECT o.result AS old_result, n.result AS new_result, toUInt32(count()) AS events
     FROM ${VERSION_PAIR} WHERE o.result != n.result
     GROUP BY old_result, new_result ORDER BY events DESC, old_result, new_result`,
    { old: previous, new: current },
  );
}

export interface ChangedAgentRow extends ResultTransitionRow {
  agent_key: string;
}

/** The agents whose result changed (at most `limit`, by key), with the change of their newest differing event. */
export async function versionChangedAgents(wh: ReadOnlyWarehouse, previous: string, current: string, limit: number): Promise<ChangedAgentRow[]> {
  return wh.query<ChangedAgentRow>(
    `SELECT n.agent_key AS agent_key, argMax(o.result, n.observed_at) AS old_result,
            argMax(n.result, n.observed_at) AS new_result, toUInt32(count()) AS events
     FROM ${VERSION_PAIR} WHERE o.result != n.result
     GROUP BY agent_key ORDER BY agent_key LIMIT {limit:UInt32}`,
    { old: previous, new: current, limit },
  );
}

/** Agent names by key (keys without an agent row are absent). */
export async function agentNames(wh: ReadOnlyWarehouse, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await wh.query<{ agent_key: string; name: string }>(
    'SELECT agent_key, name FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
    { keys: [...keys] },
  );
  return new Map(rows.map((r) => [r.agent_key, r.name]));
}

// ---- runs ----

/** Daily runs, newest first (by their first event), with whether each has its finish event. */
export async function dailyRuns(wh: ReadOnlyWarehouse, limit = 50): Promise<Array<{ run_id: string; finished: Flag }>> {
  return wh.query<{ run_id: string; finished: Flag }>(
    `SELECT run_id, toUInt8(countIf(phase = 'finish') > 0) AS finished
     FROM runs FINAL WHERE kind = 'daily'
     GROUP BY run_id ORDER BY min(observed_at) DESC, run_id DESC LIMIT {limit:UInt32}`,
    { limit },
  );
}

export type RunPhaseRow = Pick<RunRow, 'phase' | 'observed_at' | 'seed' | 'counts' | 'complete' | 'note'>;

/** The start and finish rows of a run (none for an unknown run). */
export async function runPhases(wh: ReadOnlyWarehouse, runId: string): Promise<RunPhaseRow[]> {
  return wh.query<RunPhaseRow>('SELECT phase, observed_at, seed, counts, complete, note FROM runs FINAL WHERE run_id = {runId:String}', { runId });
}

export type SampleCountsRow = OutcomeCounts;

/** A run's in-sample checks of unhidden agents under a checker version, by uptime state and verdict; `since` prunes older partitions. */
export async function runSampleCounts(wh: ReadOnlyWarehouse, runId: string, checkerVersion: string, since: Date): Promise<SampleCountsRow | null> {
  const [row] = await wh.query<SampleCountsRow>(
    `SELECT toUInt32(count()) AS checks,
            toUInt32(countIf(c.uptime = 'up')) AS up, toUInt32(countIf(c.uptime = 'down')) AS down,
            toUInt32(countIf(c.uptime = 'unknown')) AS unknown, toUInt32(countIf(c.uptime = 'skipped')) AS skipped,
            toUInt32(countIf(v.result = 'pass')) AS pass, toUInt32(countIf(v.result = 'fail')) AS fail,
            toUInt32(countIf(v.result = 'unknown')) AS unknown_verdict, toUInt32(countIf(v.result = 'n/a')) AS na
     FROM (SELECT event_id, uptime FROM checks FINAL
           WHERE run_id = {runId:String} AND in_sample = 1 AND checker_version = {cv:String} AND observed_at >= {since:DateTime64(3, 'UTC')}
             AND agent_key NOT IN ${HIDDEN_AGENT_KEYS}) AS c
     LEFT JOIN (SELECT event_id, result FROM verdicts FINAL WHERE checker_version = {cv:String} AND observed_at >= {since:DateTime64(3, 'UTC')}) AS v
       ON v.event_id = c.event_id`,
    { runId, cv: checkerVersion, since },
  );
  return row ?? null;
}

// ---- census ----

/** Unhidden agents by active flag. */
export async function agentActivityTotals(wh: ReadOnlyWarehouse): Promise<{ active: number; inactive: number }> {
  const [row] = await wh.query<{ n_active: number; n_inactive: number }>(
    "SELECT toUInt32(countIf(active = 1)) AS n_active, toUInt32(countIf(active = 0)) AS n_inactive FROM agents FINAL WHERE opt_out != 'hidden'",
  );
  return { active: Number(row?.n_active ?? 0), inactive: Number(row?.n_inactive ?? 0) };
}

export interface LatestStateTotalsRow extends Omit<SampleCountsRow, 'checks'> {
  /** Active agents without a latest row under the version. */
  never: number;
}

/** Every active, unhidden agent's latest check and verdict under a checker version, counted. */
export async function latestStateTotals(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<LatestStateTotalsRow | null> {
  const [row] = await wh.query<LatestStateTotalsRow>(
    `SELECT toUInt32(countIf(l.uptime = 'up')) AS up, toUInt32(countIf(l.uptime = 'down')) AS down,
            toUInt32(countIf(l.uptime = 'unknown')) AS unknown, toUInt32(countIf(l.uptime = 'skipped')) AS skipped,
            toUInt32(countIf(l.result = 'pass')) AS pass, toUInt32(countIf(l.result = 'fail')) AS fail,
            toUInt32(countIf(l.result = 'unknown')) AS unknown_verdict, toUInt32(countIf(l.result = 'n/a')) AS na,
            toUInt32(countIf(l.agent_key = '')) AS never
     FROM (SELECT agent_key FROM agents FINAL WHERE active = 1 AND opt_out != 'hidden') AS a
     LEFT JOIN (SELECT agent_key, uptime, result FROM agent_latest FINAL WHERE checker_version = {cv:String}) AS l
       ON l.agent_key = a.agent_key
     SETTINGS join_use_nulls = 0`,
    { cv: checkerVersion },
  );
  return row ?? null;
}

/** The newest latest-state observation of an unhidden agent under a checker version, or null when nothing was checked. */
export async function newestLatestObservation(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<DateTimeText | null> {
  const [row] = await wh.query<{ as_of: DateTimeText | null }>(
    `SELECT if(count() = 0, NULL, max(observed_at)) AS as_of FROM agent_latest FINAL
     WHERE checker_version = {cv:String} AND agent_key NOT IN ${HIDDEN_AGENT_KEYS}`,
    { cv: checkerVersion },
  );
  return row?.as_of ?? null;
}

// ---- daily rollups ----

/** A v_daily_rollups__v2 row as the API names its fields. */
export interface DailyRollupApiRow {
  day: string;
  protocol: string;
  source: string;
  checks: number; up: number; down: number; unknown: number; skipped: number;
  pass: number; fail: number; unknownVerdict: number; na: number;
  uptime: number | null;
  passRate: number | null;
  sampleChecks: number; sampleUp: number; sampleDown: number; samplePass: number; sampleFail: number;
  sampleUptime: number | null; sampleUptimeLow: number | null; sampleUptimeHigh: number | null;
  samplePassRate: number | null; samplePassRateLow: number | null; samplePassRateHigh: number | null;
  computedAt: DateTimeText | null;
}

/** Daily rollups of a checker version (hidden agents are left out when a day is rolled up). */
export async function dailyRollups(wh: ReadOnlyWarehouse, checkerVersion: string, days: number, protocol: string | null): Promise<DailyRollupApiRow[]> {
  return wh.query<DailyRollupApiRow>(
    `SELECT day, protocol, source, checks, up, down, unknown, skipped, pass, fail,
            unknown_verdict AS unknownVerdict, na, uptime, pass_rate AS passRate,
            sample_checks AS sampleChecks, sample_up AS sampleUp, sample_down AS sampleDown,
            sample_pass AS samplePass, sample_fail AS sampleFail,
            sample_uptime AS sampleUptime, sample_uptime_low AS sampleUptimeLow, sample_uptime_high AS sampleUptimeHigh,
            sample_pass_rate AS samplePassRate, sample_pass_rate_low AS samplePassRateLow, sample_pass_rate_high AS samplePassRateHigh,
            computed_at AS computedAt
     FROM ${VIEWS.dailyRollups}
     WHERE checker_version = {cv:String}
       AND day > toDate(now64(3, 'UTC'), 'UTC') - {days:UInt32}
       AND ({protocol:String} = '' OR protocol = {protocol:String})
     ORDER BY day DESC, protocol, source`,
    { cv: checkerVersion, days, protocol: protocol ?? '' },
  );
}

// ---- agents ----

/** An agents row as the API names its fields. */
export interface AgentApiRow {
  id: string;
  key: string;
  protocol: Protocol;
  name: string;
  description: string;
  endpointUrl: string;
  cardUrl: string;
  sources: string[];
  sourceFirstSeen: Record<string, DateTimeText>;
  firstSeen: DateTimeText;
  lastSeen: DateTimeText;
  /** `active = 1` comes back as 0 | 1 (and is served so). */
  active: Flag;
  inactiveSince: DateTimeText | null;
  hasServerJson: Flag;
}

const AGENT_COLUMNS = `agent_id AS id, agent_key AS key, protocol, name, description, endpoint_url AS endpointUrl,
  card_url AS cardUrl, sources, source_first_seen AS sourceFirstSeen, first_seen AS firstSeen,
  last_seen AS lastSeen, active = 1 AS active, inactive_since AS inactiveSince, has_server_json = 1 AS hasServerJson`;

export interface AgentPageFilter {
  /** Agent keys after this one ('' from the start). */
  after: string;
  limit: number;
  protocol?: string | undefined;
  source?: string | undefined;
  active: 'true' | 'false' | 'all';
}

/** Agents in key order after `after`, hidden ones never (Methods §9); `limit` rows at most. */
export async function agentsPage(wh: ReadOnlyWarehouse, f: AgentPageFilter): Promise<AgentApiRow[]> {
  const where = ['agent_key > {after:String}', "opt_out != 'hidden'"];
  const params: Record<string, string | number> = { after: f.after, limit: f.limit };
  if (f.protocol) {
    where.push('protocol = {protocol:String}');
    params.protocol = f.protocol;
  }
  if (f.source) {
    where.push('has(sources, {source:String})');
    params.source = f.source;
  }
  if (f.active !== 'all') where.push(`active = ${f.active === 'true' ? 1 : 0}`);
  return wh.query<AgentApiRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents FINAL WHERE ${where.join(' AND ')} ORDER BY agent_key LIMIT {limit:UInt32}`,
    params,
  );
}

/** One agent by its short id, unless hidden. */
export async function agentById(wh: ReadOnlyWarehouse, id: string): Promise<AgentApiRow | null> {
  const [row] = await wh.query<AgentApiRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents FINAL WHERE agent_id = {id:String} AND opt_out != 'hidden' LIMIT 1`,
    { id },
  );
  return row ?? null;
}

export interface AgentListingApiRow {
  source: string;
  itemId: string;
  name: string;
  version: string;
  endpointUrl: string;
  cardUrl: string;
  tombstoned: Flag;
  firstSeen: DateTimeText;
  lastSeen: DateTimeText;
}

/** Every listing item (tombstoned ones too) of an agent key. */
export async function listingsOfAgent(wh: ReadOnlyWarehouse, key: string): Promise<AgentListingApiRow[]> {
  return wh.query<AgentListingApiRow>(
    `SELECT source, item_id AS itemId, name, version_label AS version, endpoint_url AS endpointUrl,
            card_url AS cardUrl, tombstoned = 1 AS tombstoned, first_seen AS firstSeen, last_seen AS lastSeen
     FROM listings FINAL WHERE agent_key = {key:String} ORDER BY source, item_id`,
    { key },
  );
}

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

/** When an agent was last checked under any checker version; null if never. */
export async function lastCheckedAt(wh: ReadOnlyWarehouse, key: string): Promise<DateTimeText | null> {
  const [row] = await wh.query<{ last: DateTimeText | null }>(
    'SELECT if(count() = 0, NULL, max(observed_at)) AS last FROM agent_latest FINAL WHERE agent_key = {key:String}',
    { key },
  );
  return row?.last ?? null;
}

/** An agent's uptime windows (v_agent_uptime__v2), or null when it has no history in 90 days. */
export async function agentUptime(wh: ReadOnlyWarehouse, key: string): Promise<AgentUptimeRow | null> {
  const [row] = await wh.query<AgentUptimeRow>(`SELECT * FROM ${VIEWS.agentUptime} WHERE agent_key = {key:String} LIMIT 1`, { key });
  return row ?? null;
}

export interface AgentSearchRow {
  id: string;
  name: string | null;
  protocol: Protocol | null;
  sources: string[] | null;
  optOut: string | null;
  lastCheckedAt: DateTimeText | null;
  uptime: UptimeState | null;
  result: VerdictResult | null;
  uptime7d: number | null;
  uptime30d: number | null;
}

export interface AgentSearch {
  checkerVersion: string;
  /** Name or agent-key fragment, case-insensitive; '' for all. */
  q: string;
  protocol: string | null;
  limit: number;
}

/**
 * Active, unhidden agents by name (or URL) fragment with their latest state, by name; `limit` rows at most.
 * A missing right-hand row reads as NULL through its empty key, not `join_use_nulls = 1`: the API's
 * read-only connection (readonly=1) may not change settings.
 */
export async function searchAgentRows(wh: ReadOnlyWarehouse, s: AgentSearch): Promise<AgentSearchRow[]> {
  return wh.query<AgentSearchRow>(
    `SELECT a.agent_id AS id, a.name AS name, a.protocol AS protocol, a.sources AS sources, a.opt_out AS optOut,
            if(t.agent_key = '', NULL, t.last) AS lastCheckedAt, if(l.agent_key = '', NULL, l.uptime) AS uptime,
            if(l.agent_key = '', NULL, l.result) AS result,
            if(u.agent_key = '', NULL, u.uptime_7d) AS uptime7d, if(u.agent_key = '', NULL, u.uptime_30d) AS uptime30d
     FROM (
       SELECT agent_key, agent_id, name, protocol, sources, opt_out FROM agents FINAL
       WHERE active = 1 AND opt_out != 'hidden'
         AND ({protocol:String} = '' OR protocol = {protocol:String})
         AND ({q:String} = '' OR positionCaseInsensitiveUTF8(name, {q:String}) > 0 OR positionCaseInsensitiveUTF8(agent_key, {q:String}) > 0)
     ) AS a
     LEFT JOIN (SELECT agent_key, uptime, result FROM agent_latest FINAL WHERE checker_version = {cv:String}) AS l ON l.agent_key = a.agent_key
     LEFT JOIN (SELECT agent_key, max(observed_at) AS last FROM agent_latest FINAL GROUP BY agent_key) AS t ON t.agent_key = a.agent_key
     LEFT JOIN (SELECT agent_key, uptime_7d, uptime_30d FROM ${VIEWS.agentUptime}) AS u ON u.agent_key = a.agent_key
     ORDER BY lowerUTF8(a.name), a.agent_key
     LIMIT {limit:UInt32}`,
    { cv: s.checkerVersion, q: s.q, protocol: s.protocol ?? '', limit: s.limit },
  );
}
