/** Limits of reading the warehouse, in one place. */

/**
 * Deadline of one API query (client and engine side). chdb serialises
 * parameterised calls process-wide, so a slow query holds up every request
 * behind it: better a 503 for that one after 10 s than a stalled API.
 */
export const API_QUERY_DEADLINE_MS = 10_000;

/** Rows `sql` prints unless `--max-rows` says otherwise. */
export const SQL_DEFAULT_MAX_ROWS = 10_000;
