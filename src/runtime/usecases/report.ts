import type { Config } from '../../config.js';
import { CHECKER_VERSION } from '../../conformance/index.js';
import { buildCensusReport, type CensusReport } from '../../stats/census-report.js';
import { checkerVersionShown } from '../../warehouse/read/checker-version.js';
import type { Flag } from '../../warehouse/rows.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';
import { openRawReader, warehouseOver } from '../instance-query.js';

// ---- what the census report reads ----

/**
 * One A2A agent's structural verdict on a UTC day under a checker version: its newest verdict
 * that day (for the census counts) and whether that row was in the day's uniform sample (only
 * those feed estimates). Rows whose probe found no document (`a2a_route = ''`) are left out;
 * route `none` is a document with no recognised A2A claim. The three defects the report counts
 * are read from the reasons: a wrongly typed protocolVersion, non-string skills[].tags items, and
 * a missing protocolVersion.
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

// ---- the report ----

/** The census report of one UTC day (default: the newest day with verdicts) from a warehouse. */
export async function censusReportFrom(
  wh: ReadOnlyWarehouse,
  opts: { day?: string | null; checkerVersion?: string | null } = {},
): Promise<CensusReport> {
  const cv = opts.checkerVersion ?? (await checkerVersionShown(wh)) ?? CHECKER_VERSION;
  const day = opts.day ?? (await newestVerdictDay(wh, cv)) ?? new Date().toISOString().slice(0, 10);
  const [cards, sourceSets, outcomes] = [
    await censusCardRows(wh, cv, day),
    await sourceSetCounts(wh),
    await sourceOutcomeCounts(wh, cv, day),
  ];
  return buildCensusReport({
    day,
    checkerVersion: cv,
    cards: cards.map((c) => ({
      inSample: Number(c.in_sample) === 1,
      route: c.a2a_route,
      version: c.a2a_version,
      result: c.structure_result,
      tolerantValid: c.tolerant_valid === null ? null : Number(c.tolerant_valid) === 1,
      altVersion: c.alt_version,
      altValid: c.alt_valid === null ? null : Number(c.alt_valid) === 1,
      pvWrongType: Number(c.pv_wrong_type) === 1,
      tagItemType: Number(c.tag_item_type) === 1,
      pvMissing: Number(c.pv_missing) === 1,
    })),
    sourceSets: sourceSets.map((s) => ({ sources: s.sources, agents: Number(s.agents) })),
    outcomes: outcomes.map((o) => ({
      sources: o.sources,
      inSample: Number(o.in_sample) === 1,
      uptime: o.uptime,
      result: o.result,
      agents: Number(o.agents),
    })),
  });
}

/** The census report of the configured embedded warehouse (through the running instance when one holds it). */
export async function censusReport(config: Config, opts: { day?: string | null } = {}): Promise<CensusReport> {
  const { reader } = await openRawReader(config);
  try {
    return await censusReportFrom(warehouseOver(reader), opts);
  } finally {
    await reader.close();
  }
}
