/**
 * Delivery ids and signatures (GitHub / Stripe style). The delivery id is a function of the
 * subscription and the change, so a redelivery carries the same id and a receiver can drop it.
 * The signature is `sha256=` and the hex HMAC-SHA256, under the subscription's secret, of
 * `<timestamp>.<body>`: the timestamp (unix seconds, also sent as a header) is signed with the
 * body, so a receiver that refuses old timestamps cannot be replayed an old request.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_TOLERANCE_SECONDS } from './limits.js';

/** The request headers of a delivery (lower case). */
export const WEBHOOK_HEADERS = {
  delivery: 'x-veronikai-delivery',
  event: 'x-veronikai-event',
  timestamp: 'x-veronikai-timestamp',
  signature: 'x-veronikai-signature',
} as const;

/** 32 hex digits of SHA-256 over the subscription id and the change id (ids hold no newline). */
export function deliveryId(subscriptionId: string, changeId: string): string {
  return createHash('sha256').update(`webhook-delivery\n${subscriptionId}\n${changeId}`).digest('hex').slice(0, 32);
}

/** The `x-veronikai-signature` value for a body sent at `timestamp` (unix seconds). */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does: recompute the signature over the timestamp header and the raw body,
 * compare in constant time, and refuse a timestamp further than `toleranceSeconds` from now.
 */
export function verifySignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const ts = Number(headers.timestamp);
  if (!headers.timestamp || !/^\d{1,12}$/.test(headers.timestamp) || !Number.isSafeInteger(ts)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - ts) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signPayload(secret, ts, body));
  const given = Buffer.from(headers.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
