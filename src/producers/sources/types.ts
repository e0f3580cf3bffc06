import type { Logger } from '../../log.js';
import type { ListingEvent } from '../../events/types.js';

/** One HTTP response of a listing source, bounded by the fetcher. Never throws: failures carry an errorClass. */
export interface PageResponse {
  status: number | null;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
  errorClass: string | null;
  errorMessage: string | null;
}

export interface PageRequestOptions {
  headers?: Record<string, string>;
  maxBytes: number;
  timeoutMs: number;
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
}

export interface PageRequest {
  url: string;
  cursor?: string | null;
  headers?: Record<string, string>;
}

export type PageOutcome =
  | { ok: true; page: ParsedPage; response: PageResponse }
  | { ok: false; errorClass: string; error: string; response: PageResponse | null };

/** What the runner offers a source while it crawls. */
export interface SourceIO {
  readonly log: Logger;
  readonly now: () => number;
  /** Fetches, parses and records one page (a source-fetch event, then a listing event per item). */
  page(req: PageRequest, parse: (json: unknown, res: PageResponse) => ParsedPage): Promise<PageOutcome>;
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
  /** True when the source was read to its end without a failed page. */
  complete: boolean;
  mode: 'incremental' | 'full';
  /** State to persist; only saved when the pass completed. */
  state: SourceState;
}

export interface ListingSource {
  readonly name: string;
  readonly protocol: 'a2a' | 'mcp' | 'mixed';
  readonly defaultBaseUrl: string;
  crawl(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult>;
}
