import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { migrate, type MigrateResult } from '../../warehouse/migrate.js';
import { openWarehouse, type OpenOptions } from '../../warehouse/open.js';
import type { QueryParams, Warehouse } from '../../warehouse/warehouse.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { findInstance, instancePath } from '../instance.js';
import { readRows, sqlOnInstance } from '../instance-query.js';
import { EmbeddedRawReader } from '../../warehouse/raw-reader.js';
import { OWNER_QUERY_LIMITS } from '../../warehouse/limits.js';
import { engineFormatted } from '../../warehouse/guard/guard.js';

/** Opens the configured warehouse for one task and closes it after, whatever happens. */
export async function withWarehouse<T>(config: Config, opts: OpenOptions, task: (w: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await openWarehouse(config.warehouse, opts);
  try {
    return await task(warehouse);
  } finally {
    await warehouse.close();
  }
}

/** Applies the pending migrations (or lists them, dry). */
export function migrateWarehouse(config: Config, log: Logger, dryRun = false): Promise<MigrateResult> {
  return withWarehouse(config, { createDatabase: !dryRun }, (w) =>
    migrate(w, { logger: log, cluster: config.clickhouseCluster, ...(dryRun ? { dryRun: true } : {}) }),
  );
}

/** Statements that return rows; anything else (DDL, INSERT, OPTIMIZE, …) runs without a result. */
const RETURNS_ROWS = new Set(['SELECT', 'WITH', 'SHOW', 'DESC', 'DESCRIBE', 'EXISTS', 'EXPLAIN', 'CHECK', 'VALUES']);

/** Whether the statement, as the engine formats it, returns rows. */
function returnsRows(formatted: string): boolean {
  const first = /^[(\s]*([A-Za-z]+)/.exec(formatted)?.[1] ?? '';
  return RETURNS_ROWS.has(first.toUpperCase());
}

export interface SqlOptions {
  params?: QueryParams;
  /** A writing connection; without it the statement runs on a read-only one (see warehouse/read-only.ts). */
  write?: boolean;
  /** Stop after this many rows; 0 or absent: no limit. */
  maxRows?: number;
  /** Told when an instance file names a live process that is not a proven instance (the read then opens the warehouse here). */
  onStaleInstance?: (note: string) => void;
}

export interface SqlOutcome {
  /** False for a statement without a result (only with `write`). */
  returnedRows: boolean;
  rows: number;
  /** True when maxRows cut the result short. */
  truncated: boolean;
}

/**
 * Runs one statement and hands each batch of rows to `onRows` as the engine
 * produces it (awaited, so a slow reader holds the query back instead of rows
 * piling up). A read stops at `config.sqlTimeoutMs` (the engine's max_execution_time; on a
 * running instance, by leaving the request, which stops the query there).
 */
export async function runSql(
  config: Config,
  query: string,
  opts: SqlOptions,
  onRows: (rows: Record<string, unknown>[]) => void | Promise<void>,
): Promise<SqlOutcome> {
  // The embedded engine is one process per data directory: while `run` or `api` holds it, reads go to that process.
  if (config.warehouse.kind === 'embedded') {
    const found = await findInstance(config.dataDir);
    if (found.state === 'running') {
      if (opts.write)
        throw new WarehouseError(
          'refused',
          `a running instance (pid ${found.info.pid}) holds ${config.dataDir}: stop it to use --write (reads go to it)`,
        );
      return sqlOnInstance(found.info, query, { ...opts, timeoutMs: config.sqlTimeoutMs }, onRows);
    }
    if (found.state === 'stale' && !found.removed)
      opts.onStaleInstance?.(`not using ${instancePath(config.dataDir)}: ${found.reason}; opening the warehouse here`);
  }
  if (!opts.write) {
    if (config.warehouse.kind === 'embedded') {
      // Someone's SQL: through a raw reader, whose guard lets the engine decide what it is.
      const reader = new EmbeddedRawReader(config.warehouse.path, { timeoutMs: config.sqlTimeoutMs, limits: OWNER_QUERY_LIMITS });
      try {
        return await readRows(reader, query, opts, onRows, undefined);
      } finally {
        await reader.close();
      }
    }
    // A ClickHouse server decides itself: one statement a request, readonly=1, its own file sandbox.
    return withWarehouse(config, { readOnly: true, timeoutMs: config.sqlTimeoutMs }, (w) =>
      streamRows(w.stream(query, opts.params), opts, onRows),
    );
  }
  return withWarehouse(config, {}, async (w) => {
    // chdb would run every statement of a string: the engine's formatter refuses a second one. The
    // text itself runs (the formatter leaves an INSERT's inline data out), and --write is the
    // owner's full power anyway.
    const formatted = await engineFormatted(w, query);
    if (!returnsRows(formatted)) {
      await w.exec(query, opts.params);
      return { returnedRows: false, rows: 0, truncated: false };
    }
    return streamRows(w.stream(query, opts.params), opts, onRows);
  });
}

async function streamRows(
  batches: AsyncIterable<Record<string, unknown>[]>,
  opts: SqlOptions,
  onRows: (rows: Record<string, unknown>[]) => void | Promise<void>,
): Promise<SqlOutcome> {
  const limit = opts.maxRows !== undefined && opts.maxRows > 0 ? opts.maxRows : Infinity;
  let rows = 0;
  // Leaving the loop early stops the query in the engine.
  for await (const batch of batches) {
    const room = limit - rows;
    await onRows(batch.length > room ? batch.slice(0, room) : batch);
    rows += Math.min(batch.length, room);
    if (batch.length > room) return { returnedRows: true, rows, truncated: true };
  }
  return { returnedRows: true, rows, truncated: false };
}
