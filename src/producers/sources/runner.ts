import type { Logger } from '../../log.js';
import { redactError, redactText, redactUrl } from '../../util/redact.js';
import { RobotsCache } from '../../http/politeness/robots.js';
import type { ObservationSink } from '../sink.js';
import { crawlGate, pageRobotsFetcher } from './gate.js';
import { pageMaxItems, SOURCE_LIMITS } from './limits.js';
import { Pacer } from './pacer.js';
import { GateStop, PageBudgetExhausted, PageReader } from './page-reader.js';
import { PassItems } from './pass-items.js';
import { refusalEvent, tombstone, type PassOrigin } from './records.js';
import type { SourceStateStore } from './state.js';
import { countFailure, emptySummary, type SourceSummary } from './summary.js';
import type { CrawlResult, ListingSource, PageFetcher, SourceState } from './types.js';

export type { SourceSummary } from './summary.js';

export interface SourceRunnerLimits {
  pageMaxBytes: number;
  pageTimeoutMs: number;
  /** List pages one run may read. */
  maxPages: number;
  /** Per-item detail requests one run may make. */
  maxDetails: number;
  /** Least time between two requests to the source (pacing). */
  pageDelayMs: number;
  /** Items one page may hold (default: a small multiple of the source's page size). */
  pageMaxItems: number;
  /** Invalid items recorded as listing events in one pass. */
  invalidItemsPerPass: number;
}

export interface SourceRunnerDeps {
  fetch: PageFetcher;
  sink: ObservationSink;
  state: SourceStateStore;
  log: Logger;
  now?: () => number;
  limits?: Partial<SourceRunnerLimits>;
  /** Injectable wait for pacing (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** robots.txt per origin, shared by the sources of one run. */
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

/** The configured limits over the source's own defaults over SOURCE_LIMITS. */
function resolveLimits(source: ListingSource, given: Partial<SourceRunnerLimits> = {}): SourceRunnerLimits {
  return {
    pageMaxBytes: given.pageMaxBytes ?? SOURCE_LIMITS.pageMaxBytes,
    pageTimeoutMs: given.pageTimeoutMs ?? SOURCE_LIMITS.pageTimeoutMs,
    maxPages: given.maxPages ?? source.defaultMaxPages ?? SOURCE_LIMITS.defaultMaxPages,
    maxDetails: given.maxDetails ?? SOURCE_LIMITS.defaultMaxDetails,
    pageDelayMs: given.pageDelayMs ?? source.defaultPageDelayMs ?? SOURCE_LIMITS.defaultPageDelayMs,
    pageMaxItems: given.pageMaxItems ?? pageMaxItems(source.pageSize),
    invalidItemsPerPass: given.invalidItemsPerPass ?? SOURCE_LIMITS.invalidItemsPerPass,
  };
}

/** One pass over one source: what every step below shares. */
interface Pass {
  source: ListingSource;
  origin: PassOrigin;
  deps: SourceRunnerDeps;
  now: () => number;
  log: Logger;
  summary: SourceSummary;
  items: PassItems;
  reader: PageReader;
}

/**
 * Runs one source once, behind the crawl gate:
 *
 * 1. Terms: a source whose terms forbid crawling is skipped, recorded.
 * 2. robots.txt of the source's origin, for our product token (gate.ts); unreachable means
 *    skipped for this run (fail closed), and every request is checked against it.
 * 3. Every page request becomes a source-fetch event and every item a listing event
 *    (page-reader.ts). A failed page is recorded with its reason and ends the pass as
 *    incomplete; it never reads as an empty source, and the state (watermark) only advances
 *    after a complete pass.
 * 4. After a complete pass that covered the whole listing, every item the previous complete
 *    pass listed and this one did not becomes a listing event with status `delisted`.
 */
export async function runSource(source: ListingSource, deps: SourceRunnerDeps, opts: RunSourceOptions): Promise<SourceSummary> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ source: source.name, runId: opts.runId });
  const origin: PassOrigin = { runId: opts.runId, source: source.name };
  const summary = emptySummary(source.name, opts.full ? 'full' : 'incremental');
  const progress = () => deps.onProgress?.(summary);
  const baseUrl = (opts.baseUrl ?? source.defaultBaseUrl).replace(/\/$/, '');

  if (opts.termsForbidden) {
    summary.skipped = `terms: ${opts.termsForbidden}`;
    const at = { observedAt: now(), page: summary.pages, mode: summary.mode };
    await deps.sink.sourceFetch(refusalEvent(origin, at, baseUrl, 'terms_forbidden', 'terms_forbidden', `skipped: ${opts.termsForbidden}`));
    log.warn({ reason: opts.termsForbidden }, 'source skipped: its terms forbid crawling');
    progress();
    return summary;
  }

  const state = await deps.state.load(source.name);
  const limits = resolveLimits(source, deps.limits);
  const pacer = new Pacer(limits.pageDelayMs, now, deps.sleep);
  const robots = deps.robots ?? new RobotsCache({ now });
  const robotsFetcher = pageRobotsFetcher({
    fetch: deps.fetch,
    pace: () => pacer.pace(),
    timeoutMs: limits.pageTimeoutMs,
    now,
    onRead: (robotsUrl, status, fetch) => log.info({ robotsUrl, status, fetch }, 'robots.txt read'),
  });
  const items = PassItems.from(state);
  const reader = new PageReader({
    origin,
    fetch: deps.fetch,
    sink: deps.sink,
    log,
    now,
    bounds: limits,
    pacer,
    gate: crawlGate(robots, robotsFetcher),
    items,
    summary,
    progress,
  });
  const pass: Pass = { source, origin, deps, now, log, summary, items, reader };

  log.info({ baseUrl: redactUrl(baseUrl), full: Boolean(opts.full) }, 'source pass starting');
  try {
    const result = await source.crawl(reader, { baseUrl, full: Boolean(opts.full), state });
    await finishPass(pass, result);
  } catch (err) {
    stopPass(pass, err);
  }
  log.info({ ...summary }, summary.complete ? 'source pass complete' : 'source pass incomplete');
  progress();
  return summary;
}

/** Saves what a pass that ran to its end leaves: a complete pass settles the items, an incomplete sweep keeps its progress. */
async function finishPass(pass: Pass, result: CrawlResult): Promise<void> {
  const { summary } = pass;
  summary.mode = result.mode;
  summary.complete = result.complete && summary.errors === 0;
  if (summary.complete) {
    const next = await settleItems(pass, result.coverage ?? (result.mode === 'full' ? 'all' : 'part'));
    await pass.deps.state.save(pass.source.name, { ...result.state, ...next });
  } else if (result.progressState) {
    await pass.deps.state.save(pass.source.name, pass.items.progressState(result.progressState));
  }
}

/** A pass that threw: refused at its first request is a skipped source; anything else is a failure. */
function stopPass(pass: Pass, err: unknown): void {
  const { summary, log } = pass;
  if (err instanceof GateStop && summary.pages === 0 && summary.details === 0) {
    summary.skipped = redactText(err.message);
    // The command's summary says so to a person; the log keeps it for the record.
    log.info({ reason: summary.skipped }, 'source skipped by the crawl gate');
    return;
  }
  const message = redactText(err instanceof Error ? err.message : String(err));
  countFailure(summary, err instanceof PageBudgetExhausted || err instanceof GateStop ? message : `crawl_error: ${message}`);
  log.error({ err: redactError(err) }, 'source pass stopped');
}

/** The item state after a complete pass, writing `delisted` tombstones where the pass covered everything. */
async function settleItems(pass: Pass, coverage: NonNullable<CrawlResult['coverage']>): Promise<SourceState> {
  const { summary, log } = pass;
  const settled = pass.items.settle(coverage);
  if (settled.held) {
    summary.notes.push(
      `delisting held back: ${settled.held.gone} of ${settled.held.before} items would be delisted at once; they stay listed until a pass confirms it`,
    );
    log.warn({ gone: settled.held.gone, before: settled.held.before }, 'delisting guard tripped');
  }
  if (settled.gone.length > 0) {
    const observedAt = pass.now();
    const events = settled.gone.map(([itemId, info]) => tombstone(pass.origin, itemId, info, pass.reader.lastListFetchId, observedAt));
    const chunk = SOURCE_LIMITS.sinkChunkEvents;
    for (let i = 0; i < events.length; i += chunk) await pass.deps.sink.listings(events.slice(i, i + chunk));
    summary.delisted = events.length;
    log.info({ delisted: events.length }, 'items no longer listed');
  }
  return settled.state;
}
