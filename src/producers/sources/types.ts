import type { Logger } from '../../log.js';
import type { ListingEvent } from '../../events/types.js';
import type { Exchange } from '../../http/types.js';

/**
 * What a listing source reads of one bounded exchange (the page fetcher keeps no redirect hops,
 * and the captured pages of the tests carry no more). Never thrown: failures carry an errorClass.
 */
export type PageResponse = Pick<Exchange, 'status' | 'headers' | 'body' | 'bodyTruncated' | 'durationMs' | 'errorClass' | 'errorMessage'>;

export interface PageRequestOptions {
  headers?: Record<string, string>;
  maxBytes: number;
  timeoutMs: number;
  /** Keep the first maxBytes of a larger body (bodyTruncated: true) instead of failing with body_too_large. */
  truncateOverCap?: boolean;
}

export type PageFetcher = (url: string, opts: PageRequestOptions) => Promise<PageResponse>;

/** What a source says about one listing item; the runner adds ids, times and the run. */
export type ListingDraft = Omit<ListingEvent, 'id' | 'observedAt' | 'runId' | 'fetchId' | 'source'>;

/** Raised by a page parser when the page as a whole has the wrong shape. */
export class PageShapeError extends Error {
  override name = 'PageShapeError';
}

export interface ParsedPage {
  listings: ListingDraft[];
  /** Cursor for the next page; null or undefined when this was the last page. */
  nextCursor?: string | null;
  /**
   * Item ids this page still lists but does not re-emit (an unchanged page answered 304 Not
   * Modified, or an item whose detail call failed): they count as seen for delisting.
   */
  carried?: string[];
  /** Items on the page when they are not all emitted from it (e.g. emitted after a detail call). */
  itemCount?: number;
  /**
   * A page that was read fine but says something about the listing as a whole, e.g. an
   * early cut-off. Recorded on the (ok) source-fetch event and in the run summary.
   */
  notice?: { errorClass: string; message: string };
  /** Anything else the source's parser wants back (list items awaiting a detail call, links…). */
  data?: unknown;
}

export interface PageRequest {
  url: string;
  cursor?: string | null;
  headers?: Record<string, string>;
  /**
   * 'list' (default): a page of the listing, counted against the page budget. 'detail': a
   * per-item request (Smithery's server detail), counted against the detail budget.
   */
  kind?: 'list' | 'detail';
  /** The page a 304 Not Modified stands for (from the source's own state); without it a 304 reads as an empty page. */
  notModified?: () => ParsedPage;
}

export type PageOutcome =
  | { ok: true; page: ParsedPage; response: PageResponse; fetchId: string }
  | { ok: false; errorClass: string; error: string; response: PageResponse | null; fetchId: string };

/** How a pass read its source; carried on every source-fetch event. */
export type CrawlMode = 'incremental' | 'full' | 'rolling' | 'window';

/** What the items seen in a pass say about the whole listing (decides delisting). */
export type Coverage =
  /** Every item the source lists was seen: items listed last time but not now are delisted. */
  | 'all'
  /** Only part of the listing (an incremental read, a window of the first pages): nothing is delisted. */
  | 'part'
  /** Part of a rolling sweep that goes on next run: seen ids accumulate in the state. */
  | 'sweep-continues'
  /** The rolling sweep reached the end of the listing: this pass plus the earlier runs of the sweep are the whole listing. */
  | 'sweep-done';

/** What the runner offers a source while it crawls. */
export interface SourceIO {
  readonly log: Logger;
  readonly now: () => number;
  /** Declares how this pass reads the source (recorded on every source-fetch event from now on). */
  setMode(mode: CrawlMode): void;
  /** List pages this run may still read (the page budget); sources with a window or a rolling sweep stop at 0. */
  pagesLeft(): number;
  /** Fetches, parses and records one page (a source-fetch event, then a listing event per item). */
  page(req: PageRequest, parse: (json: unknown, res: PageResponse) => ParsedPage): Promise<PageOutcome>;
  /** Records listing events for drafts built after their page was read (fetchId: the page they came from). */
  emit(drafts: ListingDraft[], fetchId: string): Promise<void>;
  /** Marks items as still listed without re-emitting them (see ParsedPage.carried). */
  carry(itemIds: string[]): void;
  /** A remark about the pass for the run summary (e.g. "stopped at the 10-page window"). */
  note(text: string): void;
}

/** Persistent per-source crawl state (watermarks, last full resync); losing it only costs a full resync. */
export interface SourceState {
  watermark?: string;
  lastFullAt?: number;
  [key: string]: unknown;
}

export interface CrawlOptions {
  baseUrl: string;
  /** Force a full pass instead of an incremental one. */
  full: boolean;
  state: SourceState;
}

export interface CrawlResult {
  /** True when the source was read as far as this pass meant to without a failed page. */
  complete: boolean;
  mode: CrawlMode;
  /** State to persist; only saved when the pass completed. */
  state: SourceState;
  /** What the pass covered; default: 'all' for a complete full pass, else 'part'. */
  coverage?: Coverage;
  /** State to persist even though the pass was incomplete (a rolling sweep's progress). */
  progressState?: SourceState;
}

export interface ListingSource {
  readonly name: string;
  readonly protocol: 'a2a' | 'mcp' | 'mixed';
  readonly defaultBaseUrl: string;
  /** Items the source asks for per list page; a page may hold a small multiple of it (limits.ts pageMaxItems). Unset: the server chooses. */
  readonly pageSize?: number;
  /** List pages a run reads unless configured otherwise (Smithery's window, Neuronto's sweep step). */
  readonly defaultMaxPages?: number;
  /** Delay between two requests unless configured otherwise. */
  readonly defaultPageDelayMs?: number;
  crawl(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult>;
}
