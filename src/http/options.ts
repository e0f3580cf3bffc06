import type { HostFailureTracker } from './host-tracker.js';
import type { PinnedConnections } from './pinned-pool.js';
import { CARD_MAX_BYTES, MAX_HEADER_BYTES, MAX_RETRIES, REQUEST_TIMEOUT_MS } from './limits.js';
import type { AddressPolicy, ErrorClass, Exchange, RequestMethod } from './types.js';

/** What one bounded request may do. Every default is the crawler's GET. */
export interface RequestOptions extends AddressPolicy {
  /** Default GET. Only a GET follows redirects; only a GET is retried unless `maxRetries` says otherwise. */
  method?: RequestMethod;
  /** Contact address for the crawler's User-Agent. */
  contact?: string;
  /** The whole User-Agent value instead of the crawler's (the inspect and the webhooks name themselves). */
  userAgent?: string;
  /** Accept header; default `*\/*`. */
  accept?: string;
  /**
   * Extra request headers (e.g. If-None-Match). Framing headers are dropped; so are credentials
   * (Authorization, Cookie, Proxy-*) unless named in `secretHeaders`.
   */
  headers?: Record<string, string>;
  /**
   * Names of headers in `headers` that carry the caller's credentials: sent to the first URL's
   * origin only, and recorded as `[redacted]`.
   */
  secretHeaders?: readonly string[];
  /** Request body (POST). */
  body?: string;
  /** Content-Type of the body; default application/json. */
  contentType?: string;
  /** Cap on decoded body bytes kept; default CARD_MAX_BYTES. */
  maxBytes?: number;
  /** Limit on one whole exchange (each hop, each attempt); default REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
  /**
   * What reaching the cap means: 'error' (default) records errorClass 'body_too_large';
   * 'truncate' (the MCP 2 KB read) records only `bodyTruncated: true`.
   */
  overCap?: 'error' | 'truncate';
  /** Follow redirects (GET only; default true). When false a 3xx is the final exchange and its body is read. */
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
  /**
   * Leave the answer's body unread and open when this returns true for its status and headers
   * (an event stream read as it comes): the result's `open` then holds it.
   */
  keepOpen?: (status: number, headers: Record<string, string>) => boolean;
  /** Limit on the whole exchange of an answer that may be kept open; `timeoutMs` then bounds the connect and the headers. */
  openLimitMs?: number;
  /** Retries of transient network errors; default MAX_RETRIES for a GET, none for other methods (not idempotent). */
  maxRetries?: number;
  /** First backoff delay, doubled per retry and jittered (src/util/retry.ts); default RETRY_BASE_DELAY_MS. */
  retryBaseDelayMs?: number;
  /** Injectable sleep (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Random source in [0, 1) for the backoff jitter (tests). */
  random?: () => number;
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
  /**
   * Kept-alive connections to reuse across requests (an engine or a command owns one). Without
   * it the request uses connections of its own, closed when it ends.
   */
  connections?: PinnedConnections;
}

/** The crawler's GET: it always says who it is. */
export type FetchOptions = RequestOptions & { contact: string; method?: 'GET' };

/** What a RequestGate answers for one hop. */
export type GateDecision = { ok: true; done: (exchange: Exchange) => void } | { ok: false; errorClass: ErrorClass; message: string };

export type RequestGate = (url: URL) => Promise<GateDecision>;

/** The options one attempt reads, defaults applied once per request. */
export interface ResolvedOptions {
  method: RequestMethod;
  maxBytes: number;
  timeoutMs: number;
  /** The exchange limit of a hop: `timeoutMs`, or `openLimitMs` when the answer may be kept open. */
  limitMs: number;
  overCap: 'error' | 'truncate';
  follow: boolean;
  maxRetries: number;
  maxHeaderSize: number;
}

export function resolveOptions(opts: RequestOptions): ResolvedOptions {
  const method = opts.method ?? 'GET';
  const timeoutMs = Math.max(1, Math.floor(opts.timeoutMs ?? REQUEST_TIMEOUT_MS));
  return {
    method,
    maxBytes: Math.max(0, Math.floor(opts.maxBytes ?? CARD_MAX_BYTES)),
    timeoutMs,
    limitMs: opts.openLimitMs !== undefined ? Math.max(1, Math.floor(opts.openLimitMs)) : timeoutMs,
    overCap: opts.overCap ?? 'error',
    follow: method === 'GET' && (opts.followRedirects ?? true),
    maxRetries: Math.max(0, opts.maxRetries ?? (method === 'GET' ? MAX_RETRIES : 0)),
    maxHeaderSize: opts.maxHeaderSize ?? MAX_HEADER_BYTES,
  };
}
