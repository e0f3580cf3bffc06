import { LISTING_PAGE_MAX_BYTES, REQUEST_TIMEOUT_MS } from '../http/limits.js';

/** Bounds on reading listing sources, in one place (HTTP-level bounds live in ../http/limits.ts). */
export const SOURCE_LIMITS = {
  /** A listing page larger than this is refused as too_large. */
  pageMaxBytes: LISTING_PAGE_MAX_BYTES,
  /** The whole exchange of one page request. */
  pageTimeoutMs: REQUEST_TIMEOUT_MS,
  /** Raw listing items kept in the event, as JSON text. */
  rawItemMaxChars: 64 * 1024,
  /** Pages a single source may read in one run unless configured otherwise. */
  defaultMaxPages: 1000,
} as const;
