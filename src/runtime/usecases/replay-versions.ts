import type { VerdictResult } from '../../warehouse/rows.js';
import { checkerVersionShown } from '../../warehouse/read/checker-version.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';

/**
 * What replay reads to compare two checker versions: which version it is compared with, how many
 * verdict rows a version has, and the two versions' results on the probe events both judged.
 */

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
export async function versionChangedAgents(
  wh: ReadOnlyWarehouse,
  previous: string,
  current: string,
  limit: number,
): Promise<ChangedAgentRow[]> {
  return wh.query<ChangedAgentRow>(
    `SELECT n.agent_key AS agent_key, argMax(o.result, n.observed_at) AS old_result,
            argMax(n.result, n.observed_at) AS new_result, toUInt32(count()) AS events
     FROM ${VERSION_PAIR} WHERE o.result != n.result
     GROUP BY agent_key ORDER BY agent_key LIMIT {limit:UInt32}`,
    { old: previous, new: current, limit },
  );
}

/** The UTC days ('YYYY-MM-DD') on which a checker version has checks, inside the raw tables' TTL. */
export async function checkedDays(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<string[]> {
  const rows = await wh.query<{ day: string }>(
    `SELECT DISTINCT toString(toDate(observed_at, 'UTC')) AS day FROM checks WHERE checker_version = {cv:String} ORDER BY day`,
    { cv: checkerVersion },
  );
  return rows.map((r) => r.day);
}
