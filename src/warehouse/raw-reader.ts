import { resolve } from 'node:path';
import type { ChdbQueryStream } from 'chdb';
import { ChdbSession, chdbStreams, toWarehouseError } from './embedded.js';
import { WarehouseError } from './errors.js';
import { isKeyword, type Token } from './lexer.js';
import { checkReadOnly, connectionSettings } from './read-only.js';
import { Serial } from '../util/serial.js';

/**
 * A read-only connection that hands back the engine's own output bytes in any
 * ClickHouse output format (JSON, TabSeparated, CSV, Native, RowBinary,
 * Parquet, …), not parsed rows: what the ClickHouse-compatible HTTP interface
 * and `export` need. The ReadOnlyWarehouse port parses JSONEachRow rows and
 * cannot carry a binary format, so this is a second, narrower port over the
 * same read-only rules (`checkReadOnly`, `readonly=1`, a deadline).
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
}

/**
 * Output formats whose results are a plain run of rows or self-contained blocks, so chunks can
 * be concatenated as they come. Every other format (JSON, CSVWithNames, Parquet, Pretty, …) has
 * a prefix or suffix and is produced in one piece.
 */
const STREAMABLE_FORMATS = new Set(
  [
    'JSONEachRow', 'JSONLines', 'NDJSON', 'JSONStringsEachRow', 'JSONCompactEachRow', 'JSONCompactStringsEachRow',
    'TabSeparated', 'TSV', 'TabSeparatedRaw', 'TSVRaw', 'CSV', 'RowBinary', 'Native', 'LineAsString', 'RawBLOB', 'Null',
  ].map((f) => f.toLowerCase()),
);

export function isStreamable(format: string): boolean {
  return STREAMABLE_FORMATS.has(format.toLowerCase());
}

/** The statement's own output format (`… FORMAT Name` at its end), if any: it wins over the one asked for. */
export function formatOf(tokens: readonly Token[]): string | null {
  const i = tokens.length - 2;
  return i >= 0 && isKeyword(tokens[i], 'FORMAT') && tokens[i + 1]!.kind === 'word' ? tokens[i + 1]!.value : null;
}

export interface RawReaderOptions {
  /** Engine deadline per statement (`max_execution_time`, whole seconds rounded up). */
  timeoutMs?: number;
  /** Engine cap on a result's bytes (`max_result_bytes`, uncompressed), so a one-piece result cannot fill memory. */
  maxResultBytes?: number;
}

/**
 * The embedded engine's raw reader: its own chdb session on the data directory,
 * connected with `readonly=1` (the engine then refuses every setting change,
 * so a query cannot lift its own deadline) and `max_execution_time`. chdb runs
 * one stream at a time per session, so calls queue here in arrival order.
 */
export class EmbeddedRawReader implements RawReader {
  readonly database = 'default';
  private readonly chdb: ChdbSession;
  private readonly streams = new Serial();

  constructor(path: string, options: RawReaderOptions = {}) {
    const settings = connectionSettings({ readOnly: true, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
    // 64-bit integers quoted in JSON formats, as a ClickHouse server and the Warehouse port give them.
    const args = [
      '--output_format_json_quote_64bit_integers=1',
      ...Object.entries(settings).map(([k, v]) => `--${k}=${v}`),
      ...(options.maxResultBytes === undefined ? [] : [`--max_result_bytes=${options.maxResultBytes}`, '--result_overflow_mode=throw']),
    ];
    this.chdb = new ChdbSession(resolve(path), args);
  }

  async *stream(sql: string, opts: RawQueryOptions): AsyncGenerator<RawChunk> {
    const statement = checkReadOnly(sql);
    const format = formatOf(statement.tokens) ?? opts.format;
    // One stream at a time per session, in arrival order; close() waits for this one.
    let finished!: () => void;
    void this.chdb.hold(new Promise<void>((r) => (finished = r)));
    let release: (() => void) | undefined;
    try {
      release = await this.streams.acquire();
      if (opts.signal?.aborted) throw new WarehouseError('timeout', 'the query was cancelled before it started');
      const session = this.chdb.get();
      const params = opts.params ?? {};
      const bound = Object.keys(params).length > 0;
      if (!isStreamable(format) || !chdbStreams(statement.tokens)) {
        // chdb formats each streamed chunk as a whole result (a header, a Parquet file, a JSON
        // document each), so a format with a prefix or suffix is run in one piece; so are SHOW,
        // DESCRIBE, EXISTS and EXPLAIN, which chdb does not stream.
        const pending = bound ? session.queryBindAsync(statement.text, params, { format: opts.format }) : session.queryAsync(statement.text, { format: opts.format });
        let result;
        try {
          result = await pending;
        } catch (err) {
          throw toWarehouseError(err, undefined, statement.text);
        }
        yield { bytes: Buffer.from(result.bytes()), rows: null };
        return;
      }
      let stream: ChdbQueryStream;
      try {
        stream = bound ? session.queryStreamBind(statement.text, params, { format: opts.format }) : session.queryStream(statement.text, { format: opts.format });
      } catch (err) {
        throw toWarehouseError(err, undefined, statement.text);
      }
      try {
        for await (const chunk of stream) {
          if (opts.signal?.aborted) break;
          // A copy: the chunk's memory belongs to chdb, and a caller may still hold the bytes
          // (a socket or file write queue) after the next chunk is read.
          yield { bytes: Buffer.from(chunk.raw()), rows: chunk.numRows };
        }
      } catch (err) {
        throw toWarehouseError(err, undefined, statement.text);
      } finally {
        // Also after an error: an uncancelled stream's rest would reach the session's next one.
        stream.cancel();
      }
    } finally {
      release?.();
      finished();
    }
  }

  close(): Promise<void> {
    return this.chdb.close();
  }
}
