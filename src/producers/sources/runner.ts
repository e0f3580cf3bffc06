import { newEventId } from '../../events/ids.js';
import type { ListingEvent, SourceFetchEvent } from '../../events/types.js';
import type { Logger } from '../../log.js';
import type { ObservationSink } from '../sink.js';
import { SOURCE_LIMITS } from './limits.js';
import type { SourceStateStore } from './state.js';
import {
  PageShapeError,
  type ListingSource,
  type PageFetcher,
  type PageOutcome,
  type PageRequest,
  type PageResponse,
  type ParsedPage,
  type SourceIO,
} from './types.js';

export interface SourceRunnerDeps {
  fetch: PageFetcher;
  sink: ObservationSink;
  state: SourceStateStore;
  log: Logger;
  now?: () => number;
  limits?: Partial<{ pageMaxBytes: number; pageTimeoutMs: number; maxPages: number }>;
}

export interface SourceSummary {
  source: string;
  mode: 'incremental' | 'full';
  pages: number;
  items: number;
  invalid: number;
  errors: number;
  complete: boolean;
  /** The first failure of the pass, in words, when there was one. */
  failure: string | null;
}

/** Thrown inside a crawl when the run's page budget is used up; ends the pass as incomplete. */
class PageBudgetExhausted extends Error {}

/**
 * Runs one source once: every page request becomes a source-fetch event and
 * every item a listing event. A failed page is recorded with its reason and ends
 * that source's pass as incomplete; it never reads as an empty source, and the
 * state (watermark) only advances after a complete pass.
 */
export async function runSource(
  source: ListingSource,
  deps: SourceRunnerDeps,
  opts: { runId: string; baseUrl?: string; full?: boolean },
): Promise<SourceSummary> {
  const now = deps.now ?? Date.now;
  const limits = {
    pageMaxBytes: deps.limits?.pageMaxBytes ?? SOURCE_LIMITS.pageMaxBytes,
    pageTimeoutMs: deps.limits?.pageTimeoutMs ?? SOURCE_LIMITS.pageTimeoutMs,
    maxPages: deps.limits?.maxPages ?? SOURCE_LIMITS.defaultMaxPages,
  };
  const log = deps.log.child({ source: source.name, runId: opts.runId });
  const summary: SourceSummary = {
    source: source.name,
    mode: opts.full ? 'full' : 'incremental',
    pages: 0,
    items: 0,
    invalid: 0,
    errors: 0,
    complete: false,
    failure: null,
  };
  let modeForEvents: 'incremental' | 'full' = summary.mode;

  const io: SourceIO = {
    log,
    now,
    async page(req: PageRequest, parse: (json: unknown, res: PageResponse) => ParsedPage): Promise<PageOutcome> {
      if (summary.pages >= limits.maxPages) throw new PageBudgetExhausted(`page budget of ${limits.maxPages} reached`);
      summary.pages += 1;
      const fetchId = newEventId();
      const res = await deps.fetch(req.url, {
        headers: { accept: 'application/json', ...req.headers },
        maxBytes: limits.pageMaxBytes,
        timeoutMs: limits.pageTimeoutMs,
      });
      const observedAt = now();
      const outcome = interpret(res, parse);
      const event: SourceFetchEvent = {
        id: fetchId,
        observedAt,
        runId: opts.runId,
        source: source.name,
        url: req.url,
        page: summary.pages,
        cursor: req.cursor ?? null,
        mode: modeForEvents,
        status: res.status,
        ok: outcome.ok,
        notModified: res.status === 304,
        etag: res.headers.etag ?? null,
        itemCount: outcome.ok ? outcome.page.listings.length : 0,
        invalidItemCount: outcome.ok ? outcome.page.listings.filter((l) => l.status === 'invalid').length : 0,
        nextCursor: outcome.ok ? (outcome.page.nextCursor ?? null) : null,
        bytes: res.body.length,
        gate: 'allowed',
        durationMs: Math.round(res.durationMs),
        errorClass: outcome.ok ? null : outcome.errorClass,
        error: outcome.ok ? null : outcome.error,
      };
      await deps.sink.sourceFetch(event);
      if (!outcome.ok) {
        summary.errors += 1;
        summary.failure ??= `${outcome.errorClass}: ${outcome.error}`;
        log.warn({ url: req.url, status: res.status, errorClass: outcome.errorClass, error: outcome.error }, 'listing page failed');
        return outcome;
      }
      const listings: ListingEvent[] = outcome.page.listings.map((draft) => ({
        ...draft,
        id: newEventId(),
        observedAt,
        runId: opts.runId,
        fetchId,
        source: source.name,
      }));
      summary.items += listings.length;
      summary.invalid += event.invalidItemCount;
      if (listings.length > 0) await deps.sink.listings(listings);
      return outcome;
    },
  };

  const state = await deps.state.load(source.name);
  const baseUrl = (opts.baseUrl ?? source.defaultBaseUrl).replace(/\/$/, '');
  log.info({ baseUrl, full: Boolean(opts.full) }, 'source pass starting');
  try {
    const result = await source.crawl(io, { baseUrl, full: Boolean(opts.full), state });
    modeForEvents = result.mode;
    summary.mode = result.mode;
    summary.complete = result.complete && summary.errors === 0;
    if (summary.complete) await deps.state.save(source.name, result.state);
  } catch (err) {
    summary.errors += 1;
    summary.failure ??= err instanceof PageBudgetExhausted ? err.message : `crawl_error: ${(err as Error).message}`;
    log.error({ err }, 'source pass stopped');
  }
  log.info({ ...summary }, summary.complete ? 'source pass complete' : 'source pass incomplete');
  return summary;
}

function interpret(res: PageResponse, parse: (json: unknown, res: PageResponse) => ParsedPage): PageOutcome {
  const fail = (errorClass: string, error: string): PageOutcome => ({ ok: false, errorClass, error, response: res });
  if (res.errorClass) {
    const cls = res.errorClass === 'body_too_large' ? 'too_large' : res.errorClass;
    return fail(cls, res.errorMessage ?? res.errorClass);
  }
  if (res.truncated) return fail('too_large', `page larger than the ${res.body.length}-byte cap`);
  if (res.status === 304) return { ok: true, page: { listings: [], nextCursor: null }, response: res };
  if (res.status === null) return fail('no_response', 'no HTTP response');
  if (res.status >= 500) return fail('http_5xx', `HTTP ${res.status}`);
  if (res.status === 429) return fail('rate_limited', `HTTP 429${res.headers['retry-after'] ? ` (Retry-After ${res.headers['retry-after']})` : ''}`);
  if (res.status >= 400) return fail('http_4xx', `HTTP ${res.status}: ${res.body.subarray(0, 200).toString('utf8')}`);
  if (res.status < 200 || res.status >= 300) return fail('unexpected_status', `HTTP ${res.status}`);
  let json: unknown;
  try {
    json = JSON.parse(res.body.toString('utf8'));
  } catch (err) {
    return fail('not_json', `page is not JSON: ${(err as Error).message}`);
  }
  try {
    return { ok: true, page: parse(json, res), response: res };
  } catch (err) {
    if (err instanceof PageShapeError) return fail('invalid_shape', err.message);
    throw err;
  }
}

/** Bounds a raw item to keep events small; returns the JSON text and whether it was cut. */
export function boundedRaw(item: unknown, maxChars: number = SOURCE_LIMITS.rawItemMaxChars): { raw: string; rawTruncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(item) ?? 'null';
  } catch {
    text = '"[unserializable]"';
  }
  return text.length > maxChars ? { raw: text.slice(0, maxChars), rawTruncated: true } : { raw: text, rawTruncated: false };
}
