/**
 * The bounded GET client. Every network read of VeronikAI goes through `fetchBounded`:
 *
 * - GET only: no other method can be expressed through this API.
 * - One limit on the whole exchange (DNS + connect + TLS + headers + body).
 * - Body capped on DECODED bytes (gzip/deflate/br decoded here with node:zlib streams).
 * - Redirects followed by hand; every hop passes the SSRF guard again.
 * - The connection goes to the address the guard checked (pinned lookup), and the socket's
 *   remote address is checked once more after connecting.
 * - Errors never throw: they become an Exchange with an errorClass.
 *
 * It observes; it never judges (DESIGN principle 1).
 */
import { createHash } from 'node:crypto';
import type { LookupOneOptions } from 'node:dns';
import type { Socket } from 'node:net';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request } from 'undici';
import type { HostFailureTracker } from './host-tracker.js';
import {
  CARD_MAX_BYTES,
  MAX_ERROR_MESSAGE,
  MAX_HEADER_BYTES,
  MAX_RECORDED_HEADER_BYTES,
  MAX_RECORDED_HEADER_VALUE,
  MAX_REDIRECTS,
  MAX_RETRIES,
  MAX_URL_CHARS,
  REQUEST_TIMEOUT_MS,
  RETRY_BASE_DELAY_MS,
  WIRE_SLACK_BYTES,
} from './limits.js';
import { checkHost, isAddressPermitted, parseProbeUrl } from './ssrf-guard.js';
import { OMITTED_HEADERS_MARKER, REDIRECT_STATUSES, type AddressPolicy, type ErrorClass, type Exchange, type FetchResult, type LookupAddress } from './types.js';

/** The crawler's User-Agent, built from the configured contact address. */
export function userAgent(contact: string): string {
  const clean = String(contact ?? '').replace(/[^\x21-\x7e]/g, '').replace(/[();<>,"\\]/g, '').slice(0, 200);
  return `VeronikAI/0.1 (+mailto:${clean}; read-only directory crawler)`;
}

export interface FetchOptions extends AddressPolicy {
  /** Contact address for the User-Agent. */
  contact: string;
  /** Accept header; default `*\/*`. */
  accept?: string;
  /** Cap on decoded body bytes kept; default CARD_MAX_BYTES. */
  maxBytes?: number;
  /** Limit on one whole exchange (each hop, each attempt); default REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Extra request headers (e.g. If-None-Match). Credentials, cookies and hop-by-hop headers are dropped. */
  headers?: Record<string, string>;
  /**
   * What reaching the cap means: 'error' (default) records errorClass 'body_too_large';
   * 'truncate' (the MCP 2 KB read) records only `bodyTruncated: true`.
   */
  overCap?: 'error' | 'truncate';
  /** Follow redirects (default true). When false a 3xx is the final exchange and its body is read. */
  followRedirects?: boolean;
  /** Redirects followed at most; default MAX_REDIRECTS. */
  maxRedirects?: number;
  /**
   * Read the body for at most this long after the headers arrive, then stop without error
   * (`bodyTruncated: true`). Default: no window (the exchange limit applies).
   */
  bodyWindowMs?: number;
  /** Stop reading (without error, `bodyTruncated: true`) once this returns true for the body so far. */
  stopWhen?: (bodySoFar: Buffer, headers: Record<string, string>) => boolean;
  /** Retries of transient network errors; default MAX_RETRIES. */
  maxRetries?: number;
  /** First backoff delay, doubled per retry; default RETRY_BASE_DELAY_MS. */
  retryBaseDelayMs?: number;
  /** Injectable sleep (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Skips hosts after consecutive network failures (one tracker per run). */
  hostTracker?: HostFailureTracker;
  /** undici maxHeaderSize; default MAX_HEADER_BYTES. */
  maxHeaderSize?: number;
  /**
   * Politeness hook, called before every hop (the first request and each redirect target, after
   * the URL checks and the skipped-host check). It may wait (concurrency, pacing) or refuse the
   * hop, which is then recorded as a synthetic exchange with the refusal's errorClass. `done` is
   * called once with the hop's final exchange (after its retries).
   */
  gate?: RequestGate;
}

/** What a RequestGate answers for one hop. */
export type GateDecision =
  | { ok: true; done: (exchange: Exchange) => void }
  | { ok: false; errorClass: ErrorClass; message: string };

export type RequestGate = (url: URL) => Promise<GateDecision>;

/** Headers a caller may not set: we never authenticate, and the transport owns framing. */
const FORBIDDEN_REQUEST_HEADERS = new Set([
  'host',
  'authorization',
  'proxy-authorization',
  'cookie',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
]);

/** Response headers never recorded (server-set cookies are not ours to keep; our own size mark is ours alone). */
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', OMITTED_HEADERS_MARKER]);

/**
 * Response headers the judgement reads: recorded first, so the total-size cap never drops
 * them, and the last a probe event sheds when it must shrink.
 */
export const JUDGED_HEADERS: readonly string[] = [
  'content-type',
  'content-length',
  'content-encoding',
  'location',
  'www-authenticate',
  'retry-after',
  'mcp-session-id',
  'mcp-protocol-version',
];

/** Recorded first, so the total-size cap never drops them. */
const PRIORITY_HEADERS = [
  ...JUDGED_HEADERS,
  'etag',
  'last-modified',
  'cache-control',
  'allow',
  'date',
  'server',
];

const EMPTY = Buffer.alloc(0);
const EMPTY_SHA256 = sha256(EMPTY);

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

function cut(text: string, max = MAX_ERROR_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function buildRequestHeaders(opts: FetchOptions): Record<string, string> {
  const out: Record<string, string> = {
    'user-agent': userAgent(opts.contact),
    accept: opts.accept ?? '*/*',
    'accept-encoding': 'gzip, deflate, br',
  };
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const n = name.toLowerCase().trim();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(n) || FORBIDDEN_REQUEST_HEADERS.has(n) || n.startsWith('proxy-')) continue;
    const v = String(value);
    if (/[\r\n\0]/.test(v)) continue;
    out[n] = v;
  }
  return out;
}

function recordHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    if (DROPPED_RESPONSE_HEADERS.has(n)) continue;
    const v = Array.isArray(value) ? value.join(', ') : String(value);
    entries.push([n, v.length > MAX_RECORDED_HEADER_VALUE ? v.slice(0, MAX_RECORDED_HEADER_VALUE) : v]);
  }
  const rank = (n: string): number => {
    const i = PRIORITY_HEADERS.indexOf(n);
    return i < 0 ? PRIORITY_HEADERS.length : i;
  };
  entries.sort((a, b) => rank(a[0]) - rank(b[0]));
  const out: Record<string, string> = {};
  let total = 0;
  for (const [n, v] of entries) {
    const size = n.length + v.length + 4;
    if (total + size > MAX_RECORDED_HEADER_BYTES) continue;
    total += size;
    out[n] = n in out ? `${out[n]}, ${v}` : v;
  }
  return out;
}

interface Attempt {
  exchange: Exchange;
  retryable: boolean;
  /** The redirect target as sent (read from the raw headers, never from the cut recorded value). */
  location: RedirectLocation;
}

/**
 * The Location of a response: none, one usable value, or one we will not follow (longer than we
 * record, MAX_RECORDED_HEADER_VALUE, or several different values).
 */
type RedirectLocation = { kind: 'none' } | { kind: 'url'; value: string } | { kind: 'refused'; reason: string };

const NO_LOCATION: RedirectLocation = { kind: 'none' };

function redirectLocation(raw: string | string[] | undefined): RedirectLocation {
  if (raw === undefined) return NO_LOCATION;
  const values = [...new Set((Array.isArray(raw) ? raw : [raw]).map(String))];
  if (values.length === 0) return NO_LOCATION;
  if (values.length > 1) return { kind: 'refused', reason: `${values.length} different Location headers` };
  const value = values[0]!;
  // The recorded Location is cut at MAX_RECORDED_HEADER_VALUE: a longer one would be followed unrecorded.
  if (value.length > MAX_RECORDED_HEADER_VALUE) {
    return { kind: 'refused', reason: `Location is ${value.length} characters long, over the ${MAX_RECORDED_HEADER_VALUE}-character limit` };
  }
  return { kind: 'url', value };
}

function baseExchange(url: string, requestHeaders: Record<string, string>, started: Date): Exchange {
  return {
    url,
    method: 'GET',
    requestHeaders,
    status: null,
    headers: {},
    body: EMPTY,
    bodyTruncated: false,
    bodyBytes: 0,
    bodySha256: EMPTY_SHA256,
    remoteAddress: null,
    startedAt: started.toISOString(),
    durationMs: 0,
    errorClass: null,
    errorMessage: null,
    retries: 0,
  };
}

/** A synthetic exchange: nothing was sent (invalid URL, loop, too many redirects, skipped host). */
function syntheticExchange(url: string, opts: FetchOptions, errorClass: ErrorClass, message: string): Exchange {
  const ex = baseExchange(cut(url, MAX_URL_CHARS), buildRequestHeaders(opts), new Date());
  ex.errorClass = errorClass;
  ex.errorMessage = cut(message);
  return ex;
}

function normalizeAddress(address: string): string {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')).toString();
  } catch {
    return address;
  }
}

interface ConnState {
  connected: boolean;
  remoteAddress: string | null;
  blocked: string | null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An undici Agent for one hop whose every connection goes to the addresses the guard checked,
 * and whose sockets are refused if their remote address is anything else.
 */
function pinnedAgent(
  addresses: LookupAddress[],
  hostname: string,
  policy: AddressPolicy,
  state: ConnState,
  timeoutMs: number,
  maxHeaderSize: number,
): Agent {
  const lookup = (_host: string, options: LookupOneOptions | number | undefined, cb: LookupCallback): void => {
    const family = typeof options === 'number' ? options : options?.family;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const list = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (list.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no checked address of family ${String(family)}`);
      err.code = 'ENOTFOUND';
      cb(err, '');
      return;
    }
    if (all) cb(null, list.map((a) => ({ address: a.address, family: a.family })));
    else cb(null, list[0]!.address, list[0]!.family);
  };
  const base = buildConnector({
    timeout: timeoutMs,
    maxCachedSessions: 0,
    keepAlive: false,
    lookup: lookup as unknown as never,
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (options, callback) => {
    base(options, (err, socket) => {
      if (err || !socket) {
        callback(err ?? new Error('connect failed'), null);
        return;
      }
      const remote = normalizeAddress((socket as Socket).remoteAddress ?? '');
      const permitted = isAddressPermitted(remote, hostname, policy);
      const pinned = addresses.some((a) => normalizeAddress(a.address) === remote);
      if (!permitted.ok || !pinned) {
        state.blocked = `connected address ${remote || 'unknown'} was not the checked address (${permitted.range})`;
        socket.destroy();
        const e: NodeJS.ErrnoException = new Error(state.blocked);
        e.code = 'ERR_VERONIKAI_BLOCKED';
        callback(e, null);
        return;
      }
      state.connected = true;
      state.remoteAddress = remote;
      callback(null, socket);
    });
  };
  return new Agent({
    connect,
    maxHeaderSize,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 1,
    pipelining: 1,
    keepAliveTimeout: 1000,
  });
}

function errorCodes(err: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (e === null || e === undefined || typeof e !== 'object' || seen.has(e) || depth > 5) return;
    seen.add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; name?: unknown };
    if (typeof o.code === 'string') codes.push(o.code);
    if (typeof o.message === 'string' && o.message) messages.push(o.message);
    if (typeof o.name === 'string' && o.name === 'AbortError') codes.push('ABORT_ERR');
    // undici's parser errors carry their kind in the name, not always in a code.
    if (typeof o.name === 'string' && o.name === 'HTTPParserError') codes.push('HPE_PARSER');
    visit(o.cause, depth + 1);
    if (Array.isArray(o.errors)) for (const x of o.errors) visit(x, depth + 1);
  };
  visit(err, 0);
  return { codes, messages };
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface Classified {
  errorClass: ErrorClass;
  message: string;
}

function classifyError(err: unknown): Classified {
  const { codes, messages } = errorCodes(err);
  const message = cut([codes[0], messages[0]].filter(Boolean).join(': ') || String(err));
  const has = (...c: string[]): boolean => codes.some((x) => c.includes(x));
  if (has('ERR_VERONIKAI_BLOCKED')) return { errorClass: 'blocked_address', message };
  if (has('UND_ERR_HEADERS_OVERFLOW')) return { errorClass: 'headers_too_large', message };
  if (codes.some((c) => TLS_CODES.has(c) || c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_') || c.includes('CERT'))) {
    return { errorClass: 'tls', message };
  }
  if (has('EPROTO') && messages.some((m) => /ssl|tls/i.test(m))) return { errorClass: 'tls', message };
  if (has('ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETDOWN')) return { errorClass: 'refused', message };
  if (has('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT')) {
    return { errorClass: 'timeout', message };
  }
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'EAI_NONAME')) return { errorClass: 'dns', message };
  if (has('ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ERR_STREAM_PREMATURE_CLOSE')) {
    return { errorClass: 'reset', message };
  }
  if (codes.some((c) => c.startsWith('HPE_') || c.startsWith('Z_') || c.startsWith('ERR_BROTLI') || c === 'ERR_ZLIB_INITIALIZATION_FAILED')) {
    return { errorClass: 'protocol', message };
  }
  if (has('UND_ERR_INFO', 'UND_ERR_RESPONSE_STATUS_CODE', 'UND_ERR_NOT_SUPPORTED')) return { errorClass: 'protocol', message };
  return { errorClass: 'other', message };
}

class StopReading extends Error {
  override name = 'StopReading';
}

function makeDecoder(encoding: string, firstBytes: Buffer | null): Transform | null {
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(flush);
    case 'deflate': {
      // "deflate" should be zlib-wrapped (RFC 9110); some servers send raw deflate. Sniff when we can.
      const b = firstBytes;
      const zlibWrapped = !b || b.length < 2 || ((b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0);
      return zlibWrapped ? zlib.createInflate(flush) : zlib.createInflateRaw(flush);
    }
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return null;
  }
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

interface ResolvedOptions {
  maxBytes: number;
  timeoutMs: number;
  overCap: 'error' | 'truncate';
  follow: boolean;
  maxHeaderSize: number;
}

/** One attempt at one hop. Never throws. */
async function attempt(url: URL, opts: FetchOptions, ro: ResolvedOptions): Promise<Attempt> {
  const requestHeaders = buildRequestHeaders(opts);
  const started = new Date();
  const t0 = performance.now();
  const ex = baseExchange(url.href, requestHeaders, started);
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new Error(`exchange limit of ${ro.timeoutMs} ms reached`));
  }, ro.timeoutMs);
  const state: ConnState = { connected: false, remoteAddress: null, blocked: null };
  let agent: Agent | undefined;
  let body: Readable | undefined;
  let windowTimer: NodeJS.Timeout | undefined;
  let retryable = false;
  let location: RedirectLocation = NO_LOCATION;

  const finish = (): Attempt => {
    ex.durationMs = Math.round(performance.now() - t0);
    ex.remoteAddress = state.remoteAddress;
    return { exchange: ex, retryable, location };
  };

  try {
    let check;
    try {
      check = await raceAbort(checkHost(url.hostname, opts), ac.signal);
    } catch {
      ex.errorClass = 'timeout';
      ex.errorMessage = `name resolution of ${url.hostname} did not finish within ${ro.timeoutMs} ms`;
      retryable = true;
      return finish();
    }
    if (!check.ok) {
      ex.errorClass = check.errorClass;
      ex.errorMessage = cut(check.message);
      retryable = check.errorClass === 'dns' && check.temporary;
      return finish();
    }

    agent = pinnedAgent(check.addresses, check.hostname, opts, state, ro.timeoutMs, ro.maxHeaderSize);
    const res = await request(url, {
      method: 'GET',
      headers: requestHeaders,
      dispatcher: agent,
      signal: ac.signal,
      headersTimeout: ro.timeoutMs,
      bodyTimeout: ro.timeoutMs,
      reset: true,
    });
    body = res.body;
    // Destroying an unfinished undici body emits 'error'; it is expected here, never fatal.
    body.on('error', () => undefined);
    ex.status = res.statusCode;
    ex.headers = recordHeaders(res.headers as Record<string, string | string[] | undefined>);
    location = redirectLocation(res.headers.location);

    // A redirect we will follow (or refuse to): its body is not read.
    if (ro.follow && REDIRECT_STATUSES.has(res.statusCode) && location.kind !== 'none') {
      ex.bodyTruncated = ex.headers['content-length'] !== '0';
      body.destroy();
      return finish();
    }

    const encodings = (ex.headers['content-encoding'] ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e !== '' && e !== 'identity');
    const unsupported = encodings.find((e) => !['gzip', 'x-gzip', 'deflate', 'br'].includes(e));

    // Announced too large and not compressed: stop now instead of reading what we would discard.
    const declared = Number(ex.headers['content-length']);
    if (ro.overCap === 'error' && encodings.length === 0 && Number.isFinite(declared) && declared > ro.maxBytes) {
      ex.bodyTruncated = true;
      ex.errorClass = 'body_too_large';
      ex.errorMessage = `content-length ${declared} exceeds the ${ro.maxBytes}-byte cap`;
      body.destroy();
      return finish();
    }

    // Body reading: source → wire counter → decoders (outermost first) → capped sink.
    const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head: Buffer[] = [];
    let sourceDone = false;
    const lastEncoding = encodings[encodings.length - 1];
    if (!unsupported && lastEncoding === 'deflate') {
      let n = 0;
      while (n < 2) {
        const r = await raceAbort(it.next(), ac.signal);
        if (r.done) {
          sourceDone = true;
          break;
        }
        head.push(r.value);
        n += r.value.length;
      }
    }
    async function* source(): AsyncGenerator<Buffer> {
      try {
        for (const c of head) yield c;
        if (sourceDone) return;
        for (;;) {
          const r = await it.next();
          if (r.done) return;
          yield r.value;
        }
      } finally {
        await it.return?.();
      }
    }

    let stop: 'cap' | 'wire' | 'window' | 'stopWhen' | null = null;
    let wire = 0;
    const decoders: Transform[] = [];
    if (!unsupported) {
      const headBuf = head.length ? Buffer.concat(head) : null;
      for (let i = encodings.length - 1; i >= 0; i--) {
        decoders.push(makeDecoder(encodings[i]!, i === encodings.length - 1 ? headBuf : null)!);
      }
    }
    const wireLimit = decoders.length ? ro.maxBytes + WIRE_SLACK_BYTES : Number.POSITIVE_INFINITY;
    const wireCounter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        wire += chunk.length;
        if (wire > wireLimit) {
          stop ??= 'wire';
          cb(new StopReading('compressed input exceeds the cap'));
          return;
        }
        cb(null, chunk);
      },
    });
    const kept: Buffer[] = [];
    let keptLen = 0;
    const headers = ex.headers;
    const stopWhen = opts.stopWhen;
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        ex.bodyBytes += chunk.length;
        const room = ro.maxBytes - keptLen;
        if (chunk.length > room) {
          if (room > 0) {
            kept.push(chunk.subarray(0, room));
            keptLen += room;
          }
          stop ??= 'cap';
          cb(new StopReading('cap reached'));
          return;
        }
        kept.push(chunk);
        keptLen += chunk.length;
        if (stopWhen && stopWhen(Buffer.concat(kept), headers)) {
          stop ??= 'stopWhen';
          cb(new StopReading('enough read'));
          return;
        }
        cb();
      },
    });

    const windowAc = new AbortController();
    if (opts.bodyWindowMs !== undefined && opts.bodyWindowMs >= 0) {
      windowTimer = setTimeout(() => {
        stop ??= 'window';
        windowAc.abort(new StopReading('read window over'));
      }, opts.bodyWindowMs);
    }
    const signal = AbortSignal.any([ac.signal, windowAc.signal]);
    let readError: unknown = null;
    try {
      await pipeline(Readable.from(source(), { objectMode: false }), wireCounter, ...decoders, sink, { signal });
    } catch (e) {
      readError = e;
    }
    ex.body = keptLen ? Buffer.concat(kept, keptLen) : EMPTY;
    ex.bodySha256 = sha256(ex.body);

    if (stop !== null && !(timedOut && stop === 'window')) {
      ex.bodyTruncated = true;
      if (stop === 'cap' && ro.overCap === 'error') {
        ex.errorClass = 'body_too_large';
        ex.errorMessage = `body exceeds the ${ro.maxBytes}-byte cap (decoded)`;
      } else if (stop === 'wire' && ro.overCap === 'error') {
        ex.errorClass = 'body_too_large';
        ex.errorMessage = `compressed body exceeds ${wireLimit} bytes before reaching the ${ro.maxBytes}-byte decoded cap`;
      }
    } else if (timedOut) {
      ex.bodyTruncated = true;
      ex.errorClass = 'timeout';
      ex.errorMessage = `exchange limit of ${ro.timeoutMs} ms reached while reading the body`;
    } else if (readError !== null) {
      ex.bodyTruncated = true;
      const c = classifyError(readError);
      ex.errorClass = c.errorClass;
      ex.errorMessage = c.message;
    }
    if (unsupported && ex.errorClass === null) {
      ex.errorClass = 'protocol';
      ex.errorMessage = `unsupported content-encoding "${unsupported}"; body kept as received`;
    }
    return finish();
  } catch (err) {
    if (timedOut) {
      ex.errorClass = 'timeout';
      ex.errorMessage = state.connected
        ? `exchange limit of ${ro.timeoutMs} ms reached waiting for the response`
        : `exchange limit of ${ro.timeoutMs} ms reached while connecting`;
      retryable = !state.connected;
    } else if (state.blocked) {
      ex.errorClass = 'blocked_address';
      ex.errorMessage = cut(state.blocked);
    } else {
      const c = classifyError(err);
      ex.errorClass = c.errorClass;
      ex.errorMessage = c.message;
      retryable =
        ex.status === null &&
        (c.errorClass === 'refused' ||
          (c.errorClass === 'timeout' && !state.connected) ||
          c.errorClass === 'reset');
    }
    return finish();
  } finally {
    clearTimeout(timer);
    if (windowTimer) clearTimeout(windowTimer);
    if (body && !body.destroyed) body.destroy();
    if (agent) agent.destroy().catch(() => undefined);
  }
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One hop with retries of transient network errors and the host-failure tracker. */
async function exchangeWithRetries(url: URL, opts: FetchOptions, ro: ResolvedOptions): Promise<{ exchange: Exchange; location: RedirectLocation }> {
  const tracker = opts.hostTracker;
  if (tracker?.isSkipped(url.hostname)) {
    const exchange = syntheticExchange(
      url.href,
      opts,
      'host_skipped',
      `host ${url.hostname} skipped for this run after ${tracker.limit} consecutive network failures`,
    );
    return { exchange, location: NO_LOCATION };
  }
  let permit: ((exchange: Exchange) => void) | null = null;
  if (opts.gate) {
    const decision = await opts.gate(url);
    if (!decision.ok) return { exchange: syntheticExchange(url.href, opts, decision.errorClass, decision.message), location: NO_LOCATION };
    permit = decision.done;
  }
  const maxRetries = Math.max(0, opts.maxRetries ?? MAX_RETRIES);
  const base = opts.retryBaseDelayMs ?? RETRY_BASE_DELAY_MS;
  const sleep = opts.sleep ?? defaultSleep;
  let last: Exchange | null = null;
  try {
    for (let retries = 0; ; retries++) {
      const { exchange, retryable, location } = await attempt(url, opts, ro);
      exchange.retries = retries;
      last = exchange;
      if (!retryable || retries >= maxRetries) {
        tracker?.record(url.hostname, exchange);
        return { exchange, location };
      }
      await sleep(base * 2 ** retries);
    }
  } finally {
    if (permit) permit(last ?? syntheticExchange(url.href, opts, 'other', 'no attempt finished'));
  }
}

/**
 * GET `url` within the bounds, following redirects by hand. Never throws: every failure is an
 * Exchange with an errorClass. `final` is the last exchange.
 */
export async function fetchBounded(url: string, opts: FetchOptions): Promise<FetchResult> {
  const exchanges: Exchange[] = [];
  try {
    const ro: ResolvedOptions = {
      maxBytes: Math.max(0, Math.floor(opts.maxBytes ?? CARD_MAX_BYTES)),
      timeoutMs: Math.max(1, Math.floor(opts.timeoutMs ?? REQUEST_TIMEOUT_MS)),
      overCap: opts.overCap ?? 'error',
      follow: opts.followRedirects ?? true,
      maxHeaderSize: opts.maxHeaderSize ?? MAX_HEADER_BYTES,
    };
    const maxRedirects = Math.max(0, opts.maxRedirects ?? MAX_REDIRECTS);
    const visited = new Set<string>();
    let current = url;
    for (let followed = 0; ; followed++) {
      const parsed = parseProbeUrl(current);
      if (!parsed.ok) {
        exchanges.push(syntheticExchange(current, opts, 'invalid_url', parsed.message));
        break;
      }
      const href = parsed.url.href;
      if (visited.has(href)) {
        exchanges.push(syntheticExchange(href, opts, 'redirect_loop', `redirect loop: ${href} was already visited`));
        break;
      }
      visited.add(href);
      const { exchange: ex, location } = await exchangeWithRetries(parsed.url, opts, ro);
      exchanges.push(ex);
      if (!ro.follow || ex.status === null || !REDIRECT_STATUSES.has(ex.status) || location.kind === 'none') break;
      if (location.kind === 'refused') {
        // The recorded Location is cut at MAX_RECORDED_HEADER_VALUE: never follow a cut URL.
        exchanges.push(syntheticExchange(ex.headers.location ?? '', opts, 'invalid_url', `redirect not followed: ${location.reason}`));
        break;
      }
      let next: URL;
      try {
        next = new URL(location.value, parsed.url);
      } catch {
        exchanges.push(syntheticExchange(location.value, opts, 'invalid_url', 'redirect Location is not a valid URL'));
        break;
      }
      if (followed >= maxRedirects) {
        exchanges.push(
          syntheticExchange(next.href, opts, 'too_many_redirects', `more than ${maxRedirects} redirects; not followed`),
        );
        break;
      }
      current = next.href;
    }
  } catch (err) {
    exchanges.push(syntheticExchange(String(url), opts, 'other', `internal error: ${String(err)}`));
  }
  if (exchanges.length === 0) exchanges.push(syntheticExchange(String(url), opts, 'other', 'no exchange recorded'));
  return { exchanges, final: exchanges[exchanges.length - 1]! };
}
