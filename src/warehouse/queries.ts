import type {
  AgentChangeRow,
  CorrectionRow,
  AgentLatestRow,
  AgentUptimeRow,
  BigIntText,
  DateText,
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

/** Daily runs with a start and no finish, oldest first: in progress, or ended by a crash that could not record it. */
export async function unfinishedDailyRuns(wh: ReadOnlyWarehouse): Promise<Array<Pick<RunRow, 'run_id' | 'observed_at' | 'budget' | 'sample_size' | 'seed' | 'counts'>>> {
  return wh.query(
    `SELECT run_id, observed_at, budget, sample_size, seed, counts FROM runs FINAL
     WHERE kind = 'daily' AND phase = 'start' AND run_id NOT IN (SELECT run_id FROM runs WHERE phase = 'finish')
     ORDER BY observed_at`,
  );
}

export type SampleCountsRow = OutcomeCounts;

/**
 * A run's in-sample checks of unhidden agents under a checker version, by uptime state and verdict,
 * from run_samples (clickhouse/0025): the run's own rows, at most its sample size, whatever the
 * index holds. Hidden agents come from their own postings ('opt_out:hidden', clickhouse/0023),
 * checked against their newest row only where they meet the sample. `since` (the run's start)
 * bounds the rows further.
 */
export async function runSampleCounts(wh: ReadOnlyWarehouse, runId: string, checkerVersion: string, since: Date): Promise<SampleCountsRow | null> {
  const [row] = await wh.query<SampleCountsRow>(
    `SELECT toUInt32(count()) AS checks,
            toUInt32(countIf(uptime = 'up')) AS up, toUInt32(countIf(uptime = 'down')) AS down,
            toUInt32(countIf(uptime = 'unknown')) AS unknown, toUInt32(countIf(uptime = 'skipped')) AS skipped,
            toUInt32(countIf(result = 'pass')) AS pass, toUInt32(countIf(result = 'fail')) AS fail,
            toUInt32(countIf(result = 'unknown')) AS unknown_verdict, toUInt32(countIf(result = 'n/a')) AS na
     FROM run_samples FINAL
     WHERE run_id = {runId:String} AND checker_version = {cv:String} AND observed_at >= {since:DateTime64(3, 'UTC')}
       AND agent_id NOT IN (
         SELECT agent_id FROM agent_search_rows FINAL
         WHERE agent_id IN (
           SELECT agent_id FROM agent_search_terms
           WHERE term = 'opt_out:hidden'
             AND agent_id IN (SELECT agent_id FROM run_samples WHERE run_id = {runId:String} AND checker_version = {cv:String}))
           AND opt_out = 'hidden')`,
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

/** census_totals (clickhouse/0024): the census of a checker version as last recounted. */
export interface CensusTotalsRow extends LatestStateTotalsRow {
  active: number;
  inactive: number;
  as_of: DateTimeText | null;
  computed_at: DateTimeText;
}

/** The stored census of a checker version (one row by key), or null before its first count. */
export async function censusTotals(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<CensusTotalsRow | null> {
  const [row] = await wh.query<CensusTotalsRow>(
    `SELECT active, inactive, up, down, unknown, skipped, pass, fail, unknown_verdict, na, never, as_of, computed_at
     FROM census_totals FINAL WHERE checker_version = {cv:String} LIMIT 1`,
    { cv: checkerVersion },
  );
  return row ?? null;
}

/**
 * A mark of the agents table that changes whenever an agent is written (new, delisted, hidden):
 * its stored rows and newest version. The census keeper compares it to decide whether to recount;
 * a count from the table's parts and one column, not a FINAL read of every row.
 */
export async function agentsWriteMark(wh: ReadOnlyWarehouse): Promise<string> {
  const [row] = await wh.query<{ n: BigIntText; v: BigIntText }>('SELECT count() AS n, max(version) AS v FROM agents');
  return `${String(row?.n ?? 0)}:${String(row?.v ?? 0)}`;
}

/**
 * The checker version the API serves, read from small tables: the pinned one (checker_current),
 * else the version most recently counted (census_totals, recounted as its verdicts are written);
 * null when neither has a row (then v_checker_current__v2 decides; see checkerVersionShown).
 */
export async function checkerVersionServed(wh: ReadOnlyWarehouse): Promise<string | null> {
  const [row] = await wh.query<{ pinned: string; counted: string }>(
    `SELECT (SELECT argMax(checker_version, set_at) FROM checker_current) AS pinned,
            (SELECT argMax(checker_version, computed_at) FROM census_totals) AS counted`,
  );
  return row?.pinned || row?.counted || null;
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

/**
 * A page of agents in key order after `after`, hidden ones never (Methods §9), with the key the
 * next page starts after (null at the end). Read in rounds, as search reads (readInRounds): the
 * next stretch of keys, then that stretch's stored rows, each agent's newest version kept and
 * the filter applied here, so a page reads a bounded stretch of the key order, across parts too,
 * and a filtered page can come back short, or empty, with a next page. Neither read uses FINAL:
 * on a large table FINAL costs more than the rows it reads (about 15–25 ms a query at 1M agents
 * for a stretch of 16k rows), and the newest version of a stretch is easy to keep by hand.
 */
export async function agentsPage(wh: ReadOnlyWarehouse, f: AgentPageFilter): Promise<{ rows: AgentApiRow[]; next: string | null }> {
  // Unfiltered (active agents, the default) a stretch of twice a page is enough, unless many
  // agents in it are inactive or hidden; a filter that can match few reads the longest stretch.
  const filtered = Boolean(f.protocol || f.source || f.active !== 'true');
  type Stored = AgentApiRow & { optOut: string; version: BigIntText };
  let lastShown = '';
  return readInRounds<string, { agent_key: string }, AgentApiRow>({
    after: f.after,
    limit: f.limit,
    chunk: filtered ? LIST_CHUNK_MAX : Math.min(LIST_CHUNK_MAX, 2 * (f.limit + 1)),
    // A key stored twice (not merged yet) only shortens the stretch.
    read: (after, chunk) =>
      wh.query<{ agent_key: string }>(
        'SELECT agent_key FROM agents WHERE agent_key > {after:String} ORDER BY agent_key LIMIT {chunk:UInt32}',
        { after: after ?? '', chunk },
      ),
    keep: async (keys) => {
      if (keys.length === 0) return [];
      const stored = await wh.query<Stored>(
        `SELECT ${AGENT_COLUMNS}, opt_out AS optOut, version FROM agents
         WHERE agent_key >= {first:String} AND agent_key <= {last:String}`,
        { first: keys[0]!.agent_key, last: keys[keys.length - 1]!.agent_key },
      );
      // Each agent's newest version, as ReplacingMergeTree(version) keeps it, in key order.
      const newest = new Map<string, Stored>();
      for (const r of stored) {
        const cur = newest.get(r.key);
        if (!cur || BigInt(r.version) >= BigInt(cur.version)) newest.set(r.key, r);
      }
      const shown = [...newest.values()].filter((r) => r.optOut !== 'hidden').sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      lastShown = shown.at(-1)?.key ?? '';
      return shown
        .filter((r) => (!f.protocol || r.protocol === f.protocol) && (!f.source || r.sources.includes(f.source)))
        .filter((r) => f.active === 'all' || Number(r.active) === (f.active === 'true' ? 1 : 0))
        .map(({ optOut: _o, version: _v, ...row }) => row);
    },
    // The next stretch starts after its last agent that is not hidden (a cursor must not show a
    // hidden agent's key), or after its end when every agent in it is hidden.
    resumeAfter: (keys) => lastShown || keys[keys.length - 1]!.agent_key,
    cursorOf: (row) => row.key,
  });
}

/**
 * One agent by its short id, unless hidden: the id's key from agent_search_rows (keyed by id),
 * then the agents row by its key, so both reads are by primary key.
 */
export async function agentById(wh: ReadOnlyWarehouse, id: string): Promise<AgentApiRow | null> {
  const [row] = await wh.query<AgentApiRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents FINAL
     WHERE agent_key IN (SELECT agent_key FROM agent_search_rows WHERE agent_id = {id:String})
       AND agent_id = {id:String} AND opt_out != 'hidden' LIMIT 1`,
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

// ---- agent status (agent_status, clickhouse/0022) ----

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

// ---- agent lists and search (agent_search_terms, agent_search_rows, clickhouse/0023) ----

/** Where a list page starts: after this (natural sort key, agent id). */
export interface AgentListCursor {
  sortKey: string;
  id: string;
}

/** A listed agent as agent_search_rows has it. */
export interface AgentListRow {
  id: string;
  key: string;
  name: string;
  protocol: Protocol;
  sources: string[];
  optOut: string;
  sortKey: string;
}

export interface AgentListQuery {
  /** Lowercased words of the query (see searchWords); [] lists every agent. */
  words: readonly string[];
  protocol: string | null;
  after: AgentListCursor | null;
  limit: number;
  /** Only agents listed by this source. */
  source?: string | null;
  /** Only agents whose latest check (up, down, unknown) or verdict (pass, fail) under `checkerVersion` is this. */
  state?: AgentListState | null;
  checkerVersion?: string;
}

export type AgentListState = 'up' | 'down' | 'unknown' | 'pass' | 'fail';

/** Terms are word prefixes up to this many characters (clickhouse/0023). */
export const SEARCH_TERM_MAX = 24;
/** Postings read per round, at most, and rounds per page: a page reads a bounded number of rows whatever the index holds. */
const LIST_CHUNK_MAX = 2_000;
const LIST_ROUNDS = 4;

/** The words of a search as the index cuts them: lowercased runs of letters and digits. */
export function searchWords(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

const wordMatches = (w: string, nameWords: readonly string[], descWords: readonly string[]) =>
  nameWords.some((n) => n.startsWith(w)) || descWords.includes(w.slice(0, SEARCH_TERM_MAX));

/**
 * A page of active, unhidden agents in natural name order (then id), after a cursor: the postings
 * of one term (the query's longest word, or every agent), read in sort-key order a chunk at a time,
 * each checked against the agent's newest row (stale postings of renamed or delisted agents are
 * skipped; the other words of the query must match too). Reads at most LIST_ROUNDS chunks, so a
 * page costs the same on any index; `next` is where the following page starts (null at the end).
 */
export async function agentListPage(wh: ReadOnlyWarehouse, q: AgentListQuery): Promise<{ rows: AgentListRow[]; next: AgentListCursor | null }> {
  const words = [...q.words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const term = words[0] !== undefined ? words[0].slice(0, SEARCH_TERM_MAX) : q.protocol ? `protocol:${q.protocol}` : '';
  const seen = new Set<string>();
  type Posting = { sort_key: string; agent_id: string; version: BigIntText };
  return readInRounds<AgentListCursor, Posting, AgentListRow>({
    after: q.after,
    limit: q.limit,
    chunk: Math.min(LIST_CHUNK_MAX, 2 * q.limit + 10),
    // `term` leads the ORDER BY although it is fixed: without it the engine sorts the term's whole range instead of reading it in order.
    read: (after, chunk) =>
      wh.query<Posting>(
        `SELECT sort_key, agent_id, version FROM agent_search_terms
         WHERE term = {term:String} AND sort_key >= {sk:String} AND (sort_key > {sk:String} OR agent_id > {id:String})
         ORDER BY term, sort_key, agent_id LIMIT {chunk:UInt32}`,
        { term, sk: after?.sortKey ?? '', id: after?.id ?? '', chunk },
      ),
    keep: async (postings) => {
      const ids = [...new Set(postings.map((p) => p.agent_id))];
      // Every stored version of these agents (no FINAL: cheaper on a page of ids), the newest kept
      // below; the words only when the query has more than the one its postings matched.
      const rows = ids.length === 0 ? [] : await wh.query<{
        agent_id: string; agent_key: string; name: string; protocol: Protocol; sources: string[]; active: Flag; opt_out: string;
        sort_key: string; name_words?: string[]; desc_words?: string[]; version: BigIntText;
      }>(
        `SELECT agent_id, agent_key, name, protocol, sources, active, opt_out, sort_key, ${words.length > 1 ? 'name_words, desc_words, ' : ''}version
         FROM agent_search_rows WHERE agent_id IN {ids:Array(String)}`,
        { ids },
      );
      const current = new Map<string, (typeof rows)[number]>();
      for (const r of rows) {
        const cur = current.get(r.agent_id);
        if (!cur || BigInt(r.version) > BigInt(cur.version)) current.set(r.agent_id, r);
      }
      // The state filter reads these agents' agent_status rows by key (a chunk at most).
      const inState = q.state ? await agentKeysInState(wh, q.checkerVersion ?? '', q.state, [...current.values()].map((r) => r.agent_key)) : null;
      const found: AgentListRow[] = [];
      for (const p of postings) {
        const r = current.get(p.agent_id);
        if (!r || seen.has(p.agent_id) || String(r.version) !== String(p.version) || r.sort_key !== p.sort_key) continue;
        if (Number(r.active) !== 1 || r.opt_out === 'hidden' || (q.protocol && r.protocol !== q.protocol)) continue;
        if ((q.source && !r.sources.includes(q.source)) || (inState && !inState.has(r.agent_key))) continue;
        if (!words.slice(1).every((w) => wordMatches(w, r.name_words ?? [], r.desc_words ?? []))) continue;
        seen.add(p.agent_id);
        found.push({ id: r.agent_id, key: r.agent_key, name: r.name, protocol: r.protocol, sources: r.sources, optOut: r.opt_out, sortKey: r.sort_key });
      }
      return found;
    },
    resumeAfter: (postings) => {
      const tail = postings[postings.length - 1]!;
      return { sortKey: tail.sort_key, id: tail.agent_id };
    },
    cursorOf: (r) => ({ sortKey: r.sortKey, id: r.id }),
  });
}

/**
 * A filtered page over an ordered source at a cost bounded whatever the index holds: reads `chunk`
 * items after the cursor, keeps those `keep` accepts (in order), and goes on for at most
 * LIST_ROUNDS chunks until it has more than `limit`. `next` is the cursor after the page's last
 * row when there are more, where reading stopped when out of rounds (so a page can be short, even
 * empty, with a next one), and null at the end of the source.
 */
async function readInRounds<C, P, R>(o: {
  after: C | null;
  limit: number;
  chunk: number;
  read: (after: C | null, chunk: number) => Promise<P[]>;
  keep: (items: P[]) => Promise<R[]>;
  /** Where the next read starts, after a full chunk (non-empty). */
  resumeAfter: (items: P[]) => C;
  cursorOf: (row: R) => C;
}): Promise<{ rows: R[]; next: C | null }> {
  const found: R[] = [];
  let after = o.after;
  for (let round = 0; round < LIST_ROUNDS; round++) {
    const items = await o.read(after, o.chunk);
    found.push(...(await o.keep(items)));
    if (found.length > o.limit) {
      const page = found.slice(0, o.limit);
      return { rows: page, next: o.cursorOf(page[page.length - 1]!) };
    }
    if (items.length < o.chunk) return { rows: found, next: null };
    after = o.resumeAfter(items);
  }
  return { rows: found, next: after };
}

/** Which of these agents' latest check or verdict under a checker version is `state` (agent_status by key). */
async function agentKeysInState(wh: ReadOnlyWarehouse, checkerVersion: string, state: AgentListState, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const column = state === 'pass' || state === 'fail' ? 'latest_result' : 'latest_uptime';
  const rows = await wh.query<{ agent_key: string }>(
    `SELECT agent_key FROM agent_status FINAL
     WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND ${column} = {state:String}`,
    { cv: checkerVersion, keys: [...new Set(keys)], state },
  );
  return new Set(rows.map((r) => r.agent_key));
}

// ---- snapshots (`export`) ----

/** One file of a snapshot: the table, and the query whose rows it holds (parameters in ClickHouse's text form). */
export interface SnapshotQuery {
  table: string;
  sql: string;
  params: Record<string, string>;
}

/** Rows of agents whose owners asked to be hidden never leave the warehouse in a snapshot. */
const SNAPSHOT_HIDDEN = "agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";

/**
 * The snapshot's queries, one per table, each ordered by the table's whole dedupe key (unique
 * under FINAL), so the same data always gives the same bytes. `since` ('YYYY-MM-DD') keeps the
 * event and daily tables from that UTC day on; the agents, their listings, the listing history and the documents are
 * whole. agent_daily_history leaves out latency_digest (an engine aggregate state, not data).
 * Documents of hidden agents are left out by the host of their card or endpoint.
 */
export function snapshotQueries(since: string | null): SnapshotQuery[] {
  const params = { since: since ?? '1970-01-01' };
  const q = (table: string, sql: string): SnapshotQuery => ({ table, sql: sql.replace(/\s+/g, ' ').trim(), params });
  return [
    q('agents', `SELECT * FROM agents FINAL WHERE opt_out != 'hidden' ORDER BY agent_key`),
    q('listings', `SELECT * FROM listings FINAL WHERE ${SNAPSHOT_HIDDEN} ORDER BY source, item_id`),
    // Every listing event, with no --since: a verdict from that day on may rest on a listing event before it.
    q('listing_history', `SELECT * FROM listing_history FINAL WHERE ${SNAPSHOT_HIDDEN} ORDER BY source, item_id, observed_at, event_id`),
    q('checks', `SELECT * FROM checks FINAL WHERE observed_at >= toDateTime64({since:Date}, 3, 'UTC') AND ${SNAPSHOT_HIDDEN}
       ORDER BY agent_key, observed_at, event_id, checker_version`),
    q('verdicts', `SELECT * FROM verdicts FINAL WHERE observed_at >= toDateTime64({since:Date}, 3, 'UTC') AND ${SNAPSHOT_HIDDEN}
       ORDER BY checker_version, agent_key, observed_at, event_id`),
    q('daily_rollups', `SELECT * FROM daily_rollups FINAL WHERE day >= {since:Date} ORDER BY day, protocol, source, checker_version`),
    q('agent_daily_history', `SELECT * EXCEPT (latency_digest) FROM agent_daily_history FINAL WHERE day >= {since:Date} AND ${SNAPSHOT_HIDDEN}
       ORDER BY checker_version, agent_key, day`),
    q('documents', `SELECT * FROM documents FINAL WHERE domain(url) NOT IN
       (SELECT domain(if(card_url != '', card_url, endpoint_url)) FROM agents FINAL WHERE opt_out = 'hidden') ORDER BY sha256`),
  ];
}

// ---- the census report (seed 001's tables from the index) ----

/**
 * One A2A agent's structural verdict on a UTC day under a checker version: its newest verdict
 * that day (for the census counts) and whether that row was in the day's uniform sample (only
 * those feed estimates). Rows whose probe found no document (`a2a_route = ''`) are left out;
 * route `none` is a document with no recognised A2A claim. The three defects of seed 001 §5 are
 * read from the reasons: a wrongly typed protocolVersion, non-string skills[].tags items, and a
 * missing protocolVersion (the requirement the earlier "circular" argument set aside).
 */
export interface CensusCardRow {
  agent_key: string;
  in_sample: Flag;
  a2a_route: string;
  a2a_version: string;
  structure_result: string;
  tolerant_valid: Flag | null;
  alt_version: string;
  alt_valid: Flag | null;
  pv_wrong_type: Flag;
  tag_item_type: Flag;
  pv_missing: Flag;
}

export async function censusCardRows(wh: ReadOnlyWarehouse, checkerVersion: string, day: string): Promise<CensusCardRow[]> {
  return wh.query<CensusCardRow>(
    `SELECT agent_key, t.1 AS in_sample, t.2 AS a2a_route, t.3 AS a2a_version, t.4 AS structure_result, t.5 AS tolerant_valid,
            t.6 AS alt_version, t.7 AS alt_valid,
            toUInt8(arrayExists(r -> startsWith(r, 'A2A-STRUCT-002 #/protocolVersion:'), t.8)) AS pv_wrong_type,
            toUInt8(arrayExists(r -> match(r, '^A2A-STRUCT-003 #/skills/[0-9]+/tags/[0-9]+:'), t.8)) AS tag_item_type,
            toUInt8(arrayExists(r -> startsWith(r, 'A2A-STRUCT-001 #/protocolVersion:'), t.8)) AS pv_missing
     FROM (
       SELECT agent_key,
              argMax(tuple(in_sample, a2a_route, a2a_version, structure_result, tolerant_valid, alt_version, alt_valid, structure_reasons), (observed_at, event_id)) AS t
       FROM verdicts FINAL
       WHERE checker_version = {cv:String} AND protocol = 'a2a' AND a2a_route != ''
         AND observed_at >= toDateTime64({day:Date}, 3, 'UTC') AND observed_at < toDateTime64({day:Date} + 1, 3, 'UTC')
         AND agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')
       GROUP BY agent_key
     )
     ORDER BY agent_key`,
    { cv: checkerVersion, day },
  );
}

/** Active, unhidden agents grouped by the (sorted) set of sources that list them. */
export async function sourceSetCounts(wh: ReadOnlyWarehouse): Promise<Array<{ sources: string[]; agents: number }>> {
  return wh.query<{ sources: string[]; agents: number }>(
    `SELECT arraySort(arrayDistinct(sources)) AS sources, toUInt32(count()) AS agents
     FROM agents FINAL WHERE active = 1 AND opt_out != 'hidden' AND length(sources) > 0
     GROUP BY sources ORDER BY sources`,
  );
}

/**
 * Each unhidden agent's newest check of a UTC day under a checker version, with its verdict's
 * result and whether it was in the day's sample, counted by (sources, in_sample, uptime, result).
 */
export async function sourceOutcomeCounts(
  wh: ReadOnlyWarehouse,
  checkerVersion: string,
  day: string,
): Promise<Array<{ sources: string[]; in_sample: Flag; uptime: string; result: string; agents: number }>> {
  return wh.query<{ sources: string[]; in_sample: Flag; uptime: string; result: string; agents: number }>(
    `SELECT a.sources AS sources, c.t.2 AS in_sample, c.t.3 AS uptime, if(v.event_id = '', '', v.result) AS result, toUInt32(count()) AS agents
     FROM (
       SELECT agent_key, argMax(tuple(event_id, in_sample, uptime), (observed_at, event_id)) AS t
       FROM checks FINAL
       WHERE checker_version = {cv:String}
         AND observed_at >= toDateTime64({day:Date}, 3, 'UTC') AND observed_at < toDateTime64({day:Date} + 1, 3, 'UTC')
       GROUP BY agent_key
     ) AS c
     INNER JOIN (SELECT agent_key, arraySort(arrayDistinct(sources)) AS sources FROM agents FINAL WHERE opt_out != 'hidden') AS a ON a.agent_key = c.agent_key
     LEFT JOIN (SELECT event_id, result FROM verdicts FINAL WHERE checker_version = {cv:String}
                  AND observed_at >= toDateTime64({day:Date}, 3, 'UTC') AND observed_at < toDateTime64({day:Date} + 1, 3, 'UTC')) AS v
       ON v.event_id = c.t.1
     GROUP BY sources, in_sample, uptime, result
     ORDER BY sources, in_sample, uptime, result`,
    { cv: checkerVersion, day },
  );
}

/** The newest UTC day with a verdict under a checker version, or null. */
export async function newestVerdictDay(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<string | null> {
  const [row] = await wh.query<{ day: string | null }>(
    `SELECT if(count() = 0, NULL, toDate(max(observed_at), 'UTC')) AS day FROM verdicts WHERE checker_version = {cv:String}`,
    { cv: checkerVersion },
  );
  return row?.day ?? null;
}

// ---- agent changes (feeds, the agent page's history, issue 14) ----

export interface AgentChangesQuery {
  /** One agent's changes (its short id), or the ecosystem's. */
  agentId?: string | undefined;
  /** Verdict and correction changes of this checker version only (the others have none). */
  checkerVersion: string | null;
  kinds?: readonly AgentChangeRow['kind'][] | undefined;
  limit: number;
}

/**
 * The ids of the agents whose owners asked to be hidden, read through their own postings
 * ('opt_out:hidden', clickhouse/0023: every hidden agent has one) and checked against their newest
 * search row (an agent no longer hidden keeps its old posting): as many rows as hidden agents,
 * whatever the index holds.
 */
const HIDDEN_AGENT_IDS = `(SELECT agent_id FROM agent_search_rows FINAL
   WHERE agent_id IN (SELECT agent_id FROM agent_search_terms WHERE term = 'opt_out:hidden') AND opt_out = 'hidden')`;

/**
 * The newest changes first, of agents that are not hidden (Methods §9). Verdict and correction
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

// ---- webhook deliveries (src/producers/webhooks) ----

/**
 * What the webhook deliverer must know before it sends one change: the subscriptions that already
 * have a final outcome for it (`webhook_deliveries`, by its sort key), and whether the agent's
 * owner asked to be hidden (then nothing is sent).
 */
export async function webhookDeliveryContext(
  wh: ReadOnlyWarehouse,
  q: { changeId: string; subscriptionIds: readonly string[]; agentKey: string },
): Promise<{ settled: Set<string>; hidden: boolean }> {
  const rows = await wh.query<{ settled: string[]; hidden: number | string }>(
    `SELECT
       (SELECT groupUniqArray(subscription_id) FROM webhook_deliveries FINAL
         WHERE subscription_id IN {subs:Array(String)} AND change_id = {change:String}) AS settled,
       (SELECT toUInt8(count() > 0) FROM agents FINAL WHERE agent_key = {key:String} AND opt_out = 'hidden') AS hidden`,
    { subs: [...q.subscriptionIds], change: q.changeId, key: q.agentKey },
  );
  const r = rows[0];
  return { settled: new Set(r?.settled ?? []), hidden: Number(r?.hidden ?? 0) === 1 };
}

// ---- deriving agent changes (the changes and dedupe processors, issue 14) ----

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
export async function checksOfProbes(wh: ReadOnlyWarehouse, checkerVersion: string, refs: readonly ProbeRef[]): Promise<Array<{ event_id: string; uptime: UptimeState; reason: string }>> {
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
export async function verdictsOfProbes(wh: ReadOnlyWarehouse, checkerVersion: string, refs: readonly ProbeRef[]): Promise<Array<{ event_id: string; result: VerdictResult; reasons: string[] }>> {
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

/** Whether each of these agents' stored row is active (keys without a row are absent). */
export async function agentsActive(wh: ReadOnlyWarehouse, keys: readonly string[]): Promise<Map<string, boolean>> {
  if (keys.length === 0) return new Map();
  const rows = await wh.query<{ agent_key: string; active: Flag }>(
    'SELECT agent_key, active FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
    { keys: [...keys] },
  );
  return new Map(rows.map((r) => [r.agent_key, Number(r.active) === 1]));
}

// ---- disputes and the corrections log (Methods §9, issue 14) ----

/** An agent as `veronikai dispute` needs it: what to re-probe, and whether its owner opted out. */
export interface DisputedAgentRow {
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  name: string;
  active: Flag;
  opt_out: '' | 'unchecked' | 'hidden';
  opt_out_reason: string;
  endpoint_url: string;
  card_url: string;
  /** A live listing's endpoint transport ('' when none says). */
  transport: string;
}

/** The agents with these keys or this short id (hidden and opted-out ones too: the caller decides), at most `limit`. */
export async function agentsForDispute(wh: ReadOnlyWarehouse, q: { keys: readonly string[]; agentId?: string | null; limit?: number }): Promise<DisputedAgentRow[]> {
  return wh.query<DisputedAgentRow>(
    `SELECT a.agent_key AS agent_key, a.agent_id AS agent_id, a.protocol AS protocol, a.name AS name, a.active AS active,
            a.opt_out AS opt_out, a.opt_out_reason AS opt_out_reason, a.endpoint_url AS endpoint_url, a.card_url AS card_url,
            ifNull(t.transport, '') AS transport
     FROM (SELECT * FROM agents FINAL WHERE agent_key IN {keys:Array(String)} OR agent_id = {id:String}) AS a
     LEFT JOIN (SELECT agent_key, anyIf(endpoint_transport, endpoint_transport != '') AS transport FROM listings FINAL
                WHERE tombstoned = 0 AND (agent_key IN {keys:Array(String)} OR agent_key IN (SELECT agent_key FROM agents WHERE agent_id = {id:String}))
                GROUP BY agent_key) AS t ON t.agent_key = a.agent_key
     ORDER BY a.agent_key LIMIT {limit:UInt32}`,
    { keys: [...q.keys], id: q.agentId ?? '', limit: q.limit ?? 10 },
  );
}

/** A probe as judged under one checker version: its check and its verdict. */
export interface JudgedProbeRow {
  event_id: string;
  agent_key: string;
  observed_at: DateTimeText;
  uptime: UptimeState;
  reason: string;
  result: VerdictResult;
  reasons: string[];
}

/** The probes among `eventIds` (of these agents) that have both a check and a verdict of `checkerVersion`. */
export async function judgedProbes(wh: ReadOnlyWarehouse, q: { checkerVersion: string; agentKeys: readonly string[]; eventIds: readonly string[] }): Promise<JudgedProbeRow[]> {
  if (q.eventIds.length === 0) return [];
  const params = { cv: q.checkerVersion, keys: [...q.agentKeys], ids: [...q.eventIds] };
  return wh.query<JudgedProbeRow>(
    `SELECT c.event_id AS event_id, c.agent_key AS agent_key, c.observed_at AS observed_at, c.uptime AS uptime, c.reason AS reason,
            v.result AS result, v.reasons AS reasons
     FROM (SELECT event_id, agent_key, observed_at, uptime, reason FROM checks FINAL
           WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND event_id IN {ids:Array(String)}) AS c
     INNER JOIN (SELECT event_id, result, reasons FROM verdicts FINAL
                 WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND event_id IN {ids:Array(String)}) AS v
       ON v.event_id = c.event_id`,
    params,
  );
}

/** The corrections rows of these disputes (of these agents), as stored. */
export async function correctionsByDispute(wh: ReadOnlyWarehouse, q: { agentKeys: readonly string[]; disputeIds: readonly string[] }): Promise<CorrectionRow[]> {
  if (q.disputeIds.length === 0) return [];
  return wh.query<CorrectionRow>(
    'SELECT * FROM corrections FINAL WHERE agent_key IN {keys:Array(String)} AND dispute_id IN {ids:Array(String)}',
    { keys: [...q.agentKeys], ids: [...q.disputeIds] },
  );
}

/**
 * One agent's corrections log (by key, or by short id), newest dispute first, at most `limit` rows;
 * nothing for a hidden agent (Methods §9).
 */
export async function correctionsOfAgent(wh: ReadOnlyWarehouse, agent: { agentKey: string } | { agentId: string }, limit: number): Promise<CorrectionRow[]> {
  const byKey = 'agentKey' in agent;
  return wh.query<CorrectionRow>(
    `SELECT * FROM corrections FINAL
     WHERE ${byKey ? 'agent_key = {agent:String}' : 'agent_id = {agent:String}'} AND agent_key NOT IN ${HIDDEN_AGENT_KEYS}
     ORDER BY requested_at DESC, dispute_id DESC LIMIT {limit:UInt32}`,
    { agent: byKey ? agent.agentKey : agent.agentId, limit },
  );
}
