import type { CrawlMode } from './types.js';

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

/** The summary of a pass that has not read anything yet. */
export function emptySummary(source: string, mode: CrawlMode): SourceSummary {
  return {
    source,
    mode,
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
}

/** Counts a failure; the first one of the pass becomes its `failure`. */
export function countFailure(summary: SourceSummary, failure: string): void {
  summary.errors += 1;
  summary.failure ??= failure;
}

/** Why a source the operator turned off (a disabled source in the settings) was not read. */
export const DISABLED_BY_CONFIGURATION = 'disabled by configuration';
