import { createHash } from 'node:crypto';
import { redactUrl } from '../../util/redact.js';
import type { GateDecision } from '../../http/client.js';
import type { Exchange } from '../../http/types.js';
import { POLITENESS } from '../../http/politeness/constants.js';
import { robotsFetchKind, robotsUrlFor, type RobotsCache, type RobotsCheck, type RobotsFetcher } from '../../http/politeness/robots.js';
import type { PageFetcher, PageResponse } from './types.js';

/**
 * The crawl gate's robots.txt decision (RFC 9309) for listing sources. robots.txt is read and
 * cached by the probes' own RobotsCache (`../politeness/robots.ts`: one fetch rule, one parser,
 * the group for `veronikai`, else the legacy `veronica-agents`, else `*`); a source reads it
 * through its own page fetcher (bounded and paced like a page). It becomes a source-fetch event
 * only when the gate refuses a request. What the answer means for a source:
 *
 * - 2xx: the rules of our group (a body over the cap is parsed as far as it was read, §2.5);
 * - 3xx or 4xx other than 429 ("unavailable"), too many redirects or a redirect loop: all allowed;
 * - 5xx, 429, or no response (timeout, refused, DNS, a refused address…): "unreachable", a
 *   complete disallow: the source is skipped for this run (fail closed). An origin the guard
 *   refuses, which the probes record as not checked, fails closed here too;
 * - a URL the client cannot request at all (invalid, over the length cap): passes, because the
 *   page fetcher refuses that URL itself and records why.
 */

export const PRODUCT_TOKENS = POLITENESS.robotsUserAgents;

/** robots.txt is parsed up to this many bytes (RFC 9309 §2.5 asks for at least 500 KiB). */
export const ROBOTS_MAX_BYTES: number = POLITENESS.robotsMaxBytes;

/**
 * A refusal of the crawl gate: the client's refusal (errorClass `robots_disallowed` or
 * `robots_unreachable`, message: the whole reason), with what the source-fetch event and the
 * summary line say besides.
 */
export type CrawlRefusal = Extract<GateDecision, { ok: false }> & {
  errorClass: 'robots_disallowed' | 'robots_unreachable';
  robotsUrl: string;
  /** The source-fetch event's error class: robots_disallowed, or why robots.txt could not be read (http_5xx, timeout…). */
  cause: string;
  /** The short reason, for a summary line: "HTTP 503", "/api/x for veronikai (group "*")". */
  detail: string;
};

/** The crawl gate's answer for one URL: the client's GateDecision, a refusal carrying its evidence. */
export type CrawlGateDecision = Extract<GateDecision, { ok: true }> | CrawlRefusal;

const PASS: CrawlGateDecision = { ok: true, done: () => {} };

/** The robots.txt URL of the origin a URL belongs to. */
export function robotsUrlOf(url: string): string {
  return robotsUrlFor(url) ?? new URL('/robots.txt', new URL(url).origin).toString();
}

/** Why robots.txt could not be read, as the source-fetch event records it. */
function unreachableCause(c: RobotsCheck): { cause: string; reason: string } {
  const { status, errorClass } = c;
  if (errorClass) return { cause: errorClass, reason: `${errorClass}: ${c.errorMessage ?? 'no response'}` };
  if (status === null) return { cause: 'no_response', reason: 'no HTTP response' };
  if (status === 429) return { cause: 'rate_limited', reason: 'HTTP 429' };
  if (status >= 500) return { cause: 'http_5xx', reason: `HTTP ${status}` };
  return { cause: 'unexpected_status', reason: `HTTP ${status}` };
}

/** What the cache's answer for `url` means for a listing source. */
export function crawlGateDecision(check: RobotsCheck, url: string): CrawlGateDecision {
  if (check.verdict === 'allowed') return PASS;
  if (check.verdict === 'disallowed') {
    const u = new URL(url);
    const rule = `for ${PRODUCT_TOKENS[0]} (group "${check.group ?? '*'}")`;
    // The reason is logged and recorded: a token in the configured URL's query must not go with it.
    const path = redactUrl(`${u.pathname}${u.search}`);
    const short = u.search.length > 40 ? `${path.slice(0, path.indexOf('?'))}?…` : path;
    return {
      ok: false,
      errorClass: 'robots_disallowed',
      message: `robots.txt disallows ${path} ${rule}`,
      robotsUrl: check.robotsUrl,
      cause: 'robots_disallowed',
      detail: `${short} ${rule}`,
    };
  }
  // Not checked without a robots.txt URL: the page URL itself cannot be requested (the fetcher says why).
  if (check.verdict === 'not_checked' && check.robotsUrl === '') return PASS;
  // Unreachable, or an origin the address guard refuses: we could not read its robots.txt.
  const { cause, reason } = unreachableCause(check);
  return {
    ok: false,
    errorClass: 'robots_unreachable',
    message: `robots.txt could not be fetched (${reason}); skipped for this run`,
    robotsUrl: check.robotsUrl,
    cause,
    detail: reason,
  };
}

/** A page response as the one exchange of a robots.txt fetch (the page fetcher keeps no redirect hops). */
function asExchange(url: string, accept: string, startedAt: number, res: PageResponse): Exchange {
  return {
    url,
    method: 'GET',
    requestHeaders: { accept },
    status: res.status,
    headers: res.headers,
    body: res.body,
    bodyTruncated: res.bodyTruncated,
    bodyBytes: res.body.length,
    bodySha256: createHash('sha256').update(res.body).digest('hex'),
    remoteAddress: null,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: res.durationMs,
    errorClass: res.errorClass,
    errorMessage: res.errorMessage,
    retries: 0,
  };
}

export interface RobotsReadOptions {
  fetch: PageFetcher;
  /** Waits for the source's pacing before the request. */
  pace: () => Promise<void>;
  timeoutMs: number;
  now: () => number;
  /** Told what was read (a log line). */
  onRead?: (robotsUrl: string, status: number | null, fetch: string) => void;
}

/** Reads robots.txt through a source's page fetcher, paced like its pages, for RobotsCache. */
export function pageRobotsFetcher(o: RobotsReadOptions): RobotsFetcher {
  const accept = 'text/plain, */*;q=0.1';
  return async (robotsUrl) => {
    await o.pace();
    const startedAt = o.now();
    const res = await o.fetch(robotsUrl, {
      headers: { accept },
      maxBytes: ROBOTS_MAX_BYTES,
      timeoutMs: o.timeoutMs,
      truncateOverCap: true,
    });
    const final = asExchange(robotsUrl, accept, startedAt, res);
    o.onRead?.(robotsUrl, res.status, robotsFetchKind({ status: res.status, errorClass: res.errorClass, hops: 1 }).fetch);
    return { exchanges: [final], final };
  };
}

/** The crawl gate of one source's pass: robots.txt from the run's shared cache, read through this source's fetcher. */
export function crawlGate(robots: RobotsCache, fetcher: RobotsFetcher): (url: string) => Promise<CrawlGateDecision> {
  return async (url) => crawlGateDecision(await robots.check(url, { fetcher }), url);
}
