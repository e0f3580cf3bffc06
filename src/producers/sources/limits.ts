import { LISTING_PAGE_MAX_BYTES, MAX_URL_CHARS, REQUEST_TIMEOUT_MS } from '../../http/limits.js';

/**
 * Bounds on reading listing sources, in one place (HTTP-level bounds and the event size limit
 * live in ../http/limits.ts). The field caps keep every listing event far under
 * EVENT_MAX_BYTES: raw ≤ 64 Ki chars, server.json ≤ 256 KB, the text fields a few KB.
 */
export const SOURCE_LIMITS = {
  /** A listing page larger than this is refused as too_large. */
  pageMaxBytes: LISTING_PAGE_MAX_BYTES,
  /** The whole exchange of one page request. */
  pageTimeoutMs: REQUEST_TIMEOUT_MS,
  /** Raw listing items kept in the event, as JSON text. */
  rawItemMaxChars: 64 * 1024,
  /** An item's server.json (UTF-8 bytes); a larger one makes the listing `invalid`, with the reason. */
  serverJsonMaxBytes: 256 * 1024,
  /** An item id longer than this makes the listing `invalid` (ids key state and events). */
  itemIdMaxChars: 1024,
  /**
   * Endpoint and card URLs; a longer one makes the listing `invalid` (it is never requested).
   * Source-fetch events cut their URL and cursors to it too.
   */
  urlMaxChars: MAX_URL_CHARS,
  /** Text fields are cut to these many characters (the cut marked with "…"). */
  nameMaxChars: 512,
  descriptionMaxChars: 8 * 1024,
  versionMaxChars: 256,
  /** Short fields (transport, updatedAt). */
  shortFieldMaxChars: 256,
  /** Reasons and errors in words (a listing's invalidReason, a source-fetch event's error). */
  reasonMaxChars: 1024,
  /** List pages a single source may read in one run unless the source or the configuration says otherwise. */
  defaultMaxPages: 1000,
  /** Per-item detail requests (Smithery) a single source may make in one run. */
  defaultMaxDetails: 2000,
  /** Least time between two requests to one source unless the source or the configuration says otherwise. */
  defaultPageDelayMs: 250,
  /**
   * Items one page may hold, as a multiple of the page size the source asks for (the byte cap
   * alone lets a 4 MB page of `0,0,…` hold two million items). A page over it is a failed page
   * (`too_many_items`), refused by counting before anything is parsed or mapped.
   */
  pageItemsPerRequested: 5,
  /** The page size assumed for a source whose server chooses it (a2a-registry). */
  assumedPageSize: 100,
  /**
   * Nesting depth a page may reach (a server.json nests a few levels); deeper is a failed page
   * (`too_deep`), refused before parsing, so no later step (JSON.stringify of an item) recurses without bound.
   */
  pageMaxDepth: 64,
  /**
   * Invalid items recorded as listing events in one pass; beyond it they are counted (and still
   * count as listed for delisting) but not recorded, and the page says so (`too_many_invalid`).
   */
  invalidItemsPerPass: 1000,
  /** Listing events handed to the sink in one call (a page's and the tombstones alike). */
  sinkChunkEvents: 100,
} as const;

/** Items a page may hold when the source asks for `pageSize` per page. */
export function pageMaxItems(pageSize: number | undefined): number {
  return (pageSize ?? SOURCE_LIMITS.assumedPageSize) * SOURCE_LIMITS.pageItemsPerRequested;
}
