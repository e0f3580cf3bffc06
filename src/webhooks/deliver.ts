/**
 * One delivery: POST one change to one subscription, through the same guard and bounds as every
 * probe (src/http/client.ts: the SSRF guard on every attempt, the connection pinned to
 * the checked address, one limit per attempt, the answer read up to a small cap), retried with
 * jittered exponential backoff.
 *
 * - 2xx: delivered.
 * - 408, 429, 5xx, or no answer (timeout, refused, reset, DNS): tried again, up to the attempts
 *   allowed; a Retry-After is honoured up to the longest wait.
 * - 3xx (redirects are not followed for a POST) and every other 4xx: dead at once, since the same
 *   request would get the same answer.
 * - A target the guard refuses (a private or loopback address without the allowance, a bad URL):
 *   refused, never sent.
 * Never throws. Each attempt carries a fresh timestamp and signature; the delivery id stays.
 */
import type { AgentChangeEvent } from '../events/types.js';
import { backoffDelay } from '../util/retry.js';
import { redactText } from '../util/redact.js';
import { sleepUnlessAborted } from '../util/time.js';
import { requestBounded } from '../http/client.js';
import { parseRetryAfter } from '../http/text.js';
import type { AddressPolicy } from '../http/types.js';
import {
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_MAX_BYTES,
  WEBHOOK_RETRY_BASE_MS,
  WEBHOOK_RETRY_MAX_MS,
  WEBHOOK_TIMEOUT_MS,
} from './limits.js';
import { signPayload, WEBHOOK_HEADERS } from './signature.js';
import type { Subscription } from './subscriptions.js';

/** The identity webhook requests carry (the inspect's pattern: say who asks, and why). */
export function webhookUserAgent(contact: string): string {
  const clean = String(contact ?? '')
    .replace(/[^\x21-\x7e]/g, '')
    .replace(/[();<>,"\\]/g, '')
    .slice(0, 200);
  return `VeronikAI-webhooks/0.1 (+mailto:${clean}; agent change notifications you subscribed to)`;
}

export interface DeliveryTuning {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  timeoutMs: number;
}

export const DEFAULT_TUNING: DeliveryTuning = {
  maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  retryBaseMs: WEBHOOK_RETRY_BASE_MS,
  retryMaxMs: WEBHOOK_RETRY_MAX_MS,
  timeoutMs: WEBHOOK_TIMEOUT_MS,
};

export interface DeliverOptions extends AddressPolicy, DeliveryTuning {
  userAgent: string;
  /** Stops waiting between attempts (shutdown): the delivery is then `interrupted`, not final. */
  signal?: AbortSignal;
  /** Random source in [0, 1) for the backoff jitter (tests). */
  random?: () => number;
}

export interface DeliveryResult {
  status: 'delivered' | 'dead' | 'refused' | 'interrupted';
  attempts: number;
  lastStatus: number | null;
  errorClass: string;
  error: string;
  durationMs: number;
}

/** The body of a delivery: the delivery id, the change (ISO times) and the agent. */
export function deliveryBody(id: string, change: AgentChangeEvent, publicBaseUrl: string | null = null): string {
  const agent: Record<string, string> = { id: change.agentId };
  if (publicBaseUrl) agent.url = `${publicBaseUrl.replace(/\/+$/, '')}/agents/${encodeURIComponent(change.agentId)}`;
  return JSON.stringify({
    id,
    change: {
      id: change.id,
      kind: change.kind,
      observedAt: new Date(change.observedAt).toISOString(),
      agentKey: change.agentKey,
      agentId: change.agentId,
      protocol: change.protocol,
      name: change.name,
      checkerVersion: change.checkerVersion,
      causeEventId: change.causeEventId,
      fromState: change.fromState,
      toState: change.toState,
      summary: change.summary,
      reasons: change.reasons,
    },
    agent,
  });
}

const GUARD_REFUSALS = new Set(['blocked_address', 'invalid_url']);

/** Whether an answer (or its absence) is worth another try. */
function retryable(status: number | null): boolean {
  if (status === null) return true;
  return status === 408 || status === 429 || status >= 500;
}

export async function deliver(sub: Subscription, id: string, kind: string, body: string, opts: DeliverOptions): Promise<DeliveryResult> {
  const t0 = performance.now();
  const result: DeliveryResult = { status: 'dead', attempts: 0, lastStatus: null, errorClass: '', error: '', durationMs: 0 };
  const done = (status: DeliveryResult['status']): DeliveryResult => {
    result.status = status;
    result.durationMs = Math.round(performance.now() - t0);
    if (status === 'delivered') {
      result.errorClass = '';
      result.error = '';
    }
    return result;
  };
  const policy: AddressPolicy = {
    ...(opts.allowLoopback ? { allowLoopback: true } : {}),
    ...(opts.allowAddress ? { allowAddress: opts.allowAddress } : {}),
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  };
  const maxAttempts = Math.max(1, Math.floor(opts.maxAttempts));
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) return done('interrupted');
    const timestamp = Math.floor(Date.now() / 1000);
    const { final } = await requestBounded(sub.url, {
      ...policy,
      method: 'POST',
      userAgent: opts.userAgent,
      contentType: 'application/json',
      body,
      headers: {
        [WEBHOOK_HEADERS.delivery]: id,
        [WEBHOOK_HEADERS.event]: kind,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signPayload(sub.secret, timestamp, body),
      },
      maxBytes: WEBHOOK_RESPONSE_MAX_BYTES,
      overCap: 'truncate',
      timeoutMs: opts.timeoutMs,
    });
    result.lastStatus = final.status;
    if (final.errorClass !== null && GUARD_REFUSALS.has(final.errorClass) && final.status === null) {
      // Refused before anything was sent: not an attempt.
      result.errorClass = final.errorClass;
      result.error = redactText(final.errorMessage ?? 'refused by the address guard');
      return done('refused');
    }
    result.attempts = attempt;
    if (final.status !== null && final.status >= 200 && final.status < 300) return done('delivered');
    if (final.status !== null) {
      result.errorClass = 'http_status';
      result.error = `the receiver answered ${final.status}`;
    } else {
      result.errorClass = final.errorClass ?? 'other';
      result.error = redactText(final.errorMessage ?? 'no answer');
    }
    if (!retryable(final.status)) {
      result.error += ' (not retried: the same request would get the same answer)';
      return done('dead');
    }
    if (attempt >= maxAttempts) {
      result.error += ` (after ${attempt} attempt${attempt === 1 ? '' : 's'})`;
      return done('dead');
    }
    const backoff = backoffDelay(attempt - 1, {
      baseMs: opts.retryBaseMs,
      maxMs: opts.retryMaxMs,
      ...(opts.random ? { random: opts.random } : {}),
    });
    const asked = parseRetryAfter(final.headers['retry-after']);
    const wait = Math.min(opts.retryMaxMs, Math.max(backoff, asked ?? 0));
    if (!(await sleepUnlessAborted(wait, opts.signal))) return done('interrupted');
  }
}
