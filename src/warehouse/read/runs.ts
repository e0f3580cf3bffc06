import type { Flag, OutcomeCounts, RunRow } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';

/** Daily runs (runs) and what a run's sample found (run_samples, clickhouse/0025). */

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
  return wh.query<RunPhaseRow>('SELECT phase, observed_at, seed, counts, complete, note FROM runs FINAL WHERE run_id = {runId:String}', {
    runId,
  });
}

export type SampleCountsRow = OutcomeCounts;

/**
 * A run's in-sample checks of unhidden agents under a checker version, by uptime state and verdict,
 * from run_samples (clickhouse/0025): the run's own rows, at most its sample size, whatever the
 * index holds. Hidden agents come from their own postings ('opt_out:hidden', clickhouse/0023),
 * checked against their newest row only where they meet the sample. `since` (the run's start)
 * bounds the rows further.
 */
export async function runSampleCounts(
  wh: ReadOnlyWarehouse,
  runId: string,
  checkerVersion: string,
  since: Date,
): Promise<SampleCountsRow | null> {
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
