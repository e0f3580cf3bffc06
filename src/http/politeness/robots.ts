/**
 * robots.txt per origin (scheme + host + port), RFC 9309, read and matched by robots-rules.ts.
 *
 * Fetch results (RFC 9309 §2.3.1):
 * - 2xx: parsed (the first POLITENESS.robotsMaxBytes bytes; the rest is ignored, §2.5);
 * - 4xx other than 429 ("unavailable"): everything allowed;
 * - 5xx, 429, or a network failure ("unreachable"): everything disallowed;
 * - more than 5 redirects or a redirect loop: unavailable (§2.3.1.2 allows this);
 * - a redirect to an address the SSRF guard refuses: unreachable (we could not read it);
 * - the origin itself refused by the SSRF guard, or an invalid URL: not checked. No request
 *   leaves for that origin at all, so the probe's own request is refused by the same guard and
 *   recorded as such (blocked_address, invalid_url).
 * A parsed or unavailable robots.txt is cached for at most 24 h (§2.4); an unreachable one that
 * answered (5xx, 429) for POLITENESS.robotsErrorTtlMs; a network failure is not cached, so every
 * try counts in the run's host-failure tracker and a dead host ends up skipped.
 *
 * Group choice: the group for `veronikai`, else the legacy `veronica-agents`, else `*`; the
 * rules are read and matched by robots-rules.ts, once per cached file, in bounded time.
 */
import type { ProbeEvent } from '../../events/types.js';
import { fetchBounded, type FetchOptions, type RequestGate } from '../client.js';
import type { HostFailureTracker } from '../host-tracker.js';
import { parseProbeUrl } from '../ssrf-guard.js';
import { textOrNull } from '../../util/text.js';
import type { ErrorClass, Exchange, FetchResult } from '../types.js';
import { POLITENESS } from './constants.js';
import { chooseGroup, declaredGroups, readRobotsRules, type RobotsRules } from './robots-rules.js';

export { declaredGroups } from './robots-rules.js';

/** What robots.txt says of one URL, in the probe event's vocabulary. */
export type RobotsVerdict = ProbeEvent['robots'];

/** How the robots.txt fetch of an origin ended. */
export type RobotsFetchKind = 'parsed' | 'unavailable' | 'unreachable' | 'not_checked';

/**
 * The cache's answer for one URL (named apart from the conformance rules' `RobotsDecision`, which
 * is the verdict's coarser allowed/disallowed/unknown).
 */
export interface RobotsCheck {
  /** The decision for this URL. `unreachable` forbids the request like `disallowed`. */
  verdict: RobotsVerdict;
  /** True when the request may be sent (allowed, or not checked because the guard refuses it anyway). */
  permitted: boolean;
  robotsUrl: string;
  fetch: RobotsFetchKind;
  /** The group that decided (`veronikai`, `veronica-agents` or `*`) when robots.txt was parsed. */
  group: string | null;
  /** Line of the matching rule (1-based) when one matched. */
  line: number | null;
  /** Status of the robots.txt fetch's final exchange. */
  status: number | null;
  errorClass: ErrorClass | null;
  /** The robots.txt fetch's error in words, when it failed; or why a URL was disallowed without a rule (the check's budget ran out). */
  errorMessage: string | null;
  /** When the robots.txt was fetched (epoch ms). */
  fetchedAt: number;
  fromCache: boolean;
  /** The robots.txt fetch's exchanges, kept as evidence when robots.txt was unreachable; else empty. */
  evidence: Exchange[];
}

/** Per-call context of a robots.txt fetch: the run's host tracker and the limiter's gate. */
export interface RobotsFetchContext {
  hostTracker?: HostFailureTracker;
  gate?: RequestGate;
  /** Reads robots.txt for this call instead of the cache's own fetcher (a listing source reads it through its paced page fetcher). */
  fetcher?: RobotsFetcher;
}

export type RobotsFetcher = (robotsUrl: string, ctx: RobotsFetchContext) => Promise<FetchResult>;

export interface RobotsCacheOptions {
  /** Options of the default fetcher (contact, address policy, timeouts, retries). */
  fetchOptions?: Omit<FetchOptions, 'accept' | 'maxBytes' | 'overCap' | 'followRedirects' | 'gate' | 'hostTracker'>;
  /** Replaces the default fetcher (fetchBounded with the same address policy). */
  fetcher?: RobotsFetcher;
  /** Clock (epoch ms). */
  now?: () => number;
  ttlMs?: number;
  errorTtlMs?: number;
  maxBytes?: number;
  maxEntries?: number;
  maxChars?: number;
  /** Our product tokens, most specific first; `*` is always the last resort. */
  userAgents?: readonly string[];
}

interface Entry {
  fetch: RobotsFetchKind;
  robots: RobotsRules | null;
  group: string | null;
  status: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  fetchedAt: number;
  expiresAt: number;
  chars: number;
  evidence: Exchange[];
}

/** The group we honour: the first of `userAgents` that has a group, else `*`. */
export function selectGroup(text: string, userAgents: readonly string[] = POLITENESS.robotsUserAgents): string {
  return chooseGroup(declaredGroups(text), userAgents);
}

/** Reads one robots.txt with our limits. */
function readRules(robotsUrl: string, text: string, userAgents: readonly string[]): RobotsRules {
  return readRobotsRules(robotsUrl, text, { userAgents, maxScanChars: POLITENESS.robotsMaxScanChars });
}

/** Parses one robots.txt and answers for URLs of its origin with the group we honour. */
export function parseRobotsTxt(
  robotsUrl: string,
  text: string,
  userAgents: readonly string[] = POLITENESS.robotsUserAgents,
): { group: string; isAllowed: (url: string) => boolean; line: (url: string) => number | null } {
  const rules = readRules(robotsUrl, text, userAgents);
  return {
    group: rules.group,
    isAllowed: (url) => rules.decide(url).allowed,
    line: (url) => rules.decide(url).line,
  };
}

const NOT_CHECKED_CLASSES: readonly string[] = ['blocked_address', 'invalid_url'];
const UNAVAILABLE_CLASSES: readonly string[] = ['too_many_redirects', 'redirect_loop'];

/** The parts of a robots.txt fetch that decide what it means. */
export interface RobotsFetchOutcome {
  /** Status of the final exchange, or null when none answered. */
  status: number | null;
  /** Error class of the final exchange (the client's vocabulary), or null. */
  errorClass: string | null;
  /** Exchanges the fetch made (redirect hops included); 1 when unknown. */
  hops: number;
}

/**
 * What a robots.txt fetch means (RFC 9309 §2.3.1), for the probes (RobotsCache) and the crawl
 * gate of listing sources alike. `cacheable` says how long the probes' cache keeps it.
 */
export function robotsFetchKind(o: RobotsFetchOutcome): { fetch: RobotsFetchKind; cacheable: 'ok' | 'error' | 'no' } {
  if (o.errorClass !== null && NOT_CHECKED_CLASSES.includes(o.errorClass)) {
    // The origin itself refused: no request left. A refused redirect target: we could not read it.
    return o.hops <= 1 ? { fetch: 'not_checked', cacheable: 'no' } : { fetch: 'unreachable', cacheable: 'error' };
  }
  if (o.errorClass !== null && UNAVAILABLE_CLASSES.includes(o.errorClass)) return { fetch: 'unavailable', cacheable: 'ok' };
  const s = o.status;
  if (s === null) return { fetch: 'unreachable', cacheable: 'no' };
  if (s >= 200 && s < 300) {
    // A body cut by a network error is not a robots.txt we can trust; a body cut at the cap is (§2.5).
    if (o.errorClass !== null && o.errorClass !== 'body_too_large') return { fetch: 'unreachable', cacheable: 'no' };
    return { fetch: 'parsed', cacheable: 'ok' };
  }
  if (s === 429) return { fetch: 'unreachable', cacheable: 'error' };
  if (s >= 400 && s < 500) return { fetch: 'unavailable', cacheable: 'ok' };
  if (s >= 300 && s < 400) return { fetch: 'unavailable', cacheable: 'ok' }; // a redirect without a usable Location
  return { fetch: 'unreachable', cacheable: 'error' };
}

/** How a robots.txt fetch result is treated (RFC 9309 §2.3.1). */
export function classifyRobotsFetch(result: FetchResult): { fetch: RobotsFetchKind; cacheable: 'ok' | 'error' | 'no' } {
  return robotsFetchKind({ status: result.final.status, errorClass: result.final.errorClass, hops: result.exchanges.length });
}

/** The robots.txt URL of a URL's origin, or null for an invalid URL. */
export function robotsUrlFor(url: string | URL): string | null {
  const parsed = parseProbeUrl(url);
  return parsed.ok ? `${parsed.url.origin}/robots.txt` : null;
}

/** Evidence is kept without bodies beyond a few KB (a 5xx page tells nothing more). */
function trimEvidence(exchanges: Exchange[]): Exchange[] {
  const max = POLITENESS.robotsEvidenceMaxBytes;
  return exchanges.map((e) => (e.body.length > max ? { ...e, body: e.body.subarray(0, max), bodyTruncated: true } : e));
}

/**
 * The per-origin robots.txt cache. `check(url)` fetches (once per origin at a time) and decides.
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly fetcher: RobotsFetcher;
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly errorTtlMs: number;
  private readonly maxEntries: number;
  private readonly maxChars: number;
  private readonly userAgents: readonly string[];
  private chars = 0;
  /** robots.txt fetches made (tests and stats). */
  fetches = 0;

  constructor(opts: RobotsCacheOptions = {}) {
    const maxBytes = opts.maxBytes ?? POLITENESS.robotsMaxBytes;
    this.fetcher =
      opts.fetcher ??
      ((robotsUrl, ctx) => {
        if (!opts.fetchOptions) throw new Error('RobotsCache needs fetchOptions (contact, address policy) or a fetcher');
        return fetchBounded(robotsUrl, {
          ...opts.fetchOptions,
          accept: 'text/plain',
          maxBytes,
          overCap: 'truncate',
          followRedirects: true,
          ...(ctx.hostTracker ? { hostTracker: ctx.hostTracker } : {}),
          ...(ctx.gate ? { gate: ctx.gate } : {}),
        });
      });
    this.now = opts.now ?? Date.now;
    this.ttlMs = Math.min(opts.ttlMs ?? POLITENESS.robotsCacheTtlMs, POLITENESS.robotsCacheTtlMs);
    this.errorTtlMs = opts.errorTtlMs ?? POLITENESS.robotsErrorTtlMs;
    this.maxEntries = opts.maxEntries ?? POLITENESS.robotsCacheMaxEntries;
    this.maxChars = opts.maxChars ?? POLITENESS.robotsCacheMaxChars;
    this.userAgents = opts.userAgents ?? POLITENESS.robotsUserAgents;
  }

  /** Origins cached now. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets every cached robots.txt. */
  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /** Decides whether `url` may be requested. Never throws. */
  async check(url: string | URL, ctx: RobotsFetchContext = {}): Promise<RobotsCheck> {
    const robotsUrl = robotsUrlFor(url);
    const href = String(url instanceof URL ? url.href : url);
    if (robotsUrl === null) {
      return {
        verdict: 'not_checked',
        permitted: true,
        robotsUrl: '',
        fetch: 'not_checked',
        group: null,
        line: null,
        status: null,
        errorClass: 'invalid_url',
        errorMessage: null,
        fetchedAt: this.now(),
        fromCache: false,
        evidence: [],
      };
    }
    const origin = robotsUrl.slice(0, -'/robots.txt'.length);
    let entry = this.fresh(origin);
    const fromCache = entry !== null;
    if (!entry) entry = await this.load(origin, robotsUrl, ctx);

    let verdict: RobotsVerdict;
    let line: number | null = null;
    let errorMessage = entry.errorMessage;
    if (entry.fetch === 'parsed' && entry.robots) {
      const decided = entry.robots.decide(href);
      line = decided.line;
      verdict = decided.allowed ? 'allowed' : 'disallowed';
      // Disallowed because the check ran out of budget, not by a rule: say so.
      errorMessage = decided.reason ?? errorMessage;
    } else if (entry.fetch === 'unavailable') verdict = 'allowed';
    else if (entry.fetch === 'unreachable') verdict = 'unreachable';
    else verdict = 'not_checked';
    return {
      verdict,
      permitted: verdict === 'allowed' || verdict === 'not_checked',
      robotsUrl,
      fetch: entry.fetch,
      group: entry.group,
      line,
      status: entry.status,
      errorClass: entry.errorClass,
      errorMessage,
      fetchedAt: entry.fetchedAt,
      fromCache,
      evidence: entry.evidence,
    };
  }

  private fresh(origin: string): Entry | null {
    const e = this.entries.get(origin);
    if (!e) return null;
    if (this.now() >= e.expiresAt) {
      this.drop(origin);
      return null;
    }
    // Least recently used goes first: move to the end.
    this.entries.delete(origin);
    this.entries.set(origin, e);
    return e;
  }

  private drop(origin: string): void {
    const e = this.entries.get(origin);
    if (!e) return;
    this.chars -= e.chars;
    this.entries.delete(origin);
  }

  private load(origin: string, robotsUrl: string, ctx: RobotsFetchContext): Promise<Entry> {
    let p = this.inflight.get(origin);
    if (!p) {
      p = this.fetchEntry(robotsUrl, ctx)
        .then(({ entry, cacheable }) => {
          if (cacheable !== 'no') this.store(origin, entry);
          return entry;
        })
        .finally(() => this.inflight.delete(origin));
      this.inflight.set(origin, p);
    }
    return p;
  }

  private async fetchEntry(robotsUrl: string, ctx: RobotsFetchContext): Promise<{ entry: Entry; cacheable: 'ok' | 'error' | 'no' }> {
    const fetchedAt = this.now();
    this.fetches++;
    let result: FetchResult;
    try {
      result = await (ctx.fetcher ?? this.fetcher)(robotsUrl, ctx);
    } catch (err) {
      // A fetcher that throws is our failure: nothing known, nothing sent that we know of.
      const entry: Entry = {
        fetch: 'unreachable',
        robots: null,
        group: null,
        status: null,
        errorClass: 'other',
        errorMessage: err instanceof Error ? err.message : String(err),
        fetchedAt,
        expiresAt: fetchedAt,
        chars: 0,
        evidence: [],
      };
      return { entry, cacheable: 'no' };
    }
    const { fetch, cacheable } = classifyRobotsFetch(result);
    const final = result.final;
    const entry: Entry = {
      fetch,
      robots: null,
      group: null,
      status: final.status,
      errorClass: final.errorClass,
      errorMessage: final.errorMessage,
      fetchedAt,
      expiresAt: fetchedAt + (cacheable === 'error' ? this.errorTtlMs : this.ttlMs),
      chars: 0,
      evidence: fetch === 'unreachable' ? trimEvidence(result.exchanges) : [],
    };
    if (fetch === 'parsed') {
      // Decoded as UTF-8 (RFC 9309 §2.3); invalid sequences become U+FFFD and match nothing.
      const text = textOrNull(final.body, final.bodyTruncated).text ?? '';
      entry.robots = readRules(robotsUrl, text, this.userAgents);
      entry.group = entry.robots.group;
      entry.chars = text.length;
    }
    return { entry, cacheable };
  }

  private store(origin: string, entry: Entry): void {
    this.drop(origin);
    this.entries.set(origin, entry);
    this.chars += entry.chars;
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      if (key === origin && this.entries.size === 1) break;
      this.drop(key);
    }
  }
}
