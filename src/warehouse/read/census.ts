import type { DateTimeText } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { HIDDEN_AGENT_KEYS } from './hidden.js';
import type { SampleCountsRow } from './runs.js';

/**
 * The census: every active, unhidden agent's latest state under a checker version, counted live
 * (agents, agent_latest) or as last recounted (census_totals, clickhouse/0024).
 */

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

/** The newest latest-state observation of an unhidden agent under a checker version, or null when nothing was checked. */
export async function newestLatestObservation(wh: ReadOnlyWarehouse, checkerVersion: string): Promise<DateTimeText | null> {
  const [row] = await wh.query<{ as_of: DateTimeText | null }>(
    `SELECT if(count() = 0, NULL, max(observed_at)) AS as_of FROM agent_latest FINAL
     WHERE checker_version = {cv:String} AND agent_key NOT IN ${HIDDEN_AGENT_KEYS}`,
    { cv: checkerVersion },
  );
  return row?.as_of ?? null;
}
