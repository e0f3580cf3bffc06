import type { HostFailureTracker } from './host-tracker.js';
import type { PinnedConnections } from './pinned-pool.js';
import { CARD_MAX_BYTES, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from './limits.js';
import type { AddressPolicy, ErrorClass, Exchange } from './types.js';

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
  /** Kept-alive connections to reuse (default: the process's shared ones, pinned-pool.ts). */
  connections?: PinnedConnections;
}

/** What a RequestGate answers for one hop. */
export type GateDecision =
  | { ok: true; done: (exchange: Exchange) => void }
  | { ok: false; errorClass: ErrorClass; message: string };

export type RequestGate = (url: URL) => Promise<GateDecision>;

/** The options one attempt reads, defaults applied once per fetch. */
export interface ResolvedOptions {
  maxBytes: number;
  timeoutMs: number;
  overCap: 'error' | 'truncate';
  follow: boolean;
  maxHeaderSize: number;
}

export function resolveOptions(opts: FetchOptions): ResolvedOptions {
  return {
    maxBytes: Math.max(0, Math.floor(opts.maxBytes ?? CARD_MAX_BYTES)),
    timeoutMs: Math.max(1, Math.floor(opts.timeoutMs ?? REQUEST_TIMEOUT_MS)),
    overCap: opts.overCap ?? 'error',
    follow: opts.followRedirects ?? true,
    maxHeaderSize: opts.maxHeaderSize ?? MAX_HEADER_BYTES,
  };
}
