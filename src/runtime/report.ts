import type { Config } from '../config.js';
import { CHECKER_VERSION } from '../conformance/index.js';
import { buildCensusReport, type CensusReport } from '../stats/census-report.js';
import { censusCardRows, checkerVersionShown, newestVerdictDay, sourceOutcomeCounts, sourceSetCounts } from '../warehouse/queries.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { openRawReader, warehouseOver } from './instance-query.js';

/** The census report of one UTC day (default: the newest day with verdicts) from a warehouse. */
export async function censusReportFrom(wh: ReadOnlyWarehouse, opts: { day?: string | null; checkerVersion?: string | null } = {}): Promise<CensusReport> {
  const cv = opts.checkerVersion ?? (await checkerVersionShown(wh)) ?? CHECKER_VERSION;
  const day = opts.day ?? (await newestVerdictDay(wh, cv)) ?? new Date().toISOString().slice(0, 10);
  const [cards, sourceSets, outcomes] = [await censusCardRows(wh, cv, day), await sourceSetCounts(wh), await sourceOutcomeCounts(wh, cv, day)];
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
    outcomes: outcomes.map((o) => ({ sources: o.sources, inSample: Number(o.in_sample) === 1, uptime: o.uptime, result: o.result, agents: Number(o.agents) })),
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
