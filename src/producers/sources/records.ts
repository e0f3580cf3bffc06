import { newEventId } from '../../events/ids.js';
import type { ListingEvent, SourceFetchEvent } from '../../events/types.js';
import { redactText, redactUrl } from '../../util/redact.js';
import { redactCursor } from './cursor.js';
import { capOrNull, capText } from './item.js';
import type { Interpreted } from './page-outcome.js';
import type { ItemInfo } from './pass-items.js';
import { SOURCE_LIMITS } from './limits.js';
import type { CrawlMode, ListingDraft, PageRequest, PageResponse } from './types.js';

/**
 * The events a pass writes: one source-fetch event per request or refusal, listing events,
 * `delisted` tombstones. Every URL and error text of a source-fetch event is redacted here
 * (util/redact.ts): a configured URL may carry a token in its query, and events are kept.
 */

/** Who writes: the run and the source. */
export interface PassOrigin {
  runId: string;
  source: string;
}

/** A source-fetch event for a request the gate refused or a source that was skipped. */
export function refusalEvent(
  o: PassOrigin,
  at: { observedAt: number; page: number; mode: CrawlMode },
  url: string,
  gate: string,
  errorClass: string,
  error: string,
): SourceFetchEvent {
  return {
    id: newEventId(),
    observedAt: at.observedAt,
    runId: o.runId,
    source: o.source,
    url: capText(redactUrl(url), SOURCE_LIMITS.urlMaxChars),
    page: at.page,
    cursor: null,
    mode: at.mode,
    status: null,
    ok: false,
    notModified: false,
    etag: null,
    itemCount: 0,
    invalidItemCount: 0,
    nextCursor: null,
    bytes: 0,
    gate,
    durationMs: 0,
    errorClass,
    error: capText(redactText(error), SOURCE_LIMITS.reasonMaxChars),
  };
}

/** A notice about an ok page, for its event and the summary. */
export interface PageNotice {
  errorClass: string;
  message: string;
}

/** The source-fetch event of one page request the gate allowed, whatever its outcome. */
export function pageEvent(
  o: PassOrigin,
  at: { id: string; observedAt: number; page: number; mode: CrawlMode },
  req: PageRequest,
  res: PageResponse,
  outcome: Interpreted,
  listings: readonly ListingDraft[],
  notices: readonly (PageNotice | undefined)[],
): SourceFetchEvent {
  const present = notices.filter((n): n is PageNotice => n !== undefined);
  const cursor = (c: string | null) => capOrNull(c === null ? null : redactCursor(c), SOURCE_LIMITS.urlMaxChars);
  const error = outcome.ok
    ? present
        .map((n) => n.message)
        .filter(Boolean)
        .join('; ') || null
    : outcome.error;
  return {
    id: at.id,
    observedAt: at.observedAt,
    runId: o.runId,
    source: o.source,
    url: capText(redactUrl(req.url), SOURCE_LIMITS.urlMaxChars),
    page: at.page,
    cursor: cursor(req.cursor ?? null),
    mode: at.mode,
    status: res.status,
    ok: outcome.ok,
    notModified: res.status === 304,
    etag: res.headers.etag ?? null,
    itemCount: outcome.ok ? (outcome.page.itemCount ?? listings.length) : 0,
    invalidItemCount: listings.filter((l) => l.status === 'invalid').length,
    nextCursor: outcome.ok ? cursor(outcome.page.nextCursor ?? null) : null,
    bytes: res.body.length,
    gate: 'allowed',
    durationMs: Math.round(res.durationMs),
    errorClass: outcome.ok ? (present[0]?.errorClass ?? null) : outcome.errorClass,
    error: capOrNull(error === null ? null : redactText(error), SOURCE_LIMITS.reasonMaxChars),
  };
}

/** Listing events for finalised drafts read from the request `fetchId`. */
export function listingEvents(o: PassOrigin, drafts: readonly ListingDraft[], fetchId: string, observedAt: number): ListingEvent[] {
  return drafts.map((draft) => ({ ...draft, id: newEventId(), observedAt, runId: o.runId, fetchId, source: o.source }));
}

/**
 * A `delisted` tombstone names the item and the URLs it was last listed with (so every consumer
 * keys it to the same agent); the rest of the listing is the processors' to carry forward.
 */
export function tombstone(o: PassOrigin, itemId: string, info: ItemInfo, fetchId: string | null, observedAt: number): ListingEvent {
  const [protocol, , endpointUrl, cardUrl] = info;
  return {
    id: newEventId(),
    observedAt,
    runId: o.runId,
    fetchId: fetchId ?? 'none',
    source: o.source,
    itemId,
    protocol: protocol === 'a2a' ? 'a2a' : 'mcp',
    name: '',
    description: '',
    version: null,
    endpointUrl,
    endpointTransport: null,
    cardUrl,
    serverJson: null,
    status: 'delisted',
    invalidReason: null,
    updatedAt: null,
    raw: '',
    rawTruncated: false,
  };
}
