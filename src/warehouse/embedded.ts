import { mkdirSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Session, type ChdbQueryStream } from 'chdb';
import { WarehouseError, clipMessage, kindForCode, parseClickHouseCode, type WarehouseErrorKind } from './errors.js';
import { ENGINE_MEMORY_CAP_BYTES } from './limits.js';
import { connectionSettings, type ConnectionOptions } from './read-only.js';
import {
  assertTableName,
  normalizeParams,
  parseJsonEachRow,
  refusedWrite,
  toJsonEachRow,
  trimStatement,
  type QueryParams,
  type Warehouse,
} from './warehouse.js';
import type { InsertRow, TableName } from './tables.js';
import { TableCodecs } from './table-codecs.js';

/**
 * See ConnectionOptions. chdb cannot interrupt a one-shot query, so at the
 * deadline the promise rejects at once and the engine's `max_execution_time`
 * stops the work (close() waits for it).
 */
export interface EmbeddedOptions extends ConnectionOptions {
  /**
   * Called after every `query` with what the engine read (its `rows_read` / `bytes_read`
   * statistics), e.g. to hold a read to a bound in a test or a benchmark. chdb has no
   * system.query_log; with an observer the rows travel as the JSON format, whose footer
   * carries the statistics, instead of JSONEachRow (same values).
   */
  onQueryStats?: (stats: QueryStats) => void;
}

/** What one query read, as the engine counted it. */
export interface QueryStats {
  sql: string;
  rowsRead: number;
  bytesRead: number;
  elapsedMs: number;
}

/**
 * Whether chdb can stream this statement of ours: a SELECT (or WITH … SELECT, or a parenthesised
 * one). chdb refuses to stream anything else ("Streaming query is not supported", code 36), so
 * those run in one piece; their results are small.
 */
function chdbStreams(statement: string): boolean {
  return /^[(\s]*(SELECT|WITH)\b/i.test(statement);
}

/**
 * Settings given to the engine at connect, so results look the same as from a
 * server (see Warehouse): 64-bit integers as JSON strings.
 */
export const CONNECTION_ARGS = ['--output_format_json_quote_64bit_integers=1', `--max_server_memory_usage=${ENGINE_MEMORY_CAP_BYTES}`];

/** chdb turns introspection functions on; a read-only session has no use for them. */
export const READ_ONLY_ARGS = ['--allow_introspection_functions=0'];

/** Settings of every insert: a misspelled field is an error; date-times are parsed best-effort. */
const INSERT_SETTINGS = { input_format_skip_unknown_fields: 0, date_time_input_format: 'best_effort' } as const;

/**
 * The embedded warehouse: the ClickHouse engine in this process (npm `chdb`),
 * with its data in a local directory.
 *
 * chdb facts this adapter is built around (chdb 3.4, engine 26.7):
 * - the engine is a process-wide singleton bound to ONE data directory: opening
 *   a second directory in the same process fails ('connection' error) until
 *   every session on the first is closed; sessions on the same directory share it;
 * - `queryBindAsync` / `insert` run on the libuv thread pool, so the event loop
 *   is not blocked (the older `query` / `queryBind` are synchronous and are not
 *   used here); parameterized calls are serialized process-wide by chdb;
 * - a timed-out or aborted call keeps running inside the engine (until its
 *   `max_execution_time`, when the connection has a deadline);
 * - it runs every statement of a multi-statement string: only our own SQL comes here, one
 *   statement a call; someone's SQL goes through the raw reader's guard (guard/guard.ts);
 * - sessions on the same directory keep their own connect-time settings, so a
 *   read-only session (readonly=1) can sit beside a writing one.
 */
export class EmbeddedWarehouse implements Warehouse {
  readonly kind = 'embedded' as const;
  readonly path: string;
  private readonly chdb: ChdbSession;
  readonly readOnly: boolean;
  private readonly timeoutMs: number | undefined;
  private readonly onQueryStats: ((stats: QueryStats) => void) | undefined;
  /** Each table's RowBinary encoders, from the engine's description of it. */
  private readonly codecs = new TableCodecs((sql) => this.query(sql));
  /** Where insert payloads wait for the engine to read them: a folder of the data directory (made on the first insert). */
  private spool: string | null = null;
  private spooled = 0;

  constructor(path: string, options: EmbeddedOptions = {}) {
    this.path = resolve(path);
    this.timeoutMs = options.timeoutMs;
    this.readOnly = options.readOnly === true;
    this.onQueryStats = options.onQueryStats;
    // Settings given at connect hold for every call of this session and cannot be
    // changed by a statement under readonly=1; other sessions on the directory keep theirs.
    const args = [
      ...CONNECTION_ARGS,
      ...Object.entries(connectionSettings(options)).map(([k, v]) => `--${k}=${v}`),
      ...(this.readOnly ? READ_ONLY_ARGS : []),
    ];
    try {
      mkdirSync(this.path, { recursive: true });
    } catch (err) {
      throw toWarehouseError(err, `cannot open the embedded warehouse at ${this.path}`);
    }
    this.chdb = new ChdbSession(this.path, args);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    if (this.onQueryStats) {
      const out = JSON.parse(await this.run(sql, params, 'JSON')) as {
        data: T[];
        statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number };
      };
      const st = out.statistics ?? {};
      this.onQueryStats({
        sql,
        rowsRead: Number(st.rows_read ?? 0),
        bytesRead: Number(st.bytes_read ?? 0),
        elapsedMs: Number(st.elapsed ?? 0) * 1000,
      });
      return out.data;
    }
    const text = await this.run(sql, params, 'JSONEachRow');
    return parseJsonEachRow<T>(text);
  }

  async *stream<T = Record<string, unknown>>(sql: string, params?: QueryParams): AsyncGenerator<T[]> {
    const statement = trimStatement(sql);
    if (!chdbStreams(statement)) {
      yield await this.query<T>(statement, params);
      return;
    }
    const session = this.open();
    const bound = normalizeParams(params);
    let stream: ChdbQueryStream;
    try {
      stream =
        bound && Object.keys(bound).length > 0
          ? session.queryStreamBind(statement, bound, { format: 'JSONEachRow' })
          : session.queryStream(statement, { format: 'JSONEachRow' });
    } catch (err) {
      throw toWarehouseError(err, undefined, statement);
    }
    let finish!: () => void;
    void this.chdb.hold(new Promise<void>((r) => (finish = r)));
    try {
      // A chunk is one engine block (about 65k rows), so memory stays bounded by it.
      for await (const chunk of stream) yield chunk.rows<T>();
    } catch (err) {
      throw toWarehouseError(err, undefined, statement);
    } finally {
      stream.cancel();
      finish();
    }
  }

  async exec(sql: string, params?: QueryParams): Promise<void> {
    if (this.readOnly) throw refusedWrite('exec');
    this.codecs.forgetOn(sql);
    await this.run(sql, params, 'Null');
  }

  /**
   * Appends rows in RowBinary (row-binary.ts). chdb's insert call takes text formats only, so the
   * payload goes through a file the engine reads (`INSERT … FROM INFILE`, the client side of the
   * engine in this process), removed once read. A table with a column type the encoder does not
   * know is written as JSONEachRow.
   */
  async insert<T extends TableName>(table: T, rows: readonly InsertRow<T>[]): Promise<void> {
    if (this.readOnly) throw refusedWrite(`insert into ${table}`);
    assertTableName(table);
    if (rows.length === 0) return;
    const groups = await this.codecs.encode(table, rows);
    if (groups !== null) {
      for (const g of groups) await this.insertFile(table, g.columns, g.payload);
      return;
    }
    const session = this.open();
    const payload = Buffer.from(toJsonEachRow(rows), 'utf8');
    await this.track(
      session.insert({
        table,
        values: payload,
        format: 'JSONEachRow',
        settings: INSERT_SETTINGS,
        ...(this.timeoutMs === undefined ? {} : { timeout: this.timeoutMs }),
      }),
      `insert into ${table}`,
    );
  }

  private async insertFile(table: string, columns: string, payload: Buffer): Promise<void> {
    if (this.spool === null) {
      // Inside the data directory, so a process that dies between writing and removing one leaves it nowhere else.
      this.spool = join(this.path, 'veronikai-inserts');
      mkdirSync(this.spool, { recursive: true, mode: 0o700 });
    }
    const file = join(this.spool, `${process.pid}-${++this.spooled}.bin`);
    await writeFile(file, payload);
    try {
      await this.run(
        `INSERT INTO ${table} (${columns}) FROM INFILE '${file.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}' FORMAT RowBinary`,
        undefined,
        'Null',
      );
    } catch (err) {
      this.codecs.forget(table);
      throw err;
    } finally {
      await unlink(file).catch(() => undefined);
    }
  }

  close(): Promise<void> {
    return this.chdb.close();
  }

  private open(): Session {
    return this.chdb.get();
  }

  private async run(sql: string, params: QueryParams | undefined, format: string): Promise<string> {
    const session = this.open();
    const statement = trimStatement(sql);
    const opts = { format, ...(this.timeoutMs === undefined ? {} : { timeout: this.timeoutMs }) };
    const bound = normalizeParams(params);
    const pending =
      bound && Object.keys(bound).length > 0 ? session.queryBindAsync(statement, bound, opts) : session.queryAsync(statement, opts);
    const result = await this.track(pending, statement);
    return result.text();
  }

  private async track<R>(pending: Promise<R>, what: string): Promise<R> {
    try {
      return await this.chdb.hold(pending);
    } catch (err) {
      throw toWarehouseError(err, undefined, what);
    }
  }
}

/**
 * One chdb session on a data directory, for the warehouse and the raw reader: opened with its
 * connect-time settings, and closed only once the work it is running has settled.
 */
export class ChdbSession {
  private session: Session | null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(path: string, connectionArgs: string[]) {
    try {
      this.session = new Session(path, { connectionArgs });
    } catch (err) {
      throw toWarehouseError(err, `cannot open the embedded warehouse at ${path}`);
    }
  }

  /** The open session; a closed one is an error. */
  get(): Session {
    if (!this.session) throw new WarehouseError('closed', 'the embedded warehouse is closed');
    return this.session;
  }

  /** Counts `work` as running until it settles: close() waits for it. */
  hold<R>(work: Promise<R>): Promise<R> {
    this.inFlight.add(work);
    const done = () => this.inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  async close(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = null;
    // chdb defers tearing a connection down behind running work; waiting here
    // makes "close() resolved" mean "the data directory is free again".
    await Promise.allSettled([...this.inFlight]);
    session.close();
  }
}

const CHDB_KINDS: Readonly<Record<string, WarehouseErrorKind>> = {
  CHDB_SYNTAX: 'syntax',
  CHDB_TIMEOUT: 'timeout',
  CHDB_ABORT: 'timeout',
  CHDB_CONNECTION: 'connection',
  CHDB_CLOSED: 'closed',
  CHDB_BIND: 'bad_params',
};

/** Maps a chdb error (typed, with `.code` 'CHDB_*' and `.clickhouseCode`) to a WarehouseError. */
export function toWarehouseError(err: unknown, prefix?: string, statement?: string): WarehouseError {
  if (err instanceof WarehouseError) return err;
  const e = err as { message?: unknown; code?: unknown; clickhouseCode?: unknown } | null;
  const message = String(e?.message ?? err);
  const chCode = typeof e?.clickhouseCode === 'number' ? e.clickhouseCode : parseClickHouseCode(message);
  const chdbCode = typeof e?.code === 'string' ? e.code : '';
  // The ClickHouse code is the more specific signal; chdb's class decides only when there is none.
  let kind: WarehouseErrorKind = chCode !== undefined ? kindForCode(chCode) : (CHDB_KINDS[chdbCode] ?? 'server');
  if (kind === 'server' && CHDB_KINDS[chdbCode]) kind = CHDB_KINDS[chdbCode];
  const head = prefix ? `${prefix}: ` : '';
  const tail = statement && kind === 'syntax' ? `\n  in: ${clipMessage(statement, 300)}` : '';
  return new WarehouseError(kind, `${head}${clipMessage(message)}${tail}`, {
    ...(chCode === undefined ? {} : { code: chCode }),
    cause: err,
  });
}
