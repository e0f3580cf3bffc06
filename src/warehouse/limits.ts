/** Limits of reading the warehouse, in one place. */

/**
 * Deadline of one API query (client and engine side). chdb serialises
 * parameterised calls process-wide, so a slow query holds up every request
 * behind it: better a 503 for that one after 10 s than a stalled API.
 */
export const API_QUERY_DEADLINE_MS = 10_000;

/**
 * Rows per block on the API's connection (max_block_size). API queries read a page by key or in
 * key order up to a LIMIT; with the engine's default block (65,409 rows per thread) such a query
 * reads 100k+ rows whatever it shows, so a read that should cost a page costs a slice of the index.
 */
export const API_MAX_BLOCK_ROWS = 1024;

/** How the API opens its warehouse: read-only, with the query deadline and the small block. */
export const API_CONNECTION = { readOnly: true, timeoutMs: API_QUERY_DEADLINE_MS, maxBlockRows: API_MAX_BLOCK_ROWS } as const;

/** Rows `sql` prints unless `--max-rows` says otherwise. */
export const SQL_DEFAULT_MAX_ROWS = 10_000;

/** What the engine enforces on every statement of a query session, before a result is built. */
export interface QuerySessionLimits {
  /** Bytes of a result (uncompressed blocks; `max_result_bytes`). */
  maxResultBytes?: number;
  /** Rows of a result (`max_result_rows`). */
  maxResultRows?: number;
  /** Memory one statement may use (`max_memory_usage`). */
  maxMemoryBytes?: number;
}

/**
 * The public ClickHouse interface's session: a result stops at 128 MiB or 10 million rows and a
 * statement at 2 GiB of memory, in the engine (`result_overflow_mode=throw`), so a one-piece
 * format such as JSON cannot grow the process past them; its deadline is CLICKHOUSE_HTTP_LIMITS'.
 */
export const PUBLIC_QUERY_LIMITS: QuerySessionLimits = {
  maxResultBytes: 128 * 1024 * 1024,
  maxResultRows: 10_000_000,
  maxMemoryBytes: 2 * 1024 ** 3,
};

/**
 * The owner's sessions (`sql`, `export`, `report`, locally or through the private endpoint): no
 * result cap (an export is one result as large as its table), but a statement's memory is bounded
 * so a runaway read fails instead of taking the process down.
 */
export const OWNER_QUERY_LIMITS: QuerySessionLimits = { maxMemoryBytes: 8 * 1024 ** 3 };

/**
 * Memory the embedded engine may hold in all, for every session of the process
 * (`max_server_memory_usage`). A result's output is not counted against a statement's
 * `max_memory_usage`, and a constant column escapes `max_result_bytes`, so this is what stops such
 * a result before the process is killed; the processors' own work stays far below it.
 */
export const ENGINE_MEMORY_CAP_BYTES = 8 * 1024 ** 3;

/** Engine settings of these limits. */
export function engineLimitSettings(limits: QuerySessionLimits): Record<string, number | string> {
  return {
    ...(limits.maxResultBytes === undefined ? {} : { max_result_bytes: limits.maxResultBytes }),
    ...(limits.maxResultRows === undefined ? {} : { max_result_rows: limits.maxResultRows }),
    ...(limits.maxResultBytes === undefined && limits.maxResultRows === undefined ? {} : { result_overflow_mode: 'throw' }),
    ...(limits.maxMemoryBytes === undefined ? {} : { max_memory_usage: limits.maxMemoryBytes }),
  };
}
