import { LISTING_PAGE_MAX_BYTES, REQUEST_TIMEOUT_MS } from '../http/limits.js';

/** Bounds on reading listing sources, in one place (HTTP-level bounds live in ../http/limits.ts). */
export const SOURCE_LIMITS = {
  /** A listing page larger than this is refused as too_large. */
  pageMaxBytes: LISTING_PAGE_MAX_BYTES,
  /** The whole exchange of one page request. */
  pageTimeoutMs: REQUEST_TIMEOUT_MS,
  /** Raw listing items kept in the event, as JSON text. */
  rawItemMaxChars: 64 * 1024,
  /** List pages a single source may read in one run unless the source or the configuration says otherwise. */
  defaultMaxPages: 1000,
  /** Per-item detail requests (Smithery) a single source may make in one run. */
  defaultMaxDetails: 2000,
  /** Least time between two requests to one source unless the source or the configuration says otherwise. */
  defaultPageDelayMs: 250,
} as const;
