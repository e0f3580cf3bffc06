import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../log.js';
import { createAdmission, type AdmissionOptions } from './clickhouse-http-admission.js';
import { WarehouseError } from '../warehouse/errors.js';
import type { RawReader } from '../warehouse/raw-reader.js';

/**
 * A ClickHouse-compatible HTTP interface over the embedded engine, read-only, so that
 * `@clickhouse/client`, `clickhouse-client`, Grafana's ClickHouse data source (HTTP) and
 * DBeaver can read the index while `run` holds the data directory (chdb is one process per
 * directory). What a ClickHouse server's HTTP interface does, for reading:
 *
 * - `GET /?query=…` and `POST /` with the query in the body (a `query` parameter beside a body
 *   is its first part, as on a server); `GET /` and `/ping` answer `Ok.`;
 * - `default_format` (a FORMAT clause in the query wins), `param_<name>` for `{name:Type}`
 *   placeholders, `database`, `query_id` (echoed in `X-ClickHouse-Query-Id`);
 * - a user and password as `X-ClickHouse-User`/`X-ClickHouse-Key`, `user`/`password` or Basic
 *   auth, and no request from a browser page of another site (clickhouse-http-admission.ts);
 * - errors as a server sends them: status by code, text body `Code: N. DB::Exception: … (NAME)
 *   (version …)` and the `X-ClickHouse-Exception-Code` header; an error after the first bytes
 *   went out is appended in the 25.11+ framing (`X-ClickHouse-Exception-Tag`) that clients detect;
 * - one reading statement per request, as the engine parses it (the reader's guard: reads of the
 *   served schema only, allowed functions only, no INTO OUTFILE, no SETTINGS), `readonly=1` and the
 *   session's limits in the engine, so a setting cannot be changed (a settings
 *   parameter is refused with code 164 as a read-only user's would be; transport ones that change
 *   nothing here are ignored), a deadline and a cap on the bytes of one result.
 */

/** Limits of the interface, in one place. */
export const CLICKHOUSE_HTTP_LIMITS = {
  /** Wall-clock deadline of one request, queueing included (the engine also gets max_execution_time). */
  deadlineMs: 60_000,
  /** Bytes one result may have; past it the stream ends with code 396 (TOO_MANY_ROWS_OR_BYTES). */
  maxResultBytes: 512 * 1024 * 1024,
  /** Bytes of a query (parameter plus body), as a server's max_query_size. */
  maxQueryBytes: 256 * 1024,
  /** Requests queued or running at once (chdb runs one stream at a time); more get code 202. */
  maxConcurrent: 16,
} as const;

/** The limits one interface runs with: CLICKHOUSE_HTTP_LIMITS and its overrides. */
type ClickHouseHttpLimits = Record<keyof typeof CLICKHOUSE_HTTP_LIMITS, number>;

/**
 * URL parameters clients send that change nothing a reader could notice here: transport and
 * progress options, compression we do not apply (a response without Content-Encoding is plain,
 * which every client reads), sessions (each request is on its own) and `readonly` (this
 * interface is stricter than any value).
 */
const IGNORED_PARAMETERS = new Set([
  'user',
  'password',
  'quota_key',
  'query_id',
  'database',
  'default_format',
  'query',
  'session_id',
  'session_timeout',
  'session_check',
  'readonly',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_native_compression_disable_checksumming_on_decompress',
  'wait_end_of_query',
  'buffer_size',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'cancel_http_readonly_queries_on_client_close',
  'http_response_buffer_size',
  'http_wait_end_of_query',
  'output_format_json_quote_64bit_integers',
  'extremes',
  'client_protocol_version',
  'role',
]);

/** ClickHouse error names of the codes this interface answers (src/Common/ErrorCodes.cpp). */
const CODE_NAMES: Readonly<Record<number, string>> = {
  16: 'NO_SUCH_COLUMN_IN_TABLE',
  47: 'UNKNOWN_IDENTIFIER',
  48: 'NOT_IMPLEMENTED',
  60: 'UNKNOWN_TABLE',
  62: 'SYNTAX_ERROR',
  73: 'UNKNOWN_FORMAT',
  81: 'UNKNOWN_DATABASE',
  115: 'UNKNOWN_SETTING',
  159: 'TIMEOUT_EXCEEDED',
  164: 'READONLY',
  202: 'TOO_MANY_SIMULTANEOUS_QUERIES',
  396: 'TOO_MANY_ROWS_OR_BYTES',
  456: 'UNKNOWN_QUERY_PARAMETER',
  457: 'BAD_QUERY_PARAMETER',
  516: 'AUTHENTICATION_FAILED',
  1000: 'POCO_EXCEPTION',
  1001: 'STD_EXCEPTION',
};

/** The code of an error this module raises or the engine reported, by kind when it gave none. */
const KIND_CODES: Readonly<Record<WarehouseError['kind'], number>> = {
  syntax: 62,
  unknown_table: 60,
  unknown_column: 47,
  bad_params: 457,
  bad_data: 27,
  already_exists: 57,
  timeout: 159,
  connection: 210,
  auth: 516,
  closed: 1001,
  refused: 164,
  server: 1001,
};

/** HTTP status a server answers for an exception code (the common ones; else 500). */
function statusForCode(code: number): number {
  if ([164, 192, 193, 194, 497, 516].includes(code)) return 403;
  if ([60, 81].includes(code)) return 404;
  if ([6, 16, 26, 27, 38, 41, 46, 47, 53, 62, 70, 72, 73, 115, 117, 456, 457].includes(code)) return 400;
  if (code === 202) return 503;
  return 500;
}

/** An exception as the interface answers it. */
export class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly type = CODE_NAMES[code] ?? 'STD_EXCEPTION',
  ) {
    super(message);
  }
}

/** The code, name and message of any error: an engine text keeps its own words. */
export function describeError(err: unknown): ClickHouseHttpError {
  if (err instanceof ClickHouseHttpError) return err;
  let text = err instanceof Error ? err.message : String(err);
  let code = err instanceof WarehouseError ? (err.code ?? KIND_CODES[err.kind]) : 1001;
  // The port adds "  in: <statement>" to syntax errors and may prefix a context; the engine's own text starts at "Code:".
  text = text.split('\n  in: ')[0]!;
  const engine = /Code:\s*(\d+)\.\s*DB::Exception:\s*([\s\S]*)$/.exec(text);
  if (engine) {
    code = Number(engine[1]);
    text = engine[2]!;
  }
  let type = CODE_NAMES[code];
  const named = /\s*\(([A-Z0-9_]{3,})\)\s*$/.exec(text);
  if (named) {
    type = named[1]!;
    text = text.slice(0, named.index);
  }
  return new ClickHouseHttpError(code, text.trim().replace(/\.$/, ''), type);
}

const TEXT_FORMATS: ReadonlyArray<[RegExp, string]> = [
  [
    /^(JSON|JSONStrings|JSONCompact|JSONCompactStrings|JSONColumns|JSONColumnsWithMetadata|JSONCompactColumns|JSONObjectEachRow)$/i,
    'application/json; charset=UTF-8',
  ],
  [
    /^(JSONEachRow|JSONLines|NDJSON|JSONStringsEachRow|JSONCompactEachRow.*|JSONCompactStringsEachRow.*|JSONEachRowWithProgress)$/i,
    'application/x-ndjson; charset=UTF-8',
  ],
  [/^(TabSeparated|TSV).*$/i, 'text/tab-separated-values; charset=UTF-8'],
  [/^CSV.*$/i, 'text/csv; charset=UTF-8; header=absent'],
  [/^(Pretty.*|Vertical|Markdown|XML|Values|TSKV|Template|Raw.*|LineAsString.*|PrettyCompact.*)$/i, 'text/plain; charset=UTF-8'],
];

function contentTypeOf(format: string): string {
  for (const [re, type] of TEXT_FORMATS) if (re.test(format)) return type;
  return 'application/octet-stream';
}

export interface ClickHouseHttpOptions {
  reader: RawReader;
  logger?: Logger;
  /**
   * The user and password every request but `/ping` must carry: the public interface's, or, on
   * the private endpoint `run` and `api` serve to `sql`, `export` and `report`, `default` and the
   * token of the 0600 instance file. Null asks for none (tests of the query path only).
   */
  credentials: AdmissionOptions['credentials'];
  /** Names clients may reach the interface by besides its listen address and loopback (the Host header). */
  allowedHosts?: readonly string[];
  /** Answer the challenge with which the private endpoint proves itself to `sql` (see clickhouse-http-admission.ts). */
  challenge?: boolean;
  /** Names `database` may take besides the engine's own (e.g. the configured database name). */
  databaseAliases?: readonly string[];
  /** Overrides of CLICKHOUSE_HTTP_LIMITS; `Infinity` lifts a limit (the owner's private endpoint, see instance.ts). */
  limits?: Partial<ClickHouseHttpLimits>;
}

export interface ClickHouseHttp {
  server: Server;
  /** Listens; resolves with the port (0 picks a free one). */
  listen(host: string, port: number): Promise<number>;
  close(): Promise<void>;
}

/** What serving one statement needs from the interface around it. */
interface QueryContext {
  reader: RawReader;
  limits: ClickHouseHttpLimits;
  log: Logger;
  exceptionText: (e: ClickHouseHttpError) => string;
}

/** One statement, as the request asked for it. */
interface Statement {
  query: string;
  format: string;
  params: Record<string, string>;
  queryId: string;
}

/** Runs one statement and streams its result, within the deadline and the result's byte cap. */
async function serveStatement(
  ctx: QueryContext,
  req: IncomingMessage,
  res: ServerResponse,
  { query, format, params, queryId }: Statement,
): Promise<void> {
  const { limits, log, exceptionText } = ctx;
  const controller = new AbortController();
  let timedOut = false;
  // No timer for an unbounded deadline: setTimeout takes Infinity (or anything past 2^31-1 ms) as 1 ms.
  const timer =
    limits.deadlineMs <= 2 ** 31 - 1
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, limits.deadlineMs)
      : null;
  timer?.unref();
  // A client that goes away stops its query (the iterator is returned below).
  const gone = () => controller.abort();
  res.on('close', gone);
  const deadline = new Promise<never>((_, reject) =>
    controller.signal.addEventListener(
      'abort',
      () =>
        reject(
          timedOut
            ? new ClickHouseHttpError(
                159,
                `Timeout exceeded: elapsed ${limits.deadlineMs / 1000} seconds, maximum: ${limits.deadlineMs / 1000}`,
              )
            : new Error('client went away'),
        ),
      { once: true },
    ),
  );
  deadline.catch(() => {});
  const it = ctx.reader.stream(query, { format, params, signal: controller.signal })[Symbol.asyncIterator]();
  const tag = randomBytes(8).toString('hex');
  let bytes = 0;
  let rows: number | null = 0;
  try {
    let next = await Promise.race([it.next(), deadline]);
    // The statement's own FORMAT clause, as the engine parsed it, wins over default_format.
    const served = next.done ? format : next.value.format;
    res.writeHead(200, {
      'Content-Type': contentTypeOf(served),
      'X-ClickHouse-Server-Display-Name': 'veronikai',
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Format': served,
      'X-ClickHouse-Timezone': 'UTC',
      'X-ClickHouse-Exception-Tag': tag,
      // The row count is known only at the end: a trailer (clients that do not read trailers ignore it).
      ...(req.method === 'HEAD' ? {} : { Trailer: 'X-ClickHouse-Summary' }),
    });
    try {
      while (!next.done) {
        const chunk = next.value;
        bytes += chunk.bytes.length;
        rows = rows === null || chunk.rows === null ? null : rows + chunk.rows;
        if (bytes > limits.maxResultBytes) {
          throw new ClickHouseHttpError(396, `Limit for result exceeded, max bytes: ${limits.maxResultBytes}, current bytes: ${bytes}`);
        }
        if (!res.write(chunk.bytes)) await Promise.race([once(res, 'drain'), deadline]);
        next = await Promise.race([it.next(), deadline]);
      }
    } catch (err) {
      if (res.destroyed) return;
      const e = describeError(err);
      // Headers went out with 200: the error goes at the end of the body, framed so clients see it.
      const msg = exceptionText(e).trimEnd();
      res.end(`\r\n__exception__\r\n${tag}\n${msg}\n${Buffer.byteLength(msg) + 1} ${tag}\r\n__exception__\r\n`);
      log.warn({ queryId, code: e.code }, 'query failed after its first bytes');
      return;
    }
    res.addTrailers({
      'X-ClickHouse-Summary': JSON.stringify({
        read_rows: '0',
        read_bytes: '0',
        written_rows: '0',
        written_bytes: '0',
        total_rows_to_read: '0',
        ...(rows === null ? {} : { result_rows: String(rows) }),
        result_bytes: String(bytes),
      }),
    });
    res.end();
  } finally {
    if (timer) clearTimeout(timer);
    res.off('close', gone);
    // Stops the engine's stream (without waiting for a call still in the engine).
    void it.return?.(undefined).catch(() => {});
  }
}

/** The statement a request carries (query text from the URL and the body, format, parameters, id); refuses settings and unknown databases. */
async function readStatement(
  req: IncomingMessage,
  url: URL,
  limits: ClickHouseHttpLimits,
  databases: ReadonlySet<string>,
): Promise<Statement> {
  const params: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (name.startsWith('param_')) params[name.slice('param_'.length)] = value;
    else if (!IGNORED_PARAMETERS.has(name)) throw new ClickHouseHttpError(164, `Cannot modify '${name}' setting in readonly mode`);
  }
  const database = url.searchParams.get('database') ?? (req.headers['x-clickhouse-database'] as string | undefined);
  if (database && !databases.has(database)) throw new ClickHouseHttpError(81, `Database ${database} does not exist`);

  const body = req.method === 'POST' ? await readBody(req, limits.maxQueryBytes) : '';
  const query = [url.searchParams.get('query') ?? '', body].filter((s) => s.trim() !== '').join('\n');
  if (Buffer.byteLength(query) > limits.maxQueryBytes)
    throw new ClickHouseHttpError(62, `Max query size exceeded: the query is longer than ${limits.maxQueryBytes} bytes`);
  if (query.trim() === '') throw new ClickHouseHttpError(62, 'Empty query');
  const format = url.searchParams.get('default_format') ?? 'TabSeparated';
  const queryId = url.searchParams.get('query_id') || randomUUID();
  return { query, format, params, queryId };
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ClickHouseHttpError(62, `Max query size exceeded: the query is longer than ${max} bytes`);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

export function createClickHouseHttp(opts: ClickHouseHttpOptions): ClickHouseHttp {
  const limits: ClickHouseHttpLimits = { ...CLICKHOUSE_HTTP_LIMITS, ...opts.limits };
  const log = (opts.logger ?? silentLogger).child({ component: 'clickhouse-http' });
  const databases = new Set([opts.reader.database, ...(opts.databaseAliases ?? [])]);
  const admission = createAdmission({
    credentials: opts.credentials,
    ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}),
    ...(opts.challenge ? { challenge: true } : {}),
  });
  let version = 'unknown';
  let active = 0;

  const exceptionText = (e: ClickHouseHttpError): string =>
    `Code: ${e.code}. DB::Exception: ${e.message}. (${e.type}) (version ${version})\n`;

  const fail = (res: ServerResponse, e: ClickHouseHttpError, queryId: string | null): void => {
    if (res.headersSent) return;
    res.writeHead(statusForCode(e.code), {
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Exception-Code': String(e.code),
      'X-ClickHouse-Server-Display-Name': 'veronikai',
      ...(queryId ? { 'X-ClickHouse-Query-Id': queryId } : {}),
    });
    res.end(exceptionText(e));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://clickhouse.invalid');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method !== 'POST' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    // Before anything else is looked at, and before the body is read.
    const admitted = admission.admit(req, url);
    if (admitted.kind === 'refused') throw new ClickHouseHttpError(admitted.refusal.code, admitted.refusal.message, admitted.refusal.type);
    if (admitted.kind === 'challenge') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8', 'Cache-Control': 'no-store' }).end(admitted.body);
      return;
    }
    if (url.pathname !== '/')
      throw new ClickHouseHttpError(48, `There is no handler for ${url.pathname}: this interface serves / and /ping`);
    if (req.method !== 'GET' && req.method !== 'POST') throw new ClickHouseHttpError(48, `HTTP method ${req.method} is not supported here`);

    await serveStatement({ reader: opts.reader, limits, log, exceptionText }, req, res, await readStatement(req, url, limits, databases));
  }

  const server = createServer((req, res) => {
    if (active >= limits.maxConcurrent) {
      fail(res, new ClickHouseHttpError(202, `Too many simultaneous queries. Maximum: ${limits.maxConcurrent}`), null);
      req.resume();
      return;
    }
    active++;
    handle(req, res)
      .catch((err: unknown) => {
        const e = describeError(err);
        if (e.code === 1001) log.error({ err }, 'clickhouse interface: request failed');
        if (!res.headersSent) req.resume();
        fail(res, e, null);
      })
      .finally(() => active--);
  });
  server.keepAliveTimeout = 10_000;

  return {
    server,
    async listen(host, port) {
      // The engine's version, for the exception texts clients parse.
      for await (const chunk of opts.reader.stream('SELECT version()', { format: 'TabSeparated' }))
        version = Buffer.from(chunk.bytes).toString('utf8').trim() || version;
      admission.listeningOn(host);
      server.listen(port, host);
      await once(server, 'listening');
      return (server.address() as AddressInfo).port;
    },
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A stream still being read is cut: shutdown must not wait on a slow client.
      server.closeAllConnections();
      await closed;
    },
  };
}
