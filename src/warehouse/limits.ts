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
