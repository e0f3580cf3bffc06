import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { WarehouseError, clipMessage, kindForCode, parseClickHouseCode, type WarehouseErrorKind } from './errors.js';
import { connectionSettings, type ConnectionOptions } from './read-only.js';
import {
  assertTableName,
  normalizeParams,
  normalizeValue,
  refusedWrite,
  trimStatement,
  type QueryParams,
  type Warehouse,
} from './warehouse.js';
import type { InsertRow, TableName } from './tables.js';
import { TableCodecs } from './table-codecs.js';

export interface ServerOptions {
  /** http(s) origin of the ClickHouse HTTP interface, e.g. http://127.0.0.1:8123 */
  url: string;
  database: string;
  username?: string;
  password?: string;
  /**
   * Per-request deadline in milliseconds (default 60 s). The client gives up;
   * when set, the server is also told `max_execution_time` so it stops too.
   */
  requestTimeoutMs?: number;
  /** See ConnectionOptions.readOnly: `readonly=1` on every request, and the statement checks. */
  readOnly?: boolean;
  /** See ConnectionOptions.maxBlockRows. */
  maxBlockRows?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Settings sent with every request so results look the same as from the
 * embedded engine (see Warehouse). All of them exist in every ClickHouse
 * version from 18.x on.
 */
const QUERY_SETTINGS = { output_format_json_quote_64bit_integers: 1 } as const;
const INSERT_SETTINGS = { input_format_skip_unknown_fields: 0, date_time_input_format: 'best_effort' } as const;

/** Node network error codes that mean "the server could not be reached or went away". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);

/**
 * The warehouse on a ClickHouse server (or cluster endpoint), over HTTP with
 * `@clickhouse/client`. Query parameters are sent as `param_<name>` and bound
 * by the server (ClickHouse 19.x and later; 18.x rejects them as unknown settings).
 */
export class ServerWarehouse implements Warehouse {
  readonly kind = 'server' as const;
  readonly url: string;
  readonly database: string;
  readonly readOnly: boolean;
  private client: ClickHouseClient | null;
  private readonly options: ServerOptions;
  private readonly settings: Record<string, string | number>;
  /** Each table's RowBinary encoders, from the server's description of it. */
  private readonly codecs = new TableCodecs((sql) => this.query(sql));

  constructor(options: ServerOptions) {
    this.options = options;
    this.url = options.url;
    this.database = options.database;
    this.readOnly = options.readOnly === true;
    const connection: ConnectionOptions = {
      readOnly: this.readOnly,
      ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
      ...(options.maxBlockRows === undefined ? {} : { maxBlockRows: options.maxBlockRows }),
    };
    // readonly goes as text: the driver types UInt64 settings as strings.
    const { readonly, ...rest } = connectionSettings(connection);
    this.settings = { ...QUERY_SETTINGS, ...rest, ...(readonly === undefined ? {} : { readonly: String(readonly) }) };
    this.client = this.makeClient(options.database);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    const client = this.open();
    const statement = trimStatement(sql);
    try {
      const bound = normalizeParams(params);
      const rs = await client.query({
        query: statement,
        format: 'JSONEachRow',
        clickhouse_settings: this.settings,
        ...(bound ? { query_params: bound } : {}),
      });
      return await rs.json<T>();
    } catch (err) {
      throw toWarehouseError(err, statement);
    }
  }

  async *stream<T = Record<string, unknown>>(sql: string, params?: QueryParams): AsyncGenerator<T[]> {
    const client = this.open();
    const statement = trimStatement(sql);
    let rs: Awaited<ReturnType<ClickHouseClient['query']>> | undefined;
    try {
      const bound = normalizeParams(params);
      rs = await client.query({
        query: statement,
        format: 'JSONEachRow',
        clickhouse_settings: this.settings,
        ...(bound ? { query_params: bound } : {}),
      });
      // The response body is read as it arrives, a batch of rows at a time.
      for await (const rows of rs.stream<T>()) yield rows.map((row) => row.json<T>());
    } catch (err) {
      throw toWarehouseError(err, statement);
    } finally {
      rs?.close();
    }
  }

  async exec(sql: string, params?: QueryParams): Promise<void> {
    if (this.readOnly) throw refusedWrite('exec');
    const client = this.open();
    const statement = trimStatement(sql);
    this.codecs.forgetOn(statement);
    try {
      const bound = normalizeParams(params);
      await client.command({
        query: statement,
        clickhouse_settings: this.settings,
        ...(bound ? { query_params: bound } : {}),
      });
    } catch (err) {
      throw toWarehouseError(err, statement);
    }
  }

  async insert<T extends TableName>(table: T, rows: readonly InsertRow<T>[]): Promise<void> {
    if (this.readOnly) throw refusedWrite(`insert into ${table}`);
    assertTableName(table);
    if (rows.length === 0) return;
    const client = this.open();
    // RowBinary (row-binary.ts) in the request body; rows the encoder does not take go as JSON, for the server to judge.
    const groups = await this.codecs.encode(table, rows);
    if (groups !== null) {
      for (const g of groups) {
        try {
          const { stream } = await client.exec({
            query: `INSERT INTO ${table} (${g.columns}) FORMAT RowBinary`,
            values: Readable.from([g.payload]),
            clickhouse_settings: INSERT_SETTINGS,
          });
          stream.resume();
          await new Promise<void>((resolve, reject) => stream.once('end', resolve).once('error', reject));
        } catch (err) {
          this.codecs.forget(table);
          throw toWarehouseError(err, `INSERT INTO ${table}`);
        }
      }
      return;
    }
    try {
      await client.insert({
        table,
        values: rows.map((r) => normalizeValue(r) as Record<string, unknown>),
        format: 'JSONEachRow',
        clickhouse_settings: INSERT_SETTINGS,
      });
    } catch (err) {
      throw toWarehouseError(err, `INSERT INTO ${table}`);
    }
  }

  /** Creates the configured database when it is missing (used by `migrate`). */
  async ensureDatabase(): Promise<void> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.database)) {
      throw new WarehouseError('syntax', `invalid database name ${JSON.stringify(this.database)}`);
    }
    const bootstrap = this.makeClient('default');
    try {
      await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${this.database}` });
    } catch (err) {
      throw toWarehouseError(err, `CREATE DATABASE ${this.database}`);
    } finally {
      await bootstrap.close();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.close();
  }

  private open(): ClickHouseClient {
    if (!this.client) throw new WarehouseError('closed', 'the server warehouse is closed');
    return this.client;
  }

  private makeClient(database: string): ClickHouseClient {
    const o = this.options;
    return createClient({
      url: o.url,
      database,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      request_timeout: o.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      application: 'veronikai',
      // Failures reach the caller as WarehouseError; the driver's own console logging would only duplicate them.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }
}

/**
 * Maps an error from @clickhouse/client to a WarehouseError. The driver
 * parses current servers' errors into ClickHouseError (code as a string);
 * older servers' texts ("Code: 62, e.displayText() = …") reach us as a plain
 * Error, so the code is also parsed from the message.
 */
export function toWarehouseError(err: unknown, statement?: string): WarehouseError {
  if (err instanceof WarehouseError) return err;
  const e = err as { message?: unknown; code?: unknown; type?: unknown } | null;
  const message = String(e?.message ?? err);
  const sysCode = typeof e?.code === 'string' && !/^\d+$/.test(e.code) ? e.code : undefined;

  let chCode: number | undefined;
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) chCode = Number(e.code);
  else if (typeof e?.code === 'number') chCode = e.code;
  else chCode = parseClickHouseCode(message);

  let kind: WarehouseErrorKind;
  if (chCode !== undefined) kind = kindForCode(chCode);
  else if (message === 'Timeout error.' || /\btimed? ?out\b/i.test(message)) kind = 'timeout';
  else if ((sysCode !== undefined && CONNECTION_CODES.has(sysCode)) || /socket hang up/i.test(message)) kind = 'connection';
  else kind = 'server';

  let text = clipMessage(message);
  if (kind === 'timeout' && chCode === undefined) text = `request timed out (${text})`;
  if (kind === 'connection' && sysCode) text = `cannot reach the ClickHouse server: ${text}`;
  if (kind === 'syntax' && statement) text += `\n  in: ${clipMessage(statement, 300)}`;
  return new WarehouseError(kind, text, { ...(chCode === undefined ? {} : { code: chCode }), cause: err });
}
