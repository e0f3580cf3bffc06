/**
 * A general bounded request (GET, POST, DELETE) for the owner-run `veronikai inspect`, built
 * from the same parts as the GET-only client (client.ts), whose behaviour it leaves alone:
 *
 * - every hop passes the SSRF guard (loopback only with `allowLoopback`), connects to the
 *   checked address (pinned lookup) and is checked again on connect;
 * - one limit on the whole exchange; the body capped on DECODED bytes (body.ts);
 * - redirects followed by hand for GET only, each hop guarded anew; headers the caller marks
 *   as credentials are dropped on a hop to another origin;
 * - the caller names the User-Agent (the inspect identifies itself, not the crawler);
 * - credentials (header values in `secretHeaders`) are never recorded: the recorded request
 *   headers read `[redacted]` for them;
 * - never throws: every failure is an exchange with an errorClass. No retries: a POST is not
 *   idempotent, and the inspect counts every request against its budget.
 *
 * `openEventStream` keeps a GET's `text/event-stream` body open and hands out its events one by
 * one (the legacy HTTP+SSE transport answers POSTs on that stream), within a byte cap and a limit.
 */
import type { Readable } from 'node:stream';
import { request, type Agent } from 'undici';
import { readBody } from './body.js';
import { recordFailure, sendPinned } from './send.js';
import { classifyError } from './errors.js';
import { ExchangeLimit, raceAbort } from './exchange-limit.js';
import { EMPTY, baseExchange, cut, recordHeaders, redirectLocation, sha256 } from './exchange-record.js';
import { MAX_HEADER_BYTES, MAX_REDIRECTS } from './limits.js';
import type { FetchOptions, ResolvedOptions } from './options.js';
import { pinnedAgent, type ConnState } from './pinned-agent.js';
import { checkHost, parseProbeUrl } from './ssrf-guard.js';
import { REDIRECT_STATUSES, type AddressPolicy, type Exchange } from './types.js';

export type RequestMethod = 'GET' | 'POST' | 'DELETE';

/** An exchange of any method (the GET client's Exchange with a wider method). */
export type RequestExchange = Omit<Exchange, 'method'> & { method: RequestMethod };

export interface RequestOptions extends AddressPolicy {
  method: RequestMethod;
  /** The whole User-Agent value. */
  userAgent: string;
  /** Request headers (lowercase or not). Framing headers are set here and cannot be overridden. */
  headers?: Record<string, string>;
  /** Names of headers in `headers` that carry credentials: never recorded, never sent to another origin. */
  secretHeaders?: readonly string[];
  /** Request body (POST). */
  body?: string;
  /** Content-Type of the body; default application/json. */
  contentType?: string;
  /** Cap on decoded body bytes kept. */
  maxBytes: number;
  /** Limit on each hop's whole exchange. */
  timeoutMs: number;
  /** 'error' (default) records body_too_large at the cap; 'truncate' only marks the body truncated. */
  overCap?: 'error' | 'truncate';
  /** GET only: follow redirects (default false). */
  followRedirects?: boolean;
  maxRedirects?: number;
  /** Stop reading once this returns true for the body so far (e.g. a complete JSON-RPC reply on an event stream). */
  stopWhen?: (bodySoFar: Buffer, headers: Record<string, string>) => boolean;
  /** Read the body for at most this long after the headers arrived. */
  bodyWindowMs?: number;
}

export interface RequestResult {
  exchanges: RequestExchange[];
  final: RequestExchange;
}

/** Framing and identity headers the caller may not set. */
const OWNED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'user-agent']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
export const REDACTED = '[redacted]';

interface Built {
  send: Record<string, string>;
  record: Record<string, string>;
}

function buildHeaders(opts: RequestOptions, sameOrigin: boolean): Built {
  const secret = new Set((opts.secretHeaders ?? []).map((h) => h.toLowerCase()));
  const send: Record<string, string> = { 'user-agent': opts.userAgent, accept: '*/*', 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const n = name.toLowerCase().trim();
    const v = String(value);
    if (!HEADER_NAME.test(n) || OWNED.has(n) || /[\r\n\0]/.test(v)) continue;
    if (secret.has(n) && !sameOrigin) continue;
    send[n] = v;
  }
  if (opts.body !== undefined) send['content-type'] = opts.contentType ?? 'application/json';
  const record: Record<string, string> = {};
  for (const [n, v] of Object.entries(send)) record[n] = secret.has(n) ? REDACTED : v;
  return { send, record };
}

function synthetic(url: string, method: RequestMethod, headers: Record<string, string>, errorClass: Exchange['errorClass'], message: string): RequestExchange {
  const ex = baseExchange(url, headers, new Date()) as unknown as RequestExchange;
  ex.method = method;
  ex.errorClass = errorClass;
  ex.errorMessage = cut(message);
  return ex;
}

function resolved(opts: RequestOptions, follow: boolean): ResolvedOptions {
  return {
    maxBytes: Math.max(0, Math.floor(opts.maxBytes)),
    timeoutMs: Math.max(1, Math.floor(opts.timeoutMs)),
    overCap: opts.overCap ?? 'error',
    follow,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
}

/** One hop: guard, pinned connection, send, read headers and the bounded body. Never throws. */
async function hop(url: URL, opts: RequestOptions, built: Built, ro: ResolvedOptions): Promise<{ ex: RequestExchange; location: ReturnType<typeof redirectLocation> }> {
  const ex = baseExchange(url.href, built.record, new Date()) as unknown as RequestExchange;
  ex.method = opts.method;
  const t0 = performance.now();
  const limit = new ExchangeLimit(ro.timeoutMs);
  const conn: ConnState = { connected: false, remoteAddress: null, blocked: null };
  let agent: Agent | undefined;
  let body: Readable | undefined;
  let location = redirectLocation(undefined);
  try {
    let check;
    try {
      check = await raceAbort(checkHost(url.hostname, opts), limit.signal);
    } catch {
      ex.errorClass = 'timeout';
      ex.errorMessage = `name resolution of ${url.hostname} did not finish within ${limit.ms} ms`;
      return { ex, location };
    }
    if (!check.ok) {
      ex.errorClass = check.errorClass;
      ex.errorMessage = cut(check.message);
      return { ex, location };
    }
    agent = pinnedAgent(check.addresses, check.hostname, opts, conn, ro.timeoutMs, ro.maxHeaderSize);
    const sent = await sendPinned(url, { method: opts.method, headers: built.send, ...(opts.body !== undefined ? { body: opts.body } : {}) }, agent, ro, limit, ex);
    body = sent.body;
    location = sent.location;
    if (!sent.redirect) {
      const fo: FetchOptions = { contact: '', ...(opts.stopWhen ? { stopWhen: opts.stopWhen } : {}), ...(opts.bodyWindowMs !== undefined ? { bodyWindowMs: opts.bodyWindowMs } : {}) };
      await readBody(body, ex as unknown as Exchange, fo, ro, limit);
    }
  } catch (err) {
    recordFailure(ex, err, conn, limit);
  } finally {
    limit.clear();
    if (body && !body.destroyed) body.destroy();
    if (agent) agent.destroy().catch(() => undefined);
    ex.durationMs = Math.round(performance.now() - t0);
    ex.remoteAddress = conn.remoteAddress;
  }
  return { ex, location };
}

/** Sends one request within the bounds (GET may follow redirects). Never throws. */
export async function requestBounded(url: string, opts: RequestOptions): Promise<RequestResult> {
  const exchanges: RequestExchange[] = [];
  const follow = opts.method === 'GET' && opts.followRedirects === true;
  const ro = resolved(opts, follow);
  const first = parseProbeUrl(url);
  try {
    if (!first.ok) {
      exchanges.push(synthetic(url, opts.method, buildHeaders(opts, false).record, 'invalid_url', first.message));
    } else {
      const origin = first.url.origin;
      let current = first.url;
      const visited = new Set<string>();
      const max = Math.max(0, opts.maxRedirects ?? MAX_REDIRECTS);
      for (let followed = 0; ; followed++) {
        const built = buildHeaders(opts, current.origin === origin);
        if (visited.has(current.href)) {
          exchanges.push(synthetic(current.href, opts.method, built.record, 'redirect_loop', `redirect loop: ${current.href} was already visited`));
          break;
        }
        visited.add(current.href);
        const { ex, location } = await hop(current, opts, built, ro);
        exchanges.push(ex);
        if (!follow || ex.status === null || !REDIRECT_STATUSES.has(ex.status) || location.kind === 'none') break;
        if (location.kind === 'refused') {
          exchanges.push(synthetic(ex.headers.location ?? '', opts.method, built.record, 'invalid_url', `redirect not followed: ${location.reason}`));
          break;
        }
        let next: URL;
        try {
          next = new URL(location.value, current);
        } catch {
          exchanges.push(synthetic(location.value, opts.method, built.record, 'invalid_url', 'redirect Location is not a valid URL'));
          break;
        }
        const parsed = parseProbeUrl(next);
        if (!parsed.ok) {
          exchanges.push(synthetic(next.href, opts.method, built.record, 'invalid_url', parsed.message));
          break;
        }
        if (followed >= max) {
          exchanges.push(synthetic(next.href, opts.method, built.record, 'too_many_redirects', `more than ${max} redirects; not followed`));
          break;
        }
        current = parsed.url;
      }
    }
  } catch (err) {
    exchanges.push(synthetic(url, opts.method, {}, 'other', `internal error: ${String(err)}`));
  }
  if (exchanges.length === 0) exchanges.push(synthetic(url, opts.method, {}, 'other', 'no exchange recorded'));
  return { exchanges, final: exchanges[exchanges.length - 1]! };
}

// ---------------------------------------------------------------- event streams

export interface EventStream {
  /** The GET as recorded so far (status, headers; `body` holds the stream text read, up to the cap). */
  exchange: RequestExchange;
  /** True while the stream is open and under its cap. */
  readonly open: boolean;
  /** Waits up to `ms` for more bytes; resolves with the whole text read so far (never throws). */
  waitFor(predicate: (textSoFar: string) => boolean, ms: number): Promise<string>;
  /** Closes the stream and the connection; the exchange then holds what was read. */
  close(): void;
}

/**
 * Opens a GET whose answer is kept open when it is `text/event-stream`. Any other answer is
 * read whole (bounded) and returned closed. The stream lives until `close()`, `limitMs`, or
 * `maxBytes` read, whichever comes first.
 */
export async function openEventStream(url: string, opts: Omit<RequestOptions, 'method' | 'body' | 'followRedirects'> & { limitMs: number }): Promise<EventStream> {
  const parsed = parseProbeUrl(url);
  const built = buildHeaders({ ...opts, method: 'GET' }, true);
  built.send.accept = 'text/event-stream';
  built.record.accept = 'text/event-stream';
  // Identity: a live stream is read as it comes, without decoders.
  built.send['accept-encoding'] = 'identity';
  built.record['accept-encoding'] = 'identity';
  const closed = (ex: RequestExchange): EventStream => ({ exchange: ex, open: false, waitFor: async () => ex.body.toString('utf8'), close: () => undefined });
  if (!parsed.ok) return closed(synthetic(url, 'GET', built.record, 'invalid_url', parsed.message));

  const ex = baseExchange(parsed.url.href, built.record, new Date()) as unknown as RequestExchange;
  ex.method = 'GET';
  const t0 = performance.now();
  const limit = new ExchangeLimit(Math.max(1, Math.floor(opts.limitMs)));
  const conn: ConnState = { connected: false, remoteAddress: null, blocked: null };
  let agent: Agent | undefined;
  let body: Readable | undefined;
  const finish = (): void => {
    limit.clear();
    if (body && !body.destroyed) body.destroy();
    if (agent) agent.destroy().catch(() => undefined);
    ex.durationMs = Math.round(performance.now() - t0);
    ex.remoteAddress = conn.remoteAddress;
  };
  try {
    const check = await raceAbort(checkHost(parsed.url.hostname, opts), limit.signal);
    if (!check.ok) {
      ex.errorClass = check.errorClass;
      ex.errorMessage = cut(check.message);
      finish();
      return closed(ex);
    }
    agent = pinnedAgent(check.addresses, check.hostname, opts, conn, opts.timeoutMs, MAX_HEADER_BYTES);
    const res = await request(parsed.url, { method: 'GET', headers: built.send, dispatcher: agent, signal: limit.signal, headersTimeout: opts.timeoutMs, bodyTimeout: opts.limitMs, reset: true });
    body = res.body;
    body.on('error', () => undefined);
    ex.status = res.statusCode;
    ex.headers = recordHeaders(res.headers as Record<string, string | string[] | undefined>);
    const isStream = res.statusCode === 200 && /^\s*text\/event-stream\b/i.test(ex.headers['content-type'] ?? '');
    if (!isStream) {
      const ro = resolved({ ...opts, method: 'GET' }, false);
      await readBody(body, ex as unknown as Exchange, { contact: '' }, ro, limit);
      finish();
      return closed(ex);
    }
  } catch (err) {
    if (limit.timedOut) {
      ex.errorClass = 'timeout';
      ex.errorMessage = `limit of ${limit.ms} ms reached before the stream opened`;
    } else if (conn.blocked) {
      ex.errorClass = 'blocked_address';
      ex.errorMessage = cut(conn.blocked);
    } else {
      const c = classifyError(err);
      ex.errorClass = c.errorClass;
      ex.errorMessage = c.message;
    }
    finish();
    return closed(ex);
  }

  // The stream is open: collect its bytes as they come, up to the cap.
  const chunks: Buffer[] = [];
  let size = 0;
  let open = true;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  const stop = (truncated: boolean): void => {
    if (!open) return;
    open = false;
    ex.body = size ? Buffer.concat(chunks, size) : EMPTY;
    ex.bodySha256 = sha256(ex.body);
    ex.bodyTruncated = truncated;
    finish();
    wake();
  };
  const stream = body!;
  stream.on('data', (chunk: Buffer) => {
    if (!open) return;
    ex.bodyBytes += chunk.length;
    const room = opts.maxBytes - size;
    if (chunk.length > room) {
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        size += room;
      }
      stop(true);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
    wake();
  });
  stream.on('end', () => stop(false));
  stream.on('close', () => stop(open));
  limit.signal.addEventListener('abort', () => stop(true), { once: true });
  const text = (): string => Buffer.concat(chunks, size).toString('utf8');

  return {
    exchange: ex,
    get open() {
      return open;
    },
    waitFor(predicate, ms) {
      return new Promise<string>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(text());
        };
        const check = (): void => {
          if (!open || predicate(text())) done();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        waiters.add(check);
        check();
      });
    },
    close() {
      stop(false);
    },
  };
}
