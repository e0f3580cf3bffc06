import { request, type IncomingMessage } from 'node:http';
import { WarehouseError, kindForCode, parseClickHouseCode } from '../warehouse/errors.js';
import { formatDateTime64, type QueryParams, type ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { UsageError, type Config } from '../config.js';
import { EmbeddedRawReader, type RawChunk, type RawQueryOptions, type RawReader } from '../warehouse/raw-reader.js';
import { connectHost, findInstance, type InstanceInfo } from './instance.js';

/**
 * A RawReader that sends each statement to the running instance's ClickHouse HTTP interface
 * (see instance.ts), so `sql` and `export` read the data directory another process holds. The
 * instance applies the same read-only rules as a local read-only connection. An error after
 * the first bytes arrives framed at the end of the body (the 25.11+ exception block): the last
 * bytes are held back until the end, so that block never reaches the caller as data.
 */

/** Bytes held back from the end of a response: longer than any framed exception block. */
const TAIL_BYTES = 16 * 1024;

function errorFromText(text: string, status: number | undefined): WarehouseError {
  const code = parseClickHouseCode(text);
  const message = text.replace(/\s*\(version [^)]*\)\s*$/, '').trim() || `HTTP ${status ?? '?'}`;
  return new WarehouseError(kindForCode(code), message, code === undefined ? {} : { code });
}

export class InstanceRawReader implements RawReader {
  readonly database = 'default';

  constructor(private readonly info: InstanceInfo) {}

  async *stream(sql: string, opts: RawQueryOptions): AsyncGenerator<RawChunk> {
    const query = new URLSearchParams({ default_format: opts.format });
    for (const [k, v] of Object.entries(opts.params ?? {})) query.set(`param_${k}`, v);
    const { host, port, token } = this.info.clickhouse;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          host: connectHost(host),
          port,
          method: 'POST',
          path: `/?${query.toString()}`,
          headers: {
            'Content-Type': 'text/plain; charset=UTF-8',
            ...(token ? { 'X-ClickHouse-User': 'default', 'X-ClickHouse-Key': token } : {}),
          },
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        resolve,
      );
      req.on('error', (err) =>
        reject(
          new WarehouseError('connection', `the running instance (pid ${this.info.pid}) did not answer: ${err.message}`, { cause: err }),
        ),
      );
      req.end(sql);
    });
    try {
      if (res.statusCode !== 200) {
        let text = '';
        for await (const d of res as AsyncIterable<Buffer>) text += d.toString('utf8');
        throw errorFromText(text, res.statusCode);
      }
      const tag = String(res.headers['x-clickhouse-exception-tag'] ?? '');
      const format = String(res.headers['x-clickhouse-format'] ?? opts.format);
      let tail: Buffer = Buffer.alloc(0);
      for await (const d of res as AsyncIterable<Buffer>) {
        tail = tail.length === 0 ? d : Buffer.concat([tail, d]);
        if (tail.length > TAIL_BYTES) {
          const out = tail.subarray(0, tail.length - TAIL_BYTES);
          tail = Buffer.from(tail.subarray(tail.length - TAIL_BYTES));
          yield { bytes: out, rows: 0, format };
        }
      }
      const marker = tag ? ` ${tag}\r\n__exception__\r\n` : '\r\n__exception__\r\n';
      const text = tail.toString('latin1');
      if (tag && text.endsWith(marker)) {
        const start = text.lastIndexOf(`\r\n__exception__\r\n${tag}\n`);
        const msg = Buffer.from(
          text.slice(start + `\r\n__exception__\r\n${tag}\n`.length, text.lastIndexOf('\n', text.length - marker.length)),
          'latin1',
        ).toString('utf8');
        if (start > 0) yield { bytes: tail.subarray(0, Buffer.byteLength(text.slice(0, start), 'latin1')), rows: 0, format };
        throw errorFromText(msg, 200);
      }
      // The instance sends the row count as a trailer once the result is complete (when the format's output says it).
      let rows: number | null = null;
      try {
        const summary = JSON.parse(String(res.trailers['x-clickhouse-summary'] ?? '{}')) as { result_rows?: string };
        rows = summary.result_rows === undefined ? null : Number(summary.result_rows);
      } catch {
        rows = null;
      }
      yield { bytes: tail, rows, format };
    } finally {
      res.destroy();
    }
  }

  async close(): Promise<void> {}
}

/** `sql` on the running instance: the statement's JSONEachRow rows in batches, at most `maxRows` (0: all). */
export async function sqlOnInstance(
  info: InstanceInfo,
  query: string,
  opts: { params?: Readonly<Record<string, unknown>>; maxRows?: number; timeoutMs?: number },
  onRows: (rows: Record<string, unknown>[]) => void | Promise<void>,
): Promise<{ returnedRows: true; rows: number; truncated: boolean }> {
  // The instance's owner endpoint sets no deadline: `sql` brings its own and goes away at it,
  // which stops the streamed query in the instance.
  const deadline = opts.timeoutMs !== undefined ? AbortSignal.timeout(opts.timeoutMs) : undefined;
  try {
    return await readRows(new InstanceRawReader(info), query, opts, onRows, deadline);
  } catch (err) {
    if (deadline?.aborted)
      throw new WarehouseError(
        'timeout',
        `the query ran past its deadline of ${opts.timeoutMs} ms on the running instance (pid ${info.pid})`,
        { cause: err },
      );
    throw err;
  }
}

/** One statement's JSONEachRow rows through a raw reader, in batches, at most `maxRows` (0: all). */
export async function readRows(
  reader: RawReader,
  query: string,
  opts: { params?: Readonly<Record<string, unknown>>; maxRows?: number },
  onRows: (rows: Record<string, unknown>[]) => void | Promise<void>,
  signal: AbortSignal | undefined,
): Promise<{ returnedRows: true; rows: number; truncated: boolean }> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.params ?? {})) params[k] = typeof v === 'string' ? v : JSON.stringify(v);
  const limit = opts.maxRows !== undefined && opts.maxRows > 0 ? opts.maxRows : Infinity;
  let rows = 0;
  let partial = '';
  const decoder = new TextDecoder();
  // Leaving the loop closes the response, which stops the query in the instance.
  for await (const chunk of reader.stream(query, { format: 'JSONEachRow', params, ...(signal ? { signal } : {}) })) {
    const lines = (partial + decoder.decode(chunk.bytes, { stream: true })).split('\n');
    partial = lines.pop() ?? '';
    const batch = lines.filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const room = limit - rows;
    if (batch.length > 0) await onRows(batch.length > room ? batch.slice(0, room) : batch);
    rows += Math.min(batch.length, room);
    if (batch.length > room) return { returnedRows: true, rows, truncated: true };
  }
  if (partial.trim() !== '') {
    if (rows >= limit) return { returnedRows: true, rows, truncated: true };
    await onRows([JSON.parse(partial) as Record<string, unknown>]);
    rows++;
  }
  return { returnedRows: true, rows, truncated: false };
}

/**
 * A raw reader of the configured embedded warehouse: the running instance's when one holds the
 * data directory, else a read-only session of this process (no deadline: `export` may be long).
 */
export async function openRawReader(
  config: Config,
  opts: { timeoutMs?: number } = {},
): Promise<{ reader: RawReader; via: 'instance' | 'local'; pid: number }> {
  if (config.warehouse.kind !== 'embedded') {
    throw new UsageError(
      'this command reads the embedded warehouse; on a ClickHouse server, query the server itself (its HTTP interface speaks the same SQL)',
    );
  }
  const found = await findInstance(config.dataDir);
  if (found.state === 'running') return { reader: new InstanceRawReader(found.info), via: 'instance', pid: found.info.pid };
  return { reader: new EmbeddedRawReader(config.warehouse.path, opts), via: 'local', pid: process.pid };
}

/** Rows of one statement through a raw reader, parsed from JSONEachRow. */
export async function rawRows<T>(reader: RawReader, sql: string, params: Record<string, string> = {}): Promise<T[]> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of reader.stream(sql, { format: 'JSONEachRow', params })) text += decoder.decode(chunk.bytes, { stream: true });
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

/** A parameter value in ClickHouse's text form, as `param_<name>` carries it. */
function paramText(v: unknown): string {
  if (v instanceof Date) return formatDateTime64(v);
  if (Array.isArray(v))
    return `[${v.map((x) => (typeof x === 'string' ? `'${x.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : paramText(x))).join(',')}]`;
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

/** The ReadOnlyWarehouse port over a raw reader, so the read model's queries run on a running instance too. */
export function warehouseOver(reader: RawReader): ReadOnlyWarehouse {
  const textParams = (params?: QueryParams) => Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, paramText(v)]));
  return {
    kind: 'embedded',
    readOnly: true,
    query: <T>(sql: string, params?: QueryParams) => rawRows<T>(reader, sql, textParams(params)),
    async *stream<T>(sql: string, params?: QueryParams) {
      yield await rawRows<T>(reader, sql, textParams(params));
    },
    close: () => reader.close(),
  };
}
