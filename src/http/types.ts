import type { Readable } from 'node:stream';

/**
 * What the bounded HTTP client records. An Exchange is an observation, never a verdict:
 * processors judge it later (DESIGN principle 1).
 */

/** Why an exchange did not complete normally. `null` on the Exchange means it did. */
export type ErrorClass =
  | 'dns'
  | 'refused'
  | 'reset'
  | 'timeout'
  | 'tls'
  | 'blocked_address'
  | 'redirect_loop'
  | 'too_many_redirects'
  | 'body_too_large'
  | 'headers_too_large'
  | 'invalid_url'
  | 'protocol'
  | 'host_skipped'
  /** Refused by a politeness gate: robots.txt disallows this URL for our user agent. */
  | 'robots_disallowed'
  /** Refused by a politeness gate: this URL's robots.txt could not be read, so everything is disallowed (RFC 9309). */
  | 'robots_unreachable'
  /** Refused by a politeness gate: the host asked us to wait (Retry-After, pacing) longer than we wait. */
  | 'rate_limited'
  | 'other';

export const ERROR_CLASSES: readonly ErrorClass[] = [
  'dns',
  'refused',
  'reset',
  'timeout',
  'tls',
  'blocked_address',
  'redirect_loop',
  'too_many_redirects',
  'body_too_large',
  'headers_too_large',
  'invalid_url',
  'protocol',
  'host_skipped',
  'robots_disallowed',
  'robots_unreachable',
  'rate_limited',
  'other',
];

/** Error classes that count as a network failure of the host (HostFailureTracker). */
export const NETWORK_ERROR_CLASSES: readonly ErrorClass[] = ['dns', 'refused', 'reset', 'timeout'];

/**
 * Failures after which other URLs on the same origin are not tried (the A2A card chain): the
 * host did not answer, or we may not contact it.
 */
export const ORIGIN_UNREACHABLE_ERROR_CLASSES: readonly ErrorClass[] = [...NETWORK_ERROR_CLASSES, 'tls', 'blocked_address', 'host_skipped'];

/** Failures that may be our own connectivity's: a probe with one asks the canary again. */
export const CONNECTIVITY_ERROR_CLASSES: readonly ErrorClass[] = [...NETWORK_ERROR_CLASSES, 'tls', 'protocol', 'other'];

/** Refusals of a politeness gate (robots.txt, pacing): nothing was sent. */
export const GATE_ERROR_CLASSES: readonly ErrorClass[] = ['robots_disallowed', 'robots_unreachable', 'rate_limited'];

/**
 * The header a recorded exchange carries when some of its headers were later left out to fit an
 * event (how many, and their size). The client never records a response header of this name, so
 * it only ever carries that mark.
 */
export const OMITTED_HEADERS_MARKER = 'veronikai-omitted-headers';

/** The methods a request may use. Only GET follows redirects or is retried by default. */
export type RequestMethod = 'GET' | 'POST' | 'DELETE';

/** HTTP statuses whose Location is followed. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * One HTTP request/response (one hop: a redirect chain is an array of these), whatever the
 * method or the caller: the probes, the listing sources, the inspect and the webhooks all
 * record this one type. Synthetic exchanges (refused before sending: blocked address, redirect
 * loop, too many redirects, invalid URL, skipped host) have `status: null` and `durationMs` of
 * the check only.
 */
export interface Exchange {
  url: string;
  /** There is no final URL field: the last Exchange of a chain is the final one. */
  finalUrl?: never;
  method: RequestMethod;
  /** Headers we sent (lowercase names); a credential's value reads `[redacted]`. */
  requestHeaders: Record<string, string>;
  status: number | null;
  /** Response headers, lowercase names; repeated headers joined with ", "; total size capped. */
  headers: Record<string, string>;
  /** Bounded, decoded body (content-encoding removed). */
  body: Buffer;
  /** True when the body was not read to its end (cap reached, read window over, or not read). */
  bodyTruncated: boolean;
  /** Decoded bytes read (may exceed body.length by at most one chunk when truncated). */
  bodyBytes: number;
  /** SHA-256 (hex) of `body` as kept. */
  bodySha256: string;
  /** The address actually connected to, or null when no connection was made. */
  remoteAddress: string | null;
  /** ISO time the exchange started (before DNS). */
  startedAt: string;
  durationMs: number;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  /** Transient-error retries made before this recorded attempt (0..MAX_RETRIES). */
  retries: number;
}

export interface FetchResult {
  exchanges: Exchange[];
  /** The last element of `exchanges`. */
  final: Exchange;
  /** The final answer's body, left open because the caller asked (`keepOpen`). */
  open?: OpenBody;
}

/** An answer left open: its body as it comes, until `close()` or the exchange limit. */
export interface OpenBody {
  body: Readable;
  /** Aborts when the exchange limit is reached. */
  signal: AbortSignal;
  /** Ends the exchange: closes the body and its connection, records the duration. Idempotent. */
  close(): void;
}

export interface LookupAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable for tests). */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

/** Which destinations may be contacted. The default refuses everything non-public. */
export interface AddressPolicy {
  /** Tests and `--allow-loopback` only: permit 127.0.0.0/8 and ::1, nothing else. */
  allowLoopback?: boolean;
  /**
   * Tests only: permit one specific (address, host name) pair the rules would refuse,
   * e.g. a fake name mapped to 127.0.0.1 by an injected lookup.
   */
  allowAddress?: (address: string, hostname: string) => boolean;
  /** Name resolution; defaults to dns.lookup with all addresses. */
  lookup?: LookupFn;
}
