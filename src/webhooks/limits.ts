/**
 * Every bound of webhook delivery, in one place. A change's deliveries happen while its consumer
 * holds the partition (heartbeats come between changes), so the worst case of one change's
 * deliveries decides the consumer's session timeout.
 */
import { REQUEST_TIMEOUT_MS } from '../http/limits.js';

const KIB = 1024;

/** Requests per (subscription, change) at most: the first try and four retries. */
export const WEBHOOK_MAX_ATTEMPTS = 5;

/** First retry delay, doubled per retry (jittered, src/util/retry.ts): about 1, 2, 4, 8 s. */
export const WEBHOOK_RETRY_BASE_MS = 1_000;

/** Longest wait between two attempts (a Retry-After the receiver sends is honoured up to it). */
export const WEBHOOK_RETRY_MAX_MS = 30_000;

/** Limit on one whole attempt (DNS, connect, TLS, the answer's headers and body), like a probe's. */
export const WEBHOOK_TIMEOUT_MS = REQUEST_TIMEOUT_MS;

/** Bytes of a receiver's answer read at most (then discarded: only the status counts). */
export const WEBHOOK_RESPONSE_MAX_BYTES = 4 * KIB;

/** The subscriptions file is read only up to this size. */
export const WEBHOOKS_FILE_MAX_BYTES = 1024 * KIB;

/** Subscriptions one file may hold. */
export const MAX_SUBSCRIPTIONS = 1_000;

/** Agent filters of one subscription at most. */
export const MAX_AGENT_FILTERS = 10_000;

/** Shortest secret accepted: a short one is guessable from a signature. */
export const SECRET_MIN_CHARS = 16;
export const SECRET_MAX_CHARS = 1_024;

/** A receiver's timestamp tolerance the README suggests (and `verifySignature` defaults to). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Settled (subscription, change) pairs this process remembers, so a duplicate change or a batch
 * read again skips what it already sent; the oldest are forgotten first (the deliveries table
 * still knows them).
 */
export const SETTLED_MEMORY_MAX = 100_000;

/** Reads of the deliveries table before a change: tries, and the first wait between them. */
export const CONTEXT_READ_ATTEMPTS = 3;
export const CONTEXT_READ_BASE_MS = 250;

/** The longest one (subscription, change) may take: every attempt at its limit, every wait at its ceiling. */
export function worstCaseDeliveryMs(o: { maxAttempts: number; timeoutMs: number; retryBaseMs: number; retryMaxMs: number }): number {
  let waits = 0;
  for (let retry = 0; retry < o.maxAttempts - 1; retry++) waits += Math.min(o.retryMaxMs, o.retryBaseMs * 2 ** retry);
  return o.maxAttempts * o.timeoutMs + waits;
}
