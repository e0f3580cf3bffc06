import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { migrate, type MigrateResult } from '../warehouse/migrate.js';
import { openWarehouse } from '../warehouse/open.js';
import type { QueryParams, Warehouse } from '../warehouse/warehouse.js';

/** Opens the configured warehouse for one task and closes it after, whatever happens. */
export async function withWarehouse<T>(config: Config, opts: { createDatabase?: boolean }, task: (w: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await openWarehouse(config.warehouse, opts);
  try {
    return await task(warehouse);
  } finally {
    await warehouse.close();
  }
}

/** Applies the pending migrations (or lists them, dry). */
export function migrateWarehouse(config: Config, log: Logger, dryRun = false): Promise<MigrateResult> {
  return withWarehouse(config, { createDatabase: !dryRun }, (w) => migrate(w, { logger: log, ...(dryRun ? { dryRun: true } : {}) }));
}

/** Statements that return rows; anything else (DDL, INSERT, OPTIMIZE, …) runs without a result. */
const RETURNS_ROWS = /^(?:\(|select\b|with\b|show\b|desc\b|describe\b|exists\b|explain\b|check\b|values\b)/i;

function stripLeadingComments(sql: string): string {
  let s = sql.trimStart();
  for (;;) {
    if (s.startsWith('--')) {
      const nl = s.indexOf('\n');
      s = nl < 0 ? '' : s.slice(nl + 1).trimStart();
    } else if (s.startsWith('/*')) {
      const end = s.indexOf('*/');
      s = end < 0 ? '' : s.slice(end + 2).trimStart();
    } else {
      return s;
    }
  }
}

/** Runs one statement; resolves with its rows, or null for a statement that returns none. */
export function runSql(config: Config, query: string, params?: QueryParams): Promise<Record<string, unknown>[] | null> {
  return withWarehouse(config, {}, async (w) => {
    if (RETURNS_ROWS.test(stripLeadingComments(query))) return w.query(query, params);
    await w.exec(query, params);
    return null;
  });
}
