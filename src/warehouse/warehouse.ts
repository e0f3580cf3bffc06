import { WarehouseError } from './errors.js';
import type { InsertRow, TableName } from './tables.js';

/**
 * Values for `{name:Type}` query parameters. They are bound by the engine,
 * never spliced into the SQL text. A `Date` is sent as
 * 'YYYY-MM-DD HH:MM:SS.mmm' in UTC, so bind it to a `DateTime64(3, 'UTC')`
 * placeholder; a `bigint` keeps all 64 bits; `null` binds SQL NULL to a
 * Nullable placeholder.
 */
export type QueryParamValue =
  string | number | bigint | boolean | Date | null | readonly QueryParamValue[] | { readonly [key: string]: QueryParamValue };
export type QueryParams = Readonly<Record<string, QueryParamValue>>;

/**
 * The one port the rest of the code uses to reach ClickHouse, whether it is
 * the embedded engine (chdb, in-process) or a server over HTTP.
 *
 * Result rows are parsed from JSONEachRow and are the same on both adapters:
 * - 64-bit integers (UInt64, Int64, `count()`) come back as strings, so no
 *   precision is lost (cast in SQL, e.g. `toUInt32(count())`, to get a number);
 * - DateTime64(3, 'UTC') comes back as 'YYYY-MM-DD HH:MM:SS.mmm' (UTC);
 * - Map as an object, Array as an array, Nullable NULL as null.
 *
 * Rows given to `insert` may carry `Date` values (written as UTC
 * 'YYYY-MM-DD HH:MM:SS.mmm') and `bigint`s; date-time strings are parsed
 * best-effort (ISO 8601 with a zone works). A field that is not a column of
 * the table is an error, not silently dropped.
 */
export interface ReadOnlyWarehouse {
  readonly kind: 'embedded' | 'server';
  /** True when the connection refuses writes (see `openWarehouse(…, { readOnly: true })`). */
  readonly readOnly: boolean;
  /** Runs one statement that returns rows (SELECT, SHOW, DESCRIBE, EXISTS, …). */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs one statement that returns rows and yields them in batches as the
   * engine produces them (a block, or what one read of the response held), so
   * a large result is never held whole. Breaking out of the loop stops the
   * query. One stream at a time per connection.
   */
  stream<T = Record<string, unknown>>(sql: string, params?: QueryParams): AsyncIterable<T[]>;
  /** Releases the connection. Idempotent. */
  close(): Promise<void>;
}

/** A connection that may also write: only migrations, processors and `sql --write` get one. */
export interface Warehouse extends ReadOnlyWarehouse {
  /** Runs one statement whose result is not needed (DDL, INSERT … SELECT, OPTIMIZE, …). */
  exec(sql: string, params?: QueryParams): Promise<void>;
  /** Appends rows to a table (`INSERT INTO table FORMAT JSONEachRow`), each the row its table takes (tables.ts). */
  insert<T extends TableName>(table: T, rows: readonly InsertRow<T>[]): Promise<void>;
}

/** What a read-only connection answers to exec and insert. */
/**
 * Our own statement as it goes to the engine: without trailing semicolons. Someone's SQL never
 * comes here unguarded (see guard/guard.ts).
 */
export function trimStatement(sql: string): string {
  return sql.trim().replace(/[;\s]+$/, '');
}

export function refusedWrite(what: string): WarehouseError {
  return new WarehouseError('refused', `refused on a read-only connection: ${what} writes`);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Table names are part of the SQL text, so only plain `name` or `db.name` is accepted. */
export function assertTableName(table: string): string {
  if (!IDENTIFIER.test(table)) {
    throw new WarehouseError('syntax', `invalid table name ${JSON.stringify(table)}: expected [A-Za-z_][A-Za-z0-9_]* or db.table`);
  }
  return table;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: the text form of DateTime64(3, 'UTC') that every ClickHouse version parses. */
export function formatDateTime64(d: Date): string {
  if (Number.isNaN(d.getTime())) throw new WarehouseError('bad_data', 'invalid Date value');
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}

/** Deep copy of a value with Dates as DateTime64 text and bigints as decimal strings (JSON-safe). */
export function normalizeValue(value: unknown): unknown {
  if (value instanceof Date) return formatDateTime64(value);
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(normalizeValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) out[k] = normalizeValue(v);
    }
    return out;
  }
  return value;
}

/** Rows as newline-delimited JSON, the JSONEachRow insert payload. */
export function toJsonEachRow(rows: readonly object[]): string {
  let out = '';
  for (const row of rows) out += `${JSON.stringify(normalizeValue(row))}\n`;
  return out;
}

/** Parameters with Dates rewritten to DateTime64 text (the adapters' drivers would drop the milliseconds). */
export function normalizeParams(params: QueryParams | undefined): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      throw new WarehouseError('bad_params', `invalid query parameter name ${JSON.stringify(k)}`);
    }
    out[k] = normalizeParamValue(v);
  }
  return out;
}

function normalizeParamValue(value: unknown): unknown {
  if (value instanceof Date) return formatDateTime64(value);
  if (Array.isArray(value)) return value.map(normalizeParamValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalizeParamValue(v);
    return out;
  }
  return value;
}

/** Parses a JSONEachRow response body. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() !== '') rows.push(JSON.parse(line) as T);
  }
  return rows;
}
