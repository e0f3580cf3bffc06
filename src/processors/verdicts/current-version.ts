import { refreshCensus } from '../../warehouse/rollups.js';
import type { Warehouse } from '../../warehouse/warehouse.js';

/**
 * Pins the checker version the analyst views (v_checker_current__v2) and the API show.
 * Called once a version's verdict processor has caught up with the probes topic, so a
 * replay in progress never flips the views to a half-judged version. Writes a row only
 * when the pinned version changes. Either way the version's census is recounted
 * (census_totals): the verdicts have caught up, so this count is the run's final one.
 */
export async function pinCheckerVersion(warehouse: Warehouse, version: string, note: string): Promise<boolean> {
  await refreshCensus(warehouse, version);
  const [row] = await warehouse.query<{ v: string }>('SELECT argMax(checker_version, set_at) AS v FROM checker_current');
  if (row?.v === version) return false;
  await warehouse.insert('checker_current', [{ checker_version: version, set_at: new Date(), note }]);
  return true;
}
