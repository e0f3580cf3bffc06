/** Bounds on reading listing sources, in one place. */
export const SOURCE_LIMITS = {
  /** A listing page larger than this is refused as too_large. */
  pageMaxBytes: 8 * 1024 * 1024,
  /** The whole exchange of one page request. */
  pageTimeoutMs: 10_000,
  /** Raw listing items kept in the event, as JSON text. */
  rawItemMaxChars: 64 * 1024,
  /** Pages a single source may read in one run unless configured otherwise. */
  defaultMaxPages: 1000,
} as const;
