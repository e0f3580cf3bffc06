import { createHash } from 'node:crypto';
import { newEventId } from '../../events/ids.js';
import type { ListingEvent, SourceFetchEvent } from '../../events/types.js';
import type { Logger } from '../../log.js';
import { textOrNull } from '../http/text.js';
import type { ObservationSink } from '../sink.js';
import { gateDecision, robotsPolicy, robotsUrlOf, ROBOTS_MAX_BYTES, type RobotsPolicy } from './gate.js';
import { SOURCE_LIMITS } from './limits.js';
import type { SourceStateStore } from './state.js';
import {
  PageShapeError,
  type Coverage,
  type CrawlMode,
  type ListingDraft,
  type ListingSource,
  type PageFetcher,
  type PageOutcome,
  type PageRequest,
  type PageResponse,
  type ParsedPage,
  type SourceIO,
  type SourceState,
} from './types.js';

export interface SourceRunnerLimits {
  pageMaxBytes: number;
  pageTimeoutMs: number;
  /** List pages one run may read. */
  maxPages: number;
  /** Per-item detail requests one run may make. */
  maxDetails: number;
  /** Least time between two requests to the source (pacing). */
  pageDelayMs: number;
}

/** robots.txt policies by origin, shared by the sources of one run. */
export type RobotsCache = Map<string, Promise<RobotsPolicy>>;

export interface SourceRunnerDeps {
  fetch: PageFetcher;
  sink: ObservationSink;
  state: SourceStateStore;
  log: Logger;
  now?: () => number;
  limits?: Partial<SourceRunnerLimits>;
  /** Injectable wait for pacing (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** robots.txt policies already fetched in this run. */
  robots?: RobotsCache;
  /** Called after every request with the summary so far (progress display). */
  onProgress?: (summary: Readonly<SourceSummary>) => void;
}

export interface RunSourceOptions {
  runId: string;
  baseUrl?: string;
  full?: boolean;
  /** The source's terms forbid crawling: skip it, recorded with this reason. */
  termsForbidden?: string | null;
}

export interface SourceSummary {
  source: string;
  mode: CrawlMode;
  /** List pages requested (a 304 counts). */
  pages: number;
  /** Per-item detail requests. */
  details: number;
  items: number;
  /** Items not listed by the last complete pass, and items whose listing changed since. */
  new: number;
  changed: number;
  /** Items listed by the previous complete pass but not by this one (listing events with status delisted). */
  delisted: number;
  invalid: number;
  errors: number;
  complete: boolean;
  /** The first failure of the pass, in words, when there was one. */
  failure: string | null;
  /** Why the source was not read at all this run (robots, terms, configuration), or null. */
  skipped: string | null;
  /** Remarks: an early cut-off, a window or sweep limit, a delisting guard. */
  notes: string[];
}

/** Thrown inside a crawl when the run's page budget is used up; ends the pass as incomplete. */
class PageBudgetExhausted extends Error {}
/** Thrown inside a crawl when robots.txt refuses a request; ends the pass. */
class GateStop extends Error {}

/**
 * Item state kept between passes: item id → [protocol, content hash of its last listing draft,
 * endpoint URL, card URL]. The URLs let a `delisted` event name the agent it no longer lists.
 */
const ITEMS_KEY = '_items';
/** Item ids seen so far in an unfinished rolling sweep. */
const SWEEP_KEY = '_sweep';

type ItemInfo = [protocol: string, hash: string, endpointUrl: string | null, cardUrl: string | null];

/** A delisting that would remove more than this share of a source's items (of at least GUARD_MIN) is held back. */
const DELIST_GUARD_SHARE = 0.5;
const DELIST_GUARD_MIN = 50;

/** Content hash of a draft, without the raw item (counters like likes must not read as changes). */
export function draftHash(d: ListingDraft): string {
  const { raw: _raw, rawTruncated: _cut, ...rest } = d;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 16);
}

function itemsOf(state: SourceState): Map<string, ItemInfo> {
  const raw = state[ITEMS_KEY];
  const out = new Map<string, ItemInfo>();
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string') {
        out.set(k, [v[0], v[1], typeof v[2] === 'string' ? v[2] : null, typeof v[3] === 'string' ? v[3] : null]);
      }
    }
  }
  return out;
}

const sameContent = (a: ItemInfo, b: ItemInfo) => a[0] === b[0] && a[1] === b[1];

function sweepOf(state: SourceState): Set<string> {
  const raw = state[SWEEP_KEY];
  return new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []);
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs one source once, behind the crawl gate:
 *
 * 1. Terms: a source whose terms forbid crawling is skipped, recorded.
 * 2. robots.txt of the source's origin, for our product token (gate.ts); unreachable means
 *    skipped for this run (fail closed), and every request is checked against it.
 * 3. Every page request becomes a source-fetch event and every item a listing event. A
 *    failed page is recorded with its reason and ends the pass as incomplete; it never
 *    reads as an empty source, and the state (watermark) only advances after a complete pass.
 * 4. After a complete pass that covered the whole listing, every item the previous complete
 *    pass listed and this one did not becomes a listing event with status `delisted`.
 */
export async function runSource(source: ListingSource, deps: SourceRunnerDeps, opts: RunSourceOptions): Promise<SourceSummary> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? defaultSleep;
  const limits: SourceRunnerLimits = {
    pageMaxBytes: deps.limits?.pageMaxBytes ?? SOURCE_LIMITS.pageMaxBytes,
    pageTimeoutMs: deps.limits?.pageTimeoutMs ?? SOURCE_LIMITS.pageTimeoutMs,
    maxPages: deps.limits?.maxPages ?? source.defaultMaxPages ?? SOURCE_LIMITS.defaultMaxPages,
    maxDetails: deps.limits?.maxDetails ?? SOURCE_LIMITS.defaultMaxDetails,
    pageDelayMs: deps.limits?.pageDelayMs ?? source.defaultPageDelayMs ?? SOURCE_LIMITS.defaultPageDelayMs,
  };
  const log = deps.log.child({ source: source.name, runId: opts.runId });
  const summary: SourceSummary = {
    source: source.name,
    mode: opts.full ? 'full' : 'incremental',
    pages: 0,
    details: 0,
    items: 0,
    new: 0,
    changed: 0,
    delisted: 0,
    invalid: 0,
    errors: 0,
    complete: false,
    failure: null,
    skipped: null,
    notes: [],
  };
  const progress = () => deps.onProgress?.(summary);
  const baseUrl = (opts.baseUrl ?? source.defaultBaseUrl).replace(/\/$/, '');
  const state = await deps.state.load(source.name);
  const prevItems = itemsOf(state);
  const sweep = sweepOf(state);
  /** Items seen in this pass. */
  const seen = new Map<string, ItemInfo>();
  const seenInvalid = new Set<string>();
  const deleted = new Set<string>();
  let lastListFetchId: string | null = null;
  let lastRequestAt = 0;

  const pace = async () => {
    const wait = lastRequestAt + limits.pageDelayMs - now();
    if (lastRequestAt > 0 && wait > 0) await sleep(wait);
    lastRequestAt = now();
  };

  /** A source-fetch event for a request the gate refused or a source that was skipped. */
  const recordGate = async (url: string, gate: string, errorClass: string, error: string, status: number | null = null, durationMs = 0) => {
    const event: SourceFetchEvent = {
      id: newEventId(), observedAt: now(), runId: opts.runId, source: source.name, url,
      page: summary.pages, cursor: null, mode: summary.mode, status, ok: false, notModified: false, etag: null,
      itemCount: 0, invalidItemCount: 0, nextCursor: null, bytes: 0, gate, durationMs: Math.round(durationMs), errorClass, error,
    };
    await deps.sink.sourceFetch(event);
  };

  // 1. Terms.
  if (opts.termsForbidden) {
    summary.skipped = `terms: ${opts.termsForbidden}`;
    await recordGate(baseUrl, 'terms_forbidden', 'terms_forbidden', `skipped: ${opts.termsForbidden}`);
    log.warn({ reason: opts.termsForbidden }, 'source skipped: its terms forbid crawling');
    progress();
    return summary;
  }

  // 2. robots.txt, once per origin per run.
  const robotsCache: RobotsCache = deps.robots ?? new Map();
  const policyFor = (url: string): Promise<RobotsPolicy> => {
    const origin = new URL(url).origin;
    let p = robotsCache.get(origin);
    if (!p) {
      const robotsUrl = robotsUrlOf(url);
      p = (async () => {
        await pace();
        const res = await deps.fetch(robotsUrl, {
          headers: { accept: 'text/plain, */*;q=0.1' },
          maxBytes: ROBOTS_MAX_BYTES,
          timeoutMs: limits.pageTimeoutMs,
          truncateOverCap: true,
        });
        const policy = robotsPolicy(robotsUrl, res);
        log.info({ robotsUrl, status: res.status, policy: policy.kind }, 'robots.txt read');
        return policy;
      })();
      robotsCache.set(origin, p);
    }
    return p;
  };

  const checkGate = async (url: string): Promise<void> => {
    const policy = await policyFor(url);
    const decision = gateDecision(policy, url);
    if (decision.allowed) return;
    await recordGate(policy.robotsUrl, decision.gate, decision.errorClass, `${decision.reason}; page ${url} not requested`);
    throw new GateStop(`robots: ${decision.gate === 'robots_unreachable' ? 'unreachable' : 'disallowed'} (${decision.detail})`);
  };

  const track = (drafts: readonly ListingDraft[]) => {
    for (const d of drafts) {
      if (d.status === 'invalid') {
        seenInvalid.add(d.itemId);
        continue;
      }
      if (d.status === 'deleted') {
        deleted.add(d.itemId);
        if (prevItems.has(d.itemId) && !seen.has(d.itemId)) summary.changed += 1;
        seen.delete(d.itemId);
        continue;
      }
      const value: ItemInfo = [d.protocol, draftHash(d), d.endpointUrl, d.cardUrl];
      if (!seen.has(d.itemId)) {
        const before = prevItems.get(d.itemId);
        if (before === undefined) summary.new += 1;
        else if (!sameContent(before, value)) summary.changed += 1;
      }
      seen.set(d.itemId, value);
    }
  };

  const emit = async (listed: ListingDraft[], fetchId: string, observedAt: number) => {
    if (listed.length === 0) return;
    const drafts = listed.map(finalizeDraft);
    const events: ListingEvent[] = drafts.map((draft) => ({
      ...draft, id: newEventId(), observedAt, runId: opts.runId, fetchId, source: source.name,
    }));
    summary.items += events.length;
    summary.invalid += drafts.filter((d) => d.status === 'invalid').length;
    track(drafts);
    await deps.sink.listings(events);
  };

  const carry = (ids: readonly string[]) => {
    for (const id of ids) {
      const before = prevItems.get(id);
      if (before !== undefined && !seen.has(id)) seen.set(id, before);
    }
  };

  const io: SourceIO = {
    log,
    now,
    setMode(mode) {
      summary.mode = mode;
    },
    pagesLeft: () => Math.max(0, limits.maxPages - summary.pages),
    async page(req: PageRequest, parse: (json: unknown, res: PageResponse) => ParsedPage): Promise<PageOutcome> {
      const detail = req.kind === 'detail';
      if (detail ? summary.details >= limits.maxDetails : summary.pages >= limits.maxPages) {
        throw new PageBudgetExhausted(`${detail ? 'detail' : 'page'} budget of ${detail ? limits.maxDetails : limits.maxPages} reached`);
      }
      await checkGate(req.url);
      await pace();
      if (detail) summary.details += 1;
      else summary.pages += 1;
      const fetchId = newEventId();
      const res = await deps.fetch(req.url, {
        headers: { accept: 'application/json', ...req.headers },
        maxBytes: limits.pageMaxBytes,
        timeoutMs: limits.pageTimeoutMs,
      });
      lastRequestAt = now();
      const observedAt = now();
      const { invalidUtf8, ...outcome } = interpret(res, parse, req.notModified);
      const listings = outcome.ok ? outcome.page.listings.map(finalizeDraft) : [];
      const notice = outcome.ok ? outcome.page.notice : undefined;
      // A page that is not valid UTF-8 is still read (invalid sequences become U+FFFD), and says so.
      const textNotice = invalidUtf8 ? { errorClass: 'invalid_utf8', message: 'page is not valid UTF-8; invalid sequences were replaced by U+FFFD' } : undefined;
      const event: SourceFetchEvent = {
        id: fetchId,
        observedAt,
        runId: opts.runId,
        source: source.name,
        url: capText(req.url, SOURCE_LIMITS.urlMaxChars),
        page: summary.pages,
        cursor: capOrNull(req.cursor ?? null, SOURCE_LIMITS.urlMaxChars),
        mode: summary.mode,
        status: res.status,
        ok: outcome.ok,
        notModified: res.status === 304,
        etag: res.headers.etag ?? null,
        itemCount: outcome.ok ? (outcome.page.itemCount ?? listings.length) : 0,
        invalidItemCount: listings.filter((l) => l.status === 'invalid').length,
        nextCursor: outcome.ok ? capOrNull(outcome.page.nextCursor ?? null, SOURCE_LIMITS.urlMaxChars) : null,
        bytes: res.body.length,
        gate: 'allowed',
        durationMs: Math.round(res.durationMs),
        errorClass: outcome.ok ? (notice?.errorClass ?? textNotice?.errorClass ?? null) : outcome.errorClass,
        error: capOrNull(outcome.ok ? ([notice?.message, textNotice?.message].filter(Boolean).join('; ') || null) : outcome.error, SOURCE_LIMITS.reasonMaxChars),
      };
      await deps.sink.sourceFetch(event);
      if (!outcome.ok) {
        summary.errors += 1;
        summary.failure ??= `${outcome.errorClass}: ${outcome.error}`;
        log.warn({ url: req.url, status: res.status, errorClass: outcome.errorClass, error: outcome.error }, 'listing request failed');
        progress();
        return { ...outcome, fetchId };
      }
      if (!detail) lastListFetchId = fetchId;
      if (notice) summary.notes.push(`${notice.errorClass}: ${notice.message}`);
      if (textNotice) summary.notes.push(`${textNotice.errorClass}: ${req.url}: ${textNotice.message}`);
      if (outcome.page.carried) carry(outcome.page.carried);
      await emit(listings, fetchId, observedAt);
      progress();
      return { ...outcome, fetchId };
    },
    async emit(drafts, fetchId) {
      await emit(drafts, fetchId, now());
      progress();
    },
    carry,
    note(text) {
      summary.notes.push(text);
    },
  };

  log.info({ baseUrl, full: Boolean(opts.full) }, 'source pass starting');
  try {
    const result = await source.crawl(io, { baseUrl, full: Boolean(opts.full), state });
    summary.mode = result.mode;
    summary.complete = result.complete && summary.errors === 0;
    const coverage: Coverage = result.coverage ?? (result.mode === 'full' ? 'all' : 'part');
    if (summary.complete) {
      const next = await settleItems(coverage, lastListFetchId);
      await deps.state.save(source.name, { ...result.state, ...next });
    } else if (result.progressState) {
      // A rolling sweep keeps its progress: what it read stays read, nothing is delisted.
      const items = new Map(prevItems);
      for (const [k, v] of seen) items.set(k, v);
      for (const k of deleted) items.delete(k);
      await deps.state.save(source.name, {
        ...result.progressState,
        [ITEMS_KEY]: Object.fromEntries(items),
        [SWEEP_KEY]: [...new Set([...sweep, ...seen.keys()])],
      });
    }
  } catch (err) {
    if (err instanceof GateStop && summary.pages === 0 && summary.details === 0) {
      summary.skipped = err.message;
      log.warn({ reason: err.message }, 'source skipped by the crawl gate');
    } else {
      summary.errors += 1;
      summary.failure ??=
        err instanceof PageBudgetExhausted || err instanceof GateStop ? err.message : `crawl_error: ${(err as Error).message}`;
      log.error({ err }, 'source pass stopped');
    }
  }
  log.info({ ...summary }, summary.complete ? 'source pass complete' : 'source pass incomplete');
  progress();
  return summary;

  /** The item state after a complete pass, emitting `delisted` events where the pass covered everything. */
  async function settleItems(coverage: Coverage, fetchId: string | null): Promise<SourceState> {
    const items = new Map(prevItems);
    for (const [k, v] of seen) items.set(k, v);
    for (const k of deleted) items.delete(k);
    if (coverage === 'part') return { [ITEMS_KEY]: Object.fromEntries(items), [SWEEP_KEY]: [...sweep] };
    if (coverage === 'sweep-continues') {
      return { [ITEMS_KEY]: Object.fromEntries(items), [SWEEP_KEY]: [...new Set([...sweep, ...seen.keys()])] };
    }
    // 'all' or 'sweep-done': whatever was listed before and was not seen now is gone.
    const present = new Set([...seen.keys(), ...seenInvalid, ...(coverage === 'sweep-done' ? sweep : [])]);
    const gone = [...prevItems.keys()].filter((id) => !present.has(id) && !deleted.has(id));
    const guarded =
      gone.length > 0 &&
      (present.size === 0 || (prevItems.size >= DELIST_GUARD_MIN && gone.length > prevItems.size * DELIST_GUARD_SHARE));
    if (guarded) {
      summary.notes.push(
        `delisting held back: ${gone.length} of ${prevItems.size} items would be delisted at once; they stay listed until a pass confirms it`,
      );
      log.warn({ gone: gone.length, before: prevItems.size }, 'delisting guard tripped');
      return { [ITEMS_KEY]: Object.fromEntries(items), [SWEEP_KEY]: [] };
    }
    if (gone.length > 0) {
      const observedAt = now();
      // A delisting names the item and the URLs it was last listed with (so every consumer keys it
      // to the same agent); the rest of the listing is the processors' to carry forward.
      const events: ListingEvent[] = gone.map((itemId) => {
        const [protocol, , endpointUrl, cardUrl] = prevItems.get(itemId)!;
        return {
          id: newEventId(), observedAt, runId: opts.runId, fetchId: fetchId ?? 'none', source: source.name, itemId,
          protocol: protocol === 'a2a' ? 'a2a' : 'mcp',
          name: '', description: '', version: null, endpointUrl, endpointTransport: null, cardUrl, serverJson: null,
          status: 'delisted', invalidReason: null, updatedAt: null, raw: '', rawTruncated: false,
        };
      });
      for (let i = 0; i < events.length; i += 500) await deps.sink.listings(events.slice(i, i + 500));
      summary.delisted = events.length;
      log.info({ delisted: events.length }, 'items no longer listed');
    }
    const kept = new Map<string, ItemInfo>();
    for (const id of present) {
      const v = seen.get(id) ?? prevItems.get(id);
      if (v !== undefined) kept.set(id, v);
    }
    return { [ITEMS_KEY]: Object.fromEntries(kept), [SWEEP_KEY]: [] };
  }
}

/** A page's outcome, and whether its text was not valid UTF-8 (read anyway, with replacement characters). */
type Interpreted = DistributiveOmit<PageOutcome, 'fetchId'> & { invalidUtf8?: boolean };

function interpret(
  res: PageResponse,
  parse: (json: unknown, res: PageResponse) => ParsedPage,
  notModified?: () => ParsedPage,
): Interpreted {
  const fail = (errorClass: string, error: string) => ({ ok: false as const, errorClass, error, response: res });
  if (res.errorClass) {
    const cls = res.errorClass === 'body_too_large' ? 'too_large' : res.errorClass;
    return fail(cls, res.errorMessage ?? res.errorClass);
  }
  if (res.truncated) return fail('too_large', `page larger than the ${res.body.length}-byte cap`);
  if (res.status === 304) {
    try {
      return { ok: true, page: notModified ? notModified() : { listings: [], nextCursor: null }, response: res };
    } catch (err) {
      if (err instanceof PageShapeError) return fail('invalid_shape', err.message);
      throw err;
    }
  }
  if (res.status === null) return fail('no_response', 'no HTTP response');
  if (res.status >= 500) return fail('http_5xx', `HTTP ${res.status}`);
  if (res.status === 429) return fail('rate_limited', `HTTP 429${res.headers['retry-after'] ? ` (Retry-After ${res.headers['retry-after']})` : ''}`);
  const snippet = () => res.body.subarray(0, 200).toString('utf8');
  if (res.status === 401) return fail('unauthorized', `HTTP 401${res.headers['www-authenticate'] ? ` (${res.headers['www-authenticate']})` : ''}: ${snippet()}`);
  if (res.status === 403) return fail('forbidden', `HTTP 403: ${snippet()}`);
  if (res.status >= 400) return fail('http_4xx', `HTTP ${res.status}: ${snippet()}`);
  if (res.status < 200 || res.status >= 300) return fail('unexpected_status', `HTTP ${res.status}`);
  // UTF-8 (RFC 8259 §8.1), a leading BOM ignored.
  const { text, validUtf8 } = textOrNull(res.body);
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch (err) {
    return fail('not_json', `page is not JSON${validUtf8 ? '' : ' (nor valid UTF-8)'}: ${(err as Error).message}`);
  }
  try {
    return { ok: true, page: parse(json, res), response: res, ...(validUtf8 ? {} : { invalidUtf8: true }) };
  } catch (err) {
    if (err instanceof PageShapeError) return fail('invalid_shape', err.message);
    throw err;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A raw item as JSON text, bounded, and whether it was cut. */
export interface BoundedRaw {
  raw: string;
  rawTruncated: boolean;
}

/** Bounds a raw item to keep events small; returns the JSON text and whether it was cut. */
export function boundedRaw(item: unknown, maxChars: number = SOURCE_LIMITS.rawItemMaxChars): BoundedRaw {
  let text: string;
  try {
    text = JSON.stringify(item) ?? 'null';
  } catch {
    text = '"[unserializable]"';
  }
  return text.length > maxChars ? { raw: text.slice(0, maxChars), rawTruncated: true } : { raw: text, rawTruncated: false };
}

/**
 * The draft every source starts an item from: an `invalid` listing of the raw item, with its
 * reason, under `itemId` (default `invalid:<hash of the raw text>`). A source fills in the fields
 * and sets `status` for a valid item.
 */
export function invalidDraft(
  raw: BoundedRaw,
  protocol: 'a2a' | 'mcp',
  invalidReason: string | null = null,
  itemId = `invalid:${hashOf(raw.raw)}`,
): ListingDraft {
  return {
    itemId,
    protocol,
    name: '',
    description: '',
    version: null,
    endpointUrl: null,
    endpointTransport: null,
    cardUrl: null,
    serverJson: null,
    status: 'invalid',
    invalidReason,
    updatedAt: null,
    raw: raw.raw,
    rawTruncated: raw.rawTruncated,
  };
}

/** Cuts text to at most `max` characters, the cut marked with "…" (never splitting a surrogate pair). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

function capOrNull(text: string | null, max: number): string | null {
  return text === null ? null : capText(text, max);
}

/**
 * The one finaliser every listing draft passes before it becomes an event (SOURCE_LIMITS):
 * name, description, version and the short fields are cut to their caps; an item id or an
 * endpoint or card URL over its cap, or a server.json over its cap, is dropped and makes the
 * listing `invalid` with the reason (a tombstone only loses the field). Idempotent.
 */
export function finalizeDraft(d: ListingDraft): ListingDraft {
  const L = SOURCE_LIMITS;
  const short = (v: string | null) => (v === null ? null : capText(v, L.shortFieldMaxChars));
  const out: ListingDraft = {
    ...d,
    name: capText(d.name, L.nameMaxChars),
    description: capText(d.description, L.descriptionMaxChars),
    version: d.version === null ? null : capText(d.version, L.versionMaxChars),
    endpointTransport: short(d.endpointTransport),
    updatedAt: short(d.updatedAt),
    invalidReason: d.invalidReason === null ? null : capText(d.invalidReason, L.reasonMaxChars),
  };
  const problems: string[] = [];
  let idDropped = false;
  if (out.itemId.length > L.itemIdMaxChars) {
    problems.push(`item id is ${out.itemId.length} characters long, over the ${L.itemIdMaxChars}-character cap`);
    out.itemId = `invalid:${hashOf(out.itemId)}`;
    idDropped = true;
  }
  for (const field of ['endpointUrl', 'cardUrl'] as const) {
    const url = out[field];
    if (url !== null && url.length > L.urlMaxChars) {
      problems.push(`${field} is ${url.length} characters long, over the ${L.urlMaxChars}-character cap`);
      out[field] = null;
    }
  }
  if (out.serverJson !== null) {
    const bytes = Buffer.byteLength(out.serverJson);
    if (bytes > L.serverJsonMaxBytes) {
      problems.push(`server.json is ${bytes} bytes, over the ${L.serverJsonMaxBytes}-byte cap`);
      out.serverJson = null;
    }
  }
  if (problems.length === 0 || (out.status === 'deleted' && !idDropped)) return out;
  const reason = problems.join('; ');
  return {
    ...out,
    status: 'invalid',
    invalidReason: capText(out.status === 'invalid' && out.invalidReason ? `${out.invalidReason}; ${reason}` : reason, L.reasonMaxChars),
  };
}

/** `isObject` for parsers: a plain JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A short stable id for an item that has none of its own (FNV-1a of its raw text). */
export function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** A string field, trimmed, or null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/**
 * An absolute http(s) URL given by an item that can be requested as it is, or null: no `{…}`
 * template left in it (braces are not URL characters, RFC 3986), at most SOURCE_LIMITS.urlMaxChars.
 * Every URL a source lists (endpoints, card URLs, MCP remotes) passes here.
 */
export function httpUrl(v: unknown): string | null {
  const s = str(v);
  if (!s || s.length > SOURCE_LIMITS.urlMaxChars || /[{}]/.test(s)) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? s : null;
  } catch {
    return null;
  }
}
