/**
 * The bounded GET client. Every network read of VeronikAI goes through `fetchBounded`:
 *
 * - GET only: no other method can be expressed through this API.
 * - One limit on the whole exchange (DNS + connect + TLS + headers + body).
 * - Body capped on DECODED bytes (gzip/deflate/br decoded here with node:zlib streams).
 * - Redirects followed by hand; every hop passes the SSRF guard again.
 * - The connection goes to the address the guard checked (pinned lookup), and the socket's
 *   remote address is checked once more after connecting. A connection whose answer was read
 *   to its end is kept alive for the next hop to the same origin checked to the same addresses
 *   (pinned-pool.ts), so a host's robots.txt, endpoints and metadata share one connect.
 * - Errors never throw: they become an Exchange with an errorClass.
 *
 * It observes; it never judges (DESIGN principle 1).
 */
import type { Readable } from 'node:stream';
import { retry } from '../../util/retry.js';
import { readBody } from './body.js';
import { recordFailure, sendPinned } from './send.js';
import { classifyError } from './errors.js';
import { ExchangeLimit, raceAbort } from './exchange-limit.js';
import {
  NO_LOCATION,
  baseExchange,
  buildRequestHeaders,
  cut,
  recordHeaders,
  redirectLocation,
  syntheticExchange,
  type RedirectLocation,
} from './exchange-record.js';
import { MAX_REDIRECTS, MAX_RETRIES, RETRY_BASE_DELAY_MS } from './limits.js';
import { resolveOptions, type FetchOptions, type ResolvedOptions } from './options.js';
import type { ConnState } from './pinned-agent.js';
import { sharedConnections, type ConnLease } from './pinned-pool.js';
import { checkHost, parseProbeUrl } from './ssrf-guard.js';
import { REDIRECT_STATUSES, type Exchange, type FetchResult, type LookupAddress } from './types.js';

export { JUDGED_HEADERS, userAgent } from './exchange-record.js';
export type { FetchOptions, GateDecision, RequestGate } from './options.js';

interface Attempt {
  exchange: Exchange;
  retryable: boolean;
  /** The redirect target as sent (read from the raw headers, never from the cut recorded value). */
  location: RedirectLocation;
}

/** Resolves the host and checks every address, within the exchange limit. Records a refusal; returns null then. */
async function resolveThroughGuard(
  url: URL,
  opts: FetchOptions,
  ex: Exchange,
  limit: ExchangeLimit,
): Promise<{ addresses: LookupAddress[]; hostname: string } | { retryable: boolean }> {
  let check;
  try {
    check = await raceAbort(checkHost(url.hostname, opts), limit.signal);
  } catch {
    ex.errorClass = 'timeout';
    ex.errorMessage = `name resolution of ${url.hostname} did not finish within ${limit.ms} ms`;
    return { retryable: true };
  }
  if (!check.ok) {
    ex.errorClass = check.errorClass;
    ex.errorMessage = cut(check.message);
    return { retryable: check.errorClass === 'dns' && check.temporary };
  }
  return { addresses: check.addresses, hostname: check.hostname };
}

/** One attempt at one hop: connect through the guard, send, read headers, read the body. Never throws. */
async function attempt(url: URL, opts: FetchOptions, ro: ResolvedOptions): Promise<Attempt> {
  const requestHeaders = buildRequestHeaders(opts);
  const ex = baseExchange(url.href, requestHeaders, new Date());
  const t0 = performance.now();
  const limit = new ExchangeLimit(ro.timeoutMs);
  const conn: ConnState = { connected: false, remoteAddress: null, blocked: null };
  let lease: ConnLease | undefined;
  let body: Readable | undefined;
  let retryable = false;
  let location: RedirectLocation = NO_LOCATION;
  // Reused only when the answer was read to its end without error (nothing left on the socket).
  let reusable = false;

  try {
    const target = await resolveThroughGuard(url, opts, ex, limit);
    if ('retryable' in target) {
      retryable = target.retryable;
    } else {
      lease = (opts.connections ?? sharedConnections).lease(url, target.addresses, target.hostname, opts, conn, ro.timeoutMs, ro.maxHeaderSize);
      const sent = await sendPinned(url, { method: 'GET', headers: requestHeaders }, lease.dispatcher, ro, limit, ex, false);
      body = sent.body;
      location = sent.location;
      if (!sent.redirect) {
        await readBody(body, ex, opts, ro, limit);
        reusable = body.readableEnded && ex.errorClass === null && !ex.bodyTruncated;
      }
    }
  } catch (err) {
    retryable = recordFailure(ex, err, conn, limit);
  } finally {
    limit.clear();
    if (body && !body.destroyed) body.destroy();
    lease?.done(reusable);
  }
  ex.durationMs = Math.round(performance.now() - t0);
  ex.remoteAddress = conn.remoteAddress;
  return { exchange: ex, retryable, location };
}

/** One hop with retries of transient network errors (jittered backoff) and the host-failure tracker. */
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
  let last: Exchange | null = null;
  try {
    const { exchange, location } = await retry(
      async (n) => {
        const a = await attempt(url, opts, ro);
        a.exchange.retries = n;
        last = a.exchange;
        return a;
      },
      {
        retries: Math.max(0, opts.maxRetries ?? MAX_RETRIES),
        baseMs: opts.retryBaseDelayMs ?? RETRY_BASE_DELAY_MS,
        shouldRetry: (o) => o.ok && o.value.retryable,
        ...(opts.sleep ? { sleep: opts.sleep } : {}),
        ...(opts.random ? { random: opts.random } : {}),
      },
    );
    tracker?.record(url.hostname, exchange);
    return { exchange, location };
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
    const ro = resolveOptions(opts);
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
