/**
 * Read-only connections of our own code (the API's reads). Someone's SQL never runs on these: it
 * goes through a raw reader, whose every statement passes the engine's guard (guard/guard.ts).
 */

/** Options both adapters take. */
export interface ConnectionOptions {
  /**
   * A read-only connection: the engine's `readonly=1` (no writes, no setting changes; on the
   * embedded engine also no introspection functions), and exec and insert refused.
   */
  readOnly?: boolean;
  /**
   * Deadline of a call in milliseconds: the client gives up, and the engine is
   * told `max_execution_time` (whole seconds, rounded up) so it stops the work
   * too. Default: no deadline.
   */
  timeoutMs?: number;
  /**
   * Rows per block the engine reads (`max_block_size`). A query that reads in key order and stops
   * at its LIMIT still reads whole blocks (65k rows by default, per thread); the API's connection
   * sets a small block so a page reads about what it shows (API_MAX_BLOCK_ROWS). Default: the engine's.
   */
  maxBlockRows?: number;
}

/** Engine settings of a connection with these options. */
export function connectionSettings(options: ConnectionOptions): Record<string, number> {
  return {
    ...(options.readOnly ? { readonly: 1 } : {}),
    ...(options.timeoutMs === undefined ? {} : { max_execution_time: Math.max(1, Math.ceil(options.timeoutMs / 1000)) }),
    ...(options.maxBlockRows === undefined ? {} : { max_block_size: options.maxBlockRows }),
  };
}
