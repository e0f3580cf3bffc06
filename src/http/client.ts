/**
 * The bounded HTTP client. Every outbound request of VeronikAI goes through `requestBounded`
 * (the probes, the listing sources, robots.txt, the canary, the inspect, the webhooks);
 * `fetchBounded` is its GET as the crawler makes it.
 *
 * - One limit on the whole exchange (DNS + connect + TLS + headers + body).
 * - Body capped on DECODED bytes (gzip/deflate/br decoded with node:zlib streams, body.ts).
 * - Redirects followed by hand, for a GET only; every hop passes the SSRF guard again, and the
 *   caller's secret headers never leave the first URL's origin.
 * - The connection goes to the address the guard checked (pinned lookup), and the socket's
 *   remote address is checked once more after connecting. A connection whose answer was read
 *   to its end is kept alive for the next hop to the same origin checked to the same addresses
 *   (pinned-pool.ts), so a host's robots.txt, endpoints and metadata share one connect.
 * - Transient network errors are retried (a GET only, by default) with jittered backoff; a
 *   host-failure tracker and a politeness gate, when given, see every hop.
 * - Credentials are never recorded; errors never throw: they become an Exchange with an errorClass.
 * - An answer the caller keeps open (`keepOpen`, an event stream) is handed over unread.
 *
 * It observes; it never judges (DESIGN principle 1).
 */
import type { Readable } from 'node:stream';
import { retry } from '../util/retry.js';
import { readBody } from './body.js';
import { recordFailure, sendPinned } from './send.js';
import { ExchangeLimit, raceAbort } from './exchange-limit.js';
import {
  NO_LOCATION,
  baseExchange,
  cut,
  requestHeaders,
  syntheticExchange,
  type HopHeaders,
  type RedirectLocation,
} from './exchange-record.js';
import { MAX_REDIRECTS, RETRY_BASE_DELAY_MS } from './limits.js';
import { resolveOptions, type FetchOptions, type RequestOptions, type ResolvedOptions } from './options.js';
import type { ConnState } from './pinned-agent.js';
import { PinnedConnections, type ConnLease } from './pinned-pool.js';
import { checkHost, parseProbeUrl } from './ssrf-guard.js';
import { REDIRECT_STATUSES, type Exchange, type FetchResult, type LookupAddress, type OpenBody } from './types.js';

export { JUDGED_HEADERS, REDACTED, userAgent } from './exchange-record.js';
export type { FetchOptions, GateDecision, RequestGate, RequestOptions } from './options.js';

interface Hop {
  exchange: Exchange;
  /** The redirect target as sent (read from the raw headers, never from the cut recorded value). */
  location: RedirectLocation;
  /** The answer left open for the caller (`keepOpen`). */
  open?: OpenBody;
}

/** Resolves the host and checks every address, within the exchange limit. Records a refusal. */
async function resolveThroughGuard(
  url: URL,
  opts: RequestOptions,
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

/** One attempt at one hop: connect through the guard, send, read headers, read the body (or leave it open). Never throws. */
async function attempt(
  url: URL,
  opts: RequestOptions,
  ro: ResolvedOptions,
  headers: HopHeaders,
  pool: PinnedConnections,
): Promise<Hop & { retryable: boolean }> {
  const ex = baseExchange(url.href, ro.method, headers.record, new Date());
  const t0 = performance.now();
  const limit = new ExchangeLimit(ro.limitMs);
  const conn: ConnState = { connected: false, remoteAddress: null, blocked: null };
  let lease: ConnLease | undefined;
  let body: Readable | undefined;
  let retryable = false;
  let location: RedirectLocation = NO_LOCATION;
  // Reused only when the answer was read to its end without error (nothing left on the socket).
  let reusable = false;
  let open: OpenBody | undefined;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    limit.clear();
    if (body && !body.destroyed) body.destroy();
    lease?.done(reusable);
    ex.durationMs = Math.round(performance.now() - t0);
    ex.remoteAddress = conn.remoteAddress;
  };

  try {
    const target = await resolveThroughGuard(url, opts, ex, limit);
    if ('retryable' in target) {
      retryable = target.retryable;
    } else {
      lease = pool.lease(url, target.addresses, target.hostname, opts, conn, ro.timeoutMs, ro.maxHeaderSize);
      const sent = await sendPinned(
        url,
        { headers: headers.send, ...(opts.body !== undefined ? { body: opts.body } : {}) },
        lease.dispatcher,
        ro,
        limit,
        ex,
      );
      body = sent.body;
      location = sent.location;
      if (!sent.redirect) {
        if (ex.status !== null && opts.keepOpen?.(ex.status, ex.headers)) {
          open = { body, signal: limit.signal, close: end };
        } else {
          await readBody(body, ex, opts, ro, limit);
          reusable = body.readableEnded && ex.errorClass === null && !ex.bodyTruncated;
        }
      }
    }
  } catch (err) {
    retryable = recordFailure(ex, err, conn, limit);
  } finally {
    // An open answer ends when its reader closes it (or at the exchange limit).
    if (!open) end();
  }
  return open ? { exchange: ex, retryable: false, location, open } : { exchange: ex, retryable, location };
}

/** One hop with retries of transient network errors (jittered backoff), the host-failure tracker and the gate. */
async function hopWithRetries(
  url: URL,
  opts: RequestOptions,
  ro: ResolvedOptions,
  headers: HopHeaders,
  pool: PinnedConnections,
): Promise<Hop> {
  const tracker = opts.hostTracker;
  if (tracker?.isSkipped(url.hostname)) {
    const why = `host ${url.hostname} skipped for this run after ${tracker.limit} consecutive network failures`;
    return { exchange: syntheticExchange(url.href, ro.method, headers, 'host_skipped', why), location: NO_LOCATION };
  }
  let permit: ((exchange: Exchange) => void) | null = null;
  if (opts.gate) {
    const decision = await opts.gate(url);
    if (!decision.ok)
      return { exchange: syntheticExchange(url.href, ro.method, headers, decision.errorClass, decision.message), location: NO_LOCATION };
    permit = decision.done;
  }
  let last: Exchange | null = null;
  try {
    const hop = await retry(
      async (n) => {
        const a = await attempt(url, opts, ro, headers, pool);
        a.exchange.retries = n;
        last = a.exchange;
        return a;
      },
      {
        retries: ro.maxRetries,
        baseMs: opts.retryBaseDelayMs ?? RETRY_BASE_DELAY_MS,
        shouldRetry: (o) => o.ok && o.value.retryable,
        ...(opts.sleep ? { sleep: opts.sleep } : {}),
        ...(opts.random ? { random: opts.random } : {}),
      },
    );
    tracker?.record(url.hostname, hop.exchange);
    return hop.open
      ? { exchange: hop.exchange, location: hop.location, open: hop.open }
      : { exchange: hop.exchange, location: hop.location };
  } finally {
    if (permit) permit(last ?? syntheticExchange(url.href, ro.method, headers, 'other', 'no attempt finished'));
  }
}

/**
 * Sends `url` within the bounds; a GET follows redirects by hand (unless `followRedirects` is
 * false). Never throws: every failure is an Exchange with an errorClass. `final` is the last
 * exchange; `open` the answer left open when `keepOpen` asked for it.
 */
export async function requestBounded(url: string, opts: RequestOptions): Promise<FetchResult> {
  const exchanges: Exchange[] = [];
  const method = opts.method ?? 'GET';
  let open: OpenBody | undefined;
  // Without a caller's pool, the request's hops share connections of their own, closed at its end.
  const own = opts.connections ? null : new PinnedConnections();
  const pool = opts.connections ?? own!;
  try {
    const ro = resolveOptions(opts);
    const maxRedirects = Math.max(0, opts.maxRedirects ?? MAX_REDIRECTS);
    const visited = new Set<string>();
    let origin: string | null = null;
    let current = url;
    for (let followed = 0; ; followed++) {
      const parsed = parseProbeUrl(current);
      if (!parsed.ok) {
        exchanges.push(syntheticExchange(current, method, requestHeaders(opts, false), 'invalid_url', parsed.message));
        break;
      }
      origin ??= parsed.url.origin;
      const headers = requestHeaders(opts, parsed.url.origin === origin);
      const href = parsed.url.href;
      if (visited.has(href)) {
        exchanges.push(syntheticExchange(href, method, headers, 'redirect_loop', `redirect loop: ${href} was already visited`));
        break;
      }
      visited.add(href);
      const hop = await hopWithRetries(parsed.url, opts, ro, headers, pool);
      const ex = hop.exchange;
      exchanges.push(ex);
      open = hop.open;
      if (open || !ro.follow || ex.status === null || !REDIRECT_STATUSES.has(ex.status) || hop.location.kind === 'none') break;
      if (hop.location.kind === 'refused') {
        // The recorded Location is cut at MAX_RECORDED_HEADER_VALUE: never follow a cut URL.
        exchanges.push(
          syntheticExchange(ex.headers.location ?? '', method, headers, 'invalid_url', `redirect not followed: ${hop.location.reason}`),
        );
        break;
      }
      let next: URL;
      try {
        next = new URL(hop.location.value, parsed.url);
      } catch {
        exchanges.push(syntheticExchange(hop.location.value, method, headers, 'invalid_url', 'redirect Location is not a valid URL'));
        break;
      }
      if (followed >= maxRedirects) {
        exchanges.push(
          syntheticExchange(next.href, method, headers, 'too_many_redirects', `more than ${maxRedirects} redirects; not followed`),
        );
        break;
      }
      current = next.href;
    }
  } catch (err) {
    exchanges.push(syntheticExchange(String(url), method, { send: {}, record: {} }, 'other', `internal error: ${String(err)}`));
  } finally {
    own?.closeIdle();
  }
  if (exchanges.length === 0)
    exchanges.push(syntheticExchange(String(url), method, { send: {}, record: {} }, 'other', 'no exchange recorded'));
  const final = exchanges[exchanges.length - 1]!;
  return open ? { exchanges, final, open } : { exchanges, final };
}

/** The crawler's GET: `requestBounded` with the crawler's identity required. */
export function fetchBounded(url: string, opts: FetchOptions): Promise<FetchResult> {
  return requestBounded(url, opts);
}
