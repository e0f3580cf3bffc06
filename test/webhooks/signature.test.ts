import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryId, signPayload, verifySignature } from '../../src/webhooks/signature.js';

const SECRET = 'a-long-enough-test-secret';
const BODY = '{"id":"d1","change":{"kind":"down"}}';

describe('webhook delivery ids', () => {
  it('are a function of subscription and change, 32 hex digits', () => {
    const a = deliveryId('ops', 'c'.repeat(32));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(deliveryId('ops', 'c'.repeat(32))).toBe(a);
    expect(deliveryId('ops2', 'c'.repeat(32))).not.toBe(a);
    expect(deliveryId('ops', 'd'.repeat(32))).not.toBe(a);
    // The separator keeps ("ab", "c") and ("a", "bc") apart.
    expect(deliveryId('ab', 'c')).not.toBe(deliveryId('a', 'bc'));
  });
});

describe('webhook signatures', () => {
  it('are sha256= and the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const expected = createHmac('sha256', SECRET).update(`1700000000.${BODY}`).digest('hex');
    expect(signPayload(SECRET, 1700000000, BODY)).toBe(`sha256=${expected}`);
  });

  it('verify with the secret, the timestamp header and the raw body, within the tolerance', () => {
    const ts = 1700000000;
    const signature = signPayload(SECRET, ts, BODY);
    const ok = (h: { timestamp?: string; signature?: string }, body = BODY, secret = SECRET, now = ts + 10) =>
      verifySignature(secret, { timestamp: h.timestamp, signature: h.signature }, body, { nowSeconds: now });
    expect(ok({ timestamp: String(ts), signature })).toBe(true);
    expect(ok({ timestamp: String(ts), signature }, `${BODY} `)).toBe(false);
    expect(ok({ timestamp: String(ts), signature }, BODY, `${SECRET}x`)).toBe(false);
    // The timestamp is signed: moving it breaks the signature.
    expect(ok({ timestamp: String(ts + 1), signature })).toBe(false);
    // An old request (replayed) is refused even with its valid signature.
    expect(ok({ timestamp: String(ts), signature }, BODY, SECRET, ts + 301)).toBe(false);
    expect(ok({ timestamp: undefined, signature })).toBe(false);
    expect(ok({ timestamp: '1.7e9', signature })).toBe(false);
    expect(ok({ timestamp: String(ts), signature: undefined })).toBe(false);
    expect(ok({ timestamp: String(ts), signature: signature.toUpperCase() })).toBe(false);
  });
});
