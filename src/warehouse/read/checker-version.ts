import { VIEWS } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';

/** Which checker version a reader shows: what the views say, or what the small tables pinned or counted. */

/** The checker version the *_current views show, or null while the warehouse has none. */
export async function checkerVersionShown(wh: ReadOnlyWarehouse): Promise<string | null> {
  const [row] = await wh.query<{ checker_version: string | null }>(`SELECT checker_version FROM ${VIEWS.checkerCurrent}`);
  return row?.checker_version ? row.checker_version : null;
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
