import { resolve } from 'node:path';
import type { ChdbQueryStream } from 'chdb';
import { ChdbSession, CONNECTION_ARGS, READ_ONLY_ARGS, toWarehouseError } from './embedded.js';
import { WarehouseError } from './errors.js';
import { guardStatement } from './guard/guard.js';
import { ownerSchema, type ServedSchema } from './guard/schema.js';
import { engineLimitSettings, type QuerySessionLimits } from './limits.js';
import { connectionSettings } from './read-only.js';
import { Serial } from '../util/serial.js';

/**
 * A read-only connection that hands back the engine's own output bytes in any
 * ClickHouse output format (JSON, TabSeparated, CSV, Native, RowBinary,
 * Parquet, …), not parsed rows: what the ClickHouse-compatible HTTP interface,
 * `sql` and `export` need. Every statement it runs is someone's SQL, so every
 * one passes the engine's guard (guard/guard.ts) against a served schema.
 */
export interface RawReader {
  /** The database unqualified names resolve in. */
  readonly database: string;
  /**
   * Runs one reading statement and yields its output as the engine writes it.
   * `format` is the output format unless the statement has its own FORMAT
   * clause, which wins (as on a ClickHouse server). Parameters are
   * `{name:Type}` values in ClickHouse's text form (as `param_name` carries
   * them over HTTP). Leaving the loop cancels the query.
   */
  stream(sql: string, opts: RawQueryOptions): AsyncIterable<RawChunk>;
  close(): Promise<void>;
}

export interface RawQueryOptions {
  format: string;
  params?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

export interface RawChunk {
  bytes: Uint8Array;
  /** Rows this chunk holds (the engine's count), or null when the format's output does not say (one-piece formats). */
  rows: number | null;
  /** The output format: the statement's own FORMAT clause, else the one asked for. */
  format: string;
}

/**
 * Output formats whose results are a plain run of rows or self-contained blocks, so chunks can
 * be concatenated as they come. Every other format (JSON, CSVWithNames, Parquet, Pretty, …) has
 * a prefix or suffix and is produced in one piece.
 */
const STREAMABLE_FORMATS = new Set(
  [
    'JSONEachRow',
    'JSONLines',
    'NDJSON',
    'JSONStringsEachRow',
    'JSONCompactEachRow',
    'JSONCompactStringsEachRow',
    'TabSeparated',
    'TSV',
    'TabSeparatedRaw',
    'TSVRaw',
    'CSV',
    'RowBinary',
    'Native',
    'LineAsString',
    'RawBLOB',
    'Null',
  ].map((f) => f.toLowerCase()),
);

export function isStreamable(format: string): boolean {
  return STREAMABLE_FORMATS.has(format.toLowerCase());
}

export interface RawReaderOptions {
  /** Engine deadline per statement (`max_execution_time`, whole seconds rounded up). */
  timeoutMs?: number;
  /** What statements may read (default: the owner's whole warehouse). */
  schema?: ServedSchema;
  /** Limits the engine enforces on every statement of this session (QUERY_SESSION_LIMITS). */
  limits?: QuerySessionLimits;
}

/**
 * The embedded engine's raw reader: its own chdb session on the data directory, connected with
 * `readonly=1` (the engine then refuses every setting change, so a query cannot lift its own
 * limits), the session's limits, and its served schema's database as the current one. Every
 * statement passes the guard (guard/guard.ts) first. chdb runs one stream at a time per session,
 * so calls queue here in arrival order.
 */
export class EmbeddedRawReader implements RawReader {
  readonly database: string;
  private chdb: ChdbSession;
  private readonly streams = new Serial();
  private readonly schema: ServedSchema;
  private readonly path: string;
  private readonly args: string[];
  private opened = false;
  /** A statement failed part-way: chdb can hand its partial output to the session's next result, so the session is replaced first. */
  private spoiled = false;

  constructor(path: string, options: RawReaderOptions = {}) {
    this.schema = options.schema ?? ownerSchema();
    this.database = this.schema.database;
    const settings = {
      ...connectionSettings({ readOnly: true, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }),
      ...engineLimitSettings(options.limits ?? {}),
    };
    this.args = [...CONNECTION_ARGS, ...READ_ONLY_ARGS, ...Object.entries(settings).map(([k, v]) => `--${k}=${v}`)];
    this.path = resolve(path);
    this.chdb = new ChdbSession(this.path, this.args);
  }

  /** One statement of ours on this session, its output as text (the guard's calls). */
  private readonly engineText = async (sql: string, params?: Readonly<Record<string, string>>): Promise<string> => {
    const session = this.chdb.get();
    try {
      const bound = params && Object.keys(params).length > 0;
      const result = await (bound
        ? session.queryBindAsync(sql, params, { format: 'TSVRaw' })
        : session.queryAsync(sql, { format: 'TSVRaw' }));
      return result.text();
    } catch (err) {
      throw toWarehouseError(err, undefined, sql);
    }
  };

  async *stream(sql: string, opts: RawQueryOptions): AsyncGenerator<RawChunk> {
    // One stream at a time per session, in arrival order; close() waits for this one.
    let finished!: () => void;
    void this.chdb.hold(new Promise<void>((r) => (finished = r)));
    let release: (() => void) | undefined;
    try {
      release = await this.streams.acquire();
      if (opts.signal?.aborted) throw new WarehouseError('timeout', 'the query was cancelled before it started');
      if (!this.opened) {
        // Unqualified names resolve in the served database (a session keeps its current database).
        if (this.database !== 'default') await this.engineText(`USE ${this.database}`);
        this.opened = true;
      }
      const params = opts.params ?? {};
      const statement = await guardStatement(this.engineText, sql, params, this.schema);
      const format = statement.format ?? opts.format;
      const session = this.chdb.get();
      const bound = Object.keys(params).length > 0;
      if (!isStreamable(format) || statement.kind !== 'select') {
        // chdb formats each streamed chunk as a whole result (a header, a Parquet file, a JSON
        // document each), so a format with a prefix or suffix is run in one piece; so are DESCRIBE,
        // EXISTS, SHOW and EXPLAIN, which chdb does not stream. The engine's result limits bound it.
        const pending = bound
          ? session.queryBindAsync(statement.text, params, { format: opts.format })
          : session.queryAsync(statement.text, { format: opts.format });
        let result;
        try {
          result = await pending;
        } catch (err) {
          this.spoiled = true;
          throw toWarehouseError(err, undefined, statement.text);
        }
        yield { bytes: Buffer.from(result.bytes()), rows: null, format };
        return;
      }
      let stream: ChdbQueryStream;
      try {
        stream = bound
          ? session.queryStreamBind(statement.text, params, { format: opts.format })
          : session.queryStream(statement.text, { format: opts.format });
      } catch (err) {
        throw toWarehouseError(err, undefined, statement.text);
      }
      try {
        for await (const chunk of stream) {
          if (opts.signal?.aborted) break;
          // A copy: the chunk's memory belongs to chdb, and a caller may still hold the bytes
          // (a socket or file write queue) after the next chunk is read.
          yield { bytes: Buffer.from(chunk.raw()), rows: chunk.numRows, format };
        }
      } catch (err) {
        this.spoiled = true;
        throw toWarehouseError(err, undefined, statement.text);
      } finally {
        // Also after an error: an uncancelled stream's rest would reach the session's next one.
        stream.cancel();
      }
    } finally {
      finished();
      if (this.spoiled) {
        // Before the next statement may start: the old session's partial output must not reach it.
        this.spoiled = false;
        this.opened = false;
        const old = this.chdb;
        try {
          await old.close();
        } finally {
          this.chdb = new ChdbSession(this.path, this.args);
        }
      }
      release?.();
    }
  }

  close(): Promise<void> {
    return this.chdb.close();
  }
}
