import { textOrNull } from '../http/text.js';
import { POLITENESS } from '../politeness/constants.js';
import { parseRobotsTxt, robotsFetchKind, robotsUrlFor } from '../politeness/robots.js';

/**
 * The crawl gate's robots.txt decision (RFC 9309) for listing sources. The runner fetches
 * `<origin>/robots.txt` through the page fetcher (bounded and paced like a page; it becomes a
 * source-fetch event only when the gate refuses a request) and asks these pure functions what
 * the answer means. Parsing, group choice and the meaning of a status are the probes' own
 * (`../politeness/robots.ts`: the group for `veronikai`, else the legacy `veronica-agents`,
 * else `*`, read with robots-parser's grammar; `robotsFetchKind` for the status rules):
 *
 * - 2xx: the rules of our group (a body over the cap is parsed as far as it was read, §2.5);
 * - 3xx or 4xx other than 429 ("unavailable"), too many redirects or a redirect loop: all allowed;
 * - 5xx, 429, or no response (timeout, refused, DNS, a refused address…): "unreachable", a
 *   complete disallow: the source is skipped for this run (fail closed). An address the guard
 *   refuses, which the probes record as not checked, fails closed here too.
 */

export const PRODUCT_TOKENS = POLITENESS.robotsUserAgents;

/** robots.txt is parsed up to this many bytes (RFC 9309 §2.5 asks for at least 500 KiB). */
export const ROBOTS_MAX_BYTES: number = POLITENESS.robotsMaxBytes;

export interface RobotsResponse {
  status: number | null;
  body: Buffer;
  errorClass: string | null;
  errorMessage: string | null;
}

export type RobotsPolicy =
  | { kind: 'allow-all'; robotsUrl: string; reason: string }
  | { kind: 'rules'; robotsUrl: string; group: string; isAllowed: (url: string) => boolean }
  | { kind: 'unreachable'; robotsUrl: string; errorClass: string; reason: string };

export type GateDecision =
  | { allowed: true; reason: string }
  | {
      allowed: false;
      gate: 'robots_disallowed' | 'robots_unreachable';
      errorClass: string;
      /** The whole reason, for the event. */
      reason: string;
      /** The short reason, for a summary line: "HTTP 503", "/api/x for veronikai (group "*")". */
      detail: string;
    };

/** The robots.txt URL of the origin a URL belongs to. */
export function robotsUrlOf(url: string): string {
  return robotsUrlFor(url) ?? new URL('/robots.txt', new URL(url).origin).toString();
}

/** What a robots.txt response means for every URL of its origin. */
export function robotsPolicy(robotsUrl: string, res: RobotsResponse): RobotsPolicy {
  const { status, errorClass } = res;
  const { fetch } = robotsFetchKind({ status, errorClass, hops: 1 });
  switch (fetch) {
    case 'parsed': {
      const text = textOrNull(res.body.subarray(0, ROBOTS_MAX_BYTES), true).text ?? '';
      const robots = parseRobotsTxt(robotsUrl, text, PRODUCT_TOKENS);
      return { kind: 'rules', robotsUrl, group: robots.group, isAllowed: robots.isAllowed };
    }
    case 'unavailable':
      return {
        kind: 'allow-all',
        robotsUrl,
        reason: errorClass ? `robots.txt unavailable (${errorClass})` : `no robots.txt (HTTP ${status ?? '?'})`,
      };
    case 'unreachable':
    case 'not_checked': {
      if (errorClass) return { kind: 'unreachable', robotsUrl, errorClass, reason: `${errorClass}: ${res.errorMessage ?? 'no response'}` };
      if (status === null) return { kind: 'unreachable', robotsUrl, errorClass: 'no_response', reason: 'no HTTP response' };
      if (status === 429) return { kind: 'unreachable', robotsUrl, errorClass: 'rate_limited', reason: 'HTTP 429' };
      if (status >= 500) return { kind: 'unreachable', robotsUrl, errorClass: 'http_5xx', reason: `HTTP ${status}` };
      return { kind: 'unreachable', robotsUrl, errorClass: 'unexpected_status', reason: `HTTP ${status}` };
    }
  }
}

/** The gate's answer for one URL under a policy. */
export function gateDecision(policy: RobotsPolicy, url: string): GateDecision {
  switch (policy.kind) {
    case 'allow-all':
      return { allowed: true, reason: policy.reason };
    case 'unreachable':
      return {
        allowed: false,
        gate: 'robots_unreachable',
        errorClass: policy.errorClass,
        reason: `robots.txt could not be fetched (${policy.reason}); skipped for this run`,
        detail: policy.reason,
      };
    case 'rules': {
      if (policy.isAllowed(url)) return { allowed: true, reason: `allowed by the "${policy.group}" group` };
      const u = new URL(url);
      const rule = `for ${PRODUCT_TOKENS[0]} (group "${policy.group}")`;
      const search = u.search.length > 40 ? '?…' : u.search;
      return {
        allowed: false,
        gate: 'robots_disallowed',
        errorClass: 'robots_disallowed',
        reason: `robots.txt disallows ${u.pathname}${u.search} ${rule}`,
        detail: `${u.pathname}${search} ${rule}`,
      };
    }
  }
}
