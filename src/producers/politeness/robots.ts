/**
 * robots.txt per origin (scheme + host + port), RFC 9309, with robots-parser doing the matching.
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
 * Group choice: the group for `veronikai`, else the legacy `veronica-agents`, else `*`.
 * robots-parser 3.0.1 matches one user agent per call and silently falls back to `*` when it
 * has no group for that agent, and it does not expose which groups exist (its
 * `isExplicitlyDisallowed` arrived after 3.0.1). So `declaredGroups()` replays the library's
 * own line grammar (same comment stripping, `name: value` split, case folding, `/version`
 * stripping, and consecutive `User-agent` lines sharing one group) to list the agents that own
 * at least one rule line (allow, disallow or crawl-delay, even with an empty value — exactly
 * when the library creates a group). The first of our tokens present is passed to
 * `isAllowed()`; when neither is present we pass `*`.
 */
import robotsParserModule from 'robots-parser';
import type { ProbeEvent } from '../../events/types.js';
import { fetchBounded, type FetchOptions, type RequestGate } from '../http/client.js';
import type { HostFailureTracker } from '../http/host-tracker.js';
import { MAX_URL_CHARS } from '../http/limits.js';
import { parseProbeUrl } from '../http/ssrf-guard.js';
import { textOrNull } from '../../util/text.js';
import type { ErrorClass, Exchange, FetchResult } from '../http/types.js';
import { POLITENESS } from './constants.js';

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
  /** The robots.txt fetch's error in words, when it failed. */
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

interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
}

// robots-parser is CommonJS (`module.exports = function`); its typings declare an ES default
// export, which NodeNext resolution reads as the module object. At runtime the import is the function.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => ParsedRobots;

interface Entry {
  fetch: RobotsFetchKind;
  robots: ParsedRobots | null;
  group: string | null;
  status: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  fetchedAt: number;
  expiresAt: number;
  chars: number;
  evidence: Exchange[];
}

/** Mirrors robots-parser's formatUserAgent: lower case, `/version` removed, trimmed. */
function formatUserAgent(ua: string): string {
  let s = ua.toLowerCase();
  const i = s.indexOf('/');
  if (i > -1) s = s.slice(0, i);
  return s.trim();
}

/**
 * The user agents that own a group in `text`, read with robots-parser's own grammar: a group is
 * created for the current user agents by any allow, disallow or crawl-delay line.
 */
export function declaredGroups(text: string): Set<string> {
  const groups = new Set<string>();
  const current: string[] = [];
  let afterRule = true;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const hash = raw.indexOf('#');
    const line = hash > -1 ? raw.slice(0, hash) : raw;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === '') continue;
    if (name === 'user-agent') {
      if (afterRule) current.length = 0;
      if (value) current.push(formatUserAgent(value));
    } else if (name === 'allow' || name === 'disallow' || name === 'crawl-delay') {
      for (const ua of current) groups.add(ua);
    }
    afterRule = name !== 'user-agent';
  }
  return groups;
}

/**
 * robots.txt with its rule values made cheap to match, meaning unchanged for every URL we may
 * request. robots-parser matches a rule in time proportional to pattern length × path length
 * for each `*`, so 500 KiB of `Disallow: /***…` made one check take seconds (the event loop
 * blocked). A run of `*` is one `*`; a rule whose literal part is longer than any URL we request
 * (MAX_URL_CHARS) can never match, so its value is emptied: the line stays (an empty rule still
 * opens its group, and line numbers stay as they were) but holds no pattern.
 */
export function boundRules(text: string): string {
  if (!text.includes('**') && text.length <= MAX_URL_CHARS) return text;
  return text
    .split(/\r\n|\r|\n/)
    .map((raw) => {
      const hash = raw.indexOf('#');
      const line = hash > -1 ? raw.slice(0, hash) : raw;
      const colon = line.indexOf(':');
      if (colon < 0) return raw;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name !== 'allow' && name !== 'disallow') return raw;
      const value = line.slice(colon + 1).trim();
      const collapsed = value.replace(/\*{2,}/g, '*');
      if (collapsed.replace(/[*$]/g, '').length > MAX_URL_CHARS) return `${name}:`;
      return collapsed === value ? raw : `${name}: ${collapsed}`;
    })
    .join('\n');
}

/** The group we honour: the first of `userAgents` that has a group, else `*`. */
export function selectGroup(text: string, userAgents: readonly string[] = POLITENESS.robotsUserAgents): string {
  const groups = declaredGroups(text);
  return userAgents.map(formatUserAgent).find((ua) => groups.has(ua)) ?? '*';
}

/** Parses one robots.txt and answers for URLs of its origin with the group we honour. */
export function parseRobotsTxt(
  robotsUrl: string,
  text: string,
  userAgents: readonly string[] = POLITENESS.robotsUserAgents,
): { group: string; isAllowed: (url: string) => boolean; line: (url: string) => number | null } {
  text = boundRules(text);
  const robots = robotsParser(robotsUrl, text);
  const group = selectGroup(text, userAgents);
  return {
    group,
    // undefined means "not this robots.txt's origin": never expected, refused to be safe.
    isAllowed: (url) => robots.isAllowed(url, group) === true,
    line: (url) => {
      const n = robots.getMatchingLineNumber(url, group);
      return typeof n === 'number' && n > 0 ? n : null;
    },
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
    if (entry.fetch === 'parsed' && entry.robots) {
      const allowed = entry.robots.isAllowed(href, entry.group ?? '*') === true;
      const n = entry.robots.getMatchingLineNumber(href, entry.group ?? '*');
      line = typeof n === 'number' && n > 0 ? n : null;
      verdict = allowed ? 'allowed' : 'disallowed';
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
      errorMessage: entry.errorMessage,
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
      const text = boundRules(textOrNull(final.body, final.bodyTruncated).text ?? '');
      entry.robots = robotsParser(robotsUrl, text);
      entry.group = selectGroup(text, this.userAgents);
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
