import { newEventId } from '../../events/ids.js';
import type { Logger } from '../../log.js';
import { redactText, redactUrl } from '../../util/redact.js';
import type { ObservationSink } from '../sink.js';
import type { CrawlRefusal } from './gate.js';
import { finalizeDraft } from './item.js';
import { SOURCE_LIMITS } from './limits.js';
import { interpret } from './page-outcome.js';
import type { Pacer } from './pacer.js';
import type { PassItems } from './pass-items.js';
import { listingEvents, pageEvent, refusalEvent, type PassOrigin } from './records.js';
import { countFailure, type SourceSummary } from './summary.js';
import type { CrawlMode, ListingDraft, PageFetcher, PageOutcome, PageRequest, PageResponse, ParsedPage, SourceIO } from './types.js';

/** Thrown inside a crawl when the run's page budget is used up; ends the pass as incomplete. */
export class PageBudgetExhausted extends Error {}
/** Thrown inside a crawl when robots.txt refuses a request; ends the pass. */
export class GateStop extends Error {}

/** The bounds a pass reads its pages within. */
export interface PageBounds {
  pageMaxBytes: number;
  pageTimeoutMs: number;
  maxPages: number;
  maxDetails: number;
  /** Items one page may hold; a page over it fails as too_many_items. */
  pageMaxItems: number;
  /** Invalid items recorded as listing events in one pass; the rest are counted, not recorded. */
  invalidItemsPerPass: number;
}

export interface PageReaderDeps {
  origin: PassOrigin;
  fetch: PageFetcher;
  sink: ObservationSink;
  log: Logger;
  now: () => number;
  bounds: PageBounds;
  pacer: Pacer;
  /** The crawl gate's answer for a URL (robots.txt). */
  gate: (url: string) => Promise<{ ok: true } | CrawlRefusal>;
  items: PassItems;
  summary: SourceSummary;
  /** Reports the summary so far (progress display). */
  progress: () => void;
}

/** A notice for a page that is not valid UTF-8: it is still read (invalid sequences become U+FFFD), and says so. */
const INVALID_UTF8 = { errorClass: 'invalid_utf8', message: 'page is not valid UTF-8; invalid sequences were replaced by U+FFFD' };

/**
 * What the runner offers a source while it crawls (SourceIO): every request passes the budget,
 * the crawl gate and the pacing, becomes a source-fetch event, and its items listing events.
 */
export class PageReader implements SourceIO {
  readonly log: Logger;
  readonly now: () => number;
  /** The last list page read fine: delisting tombstones point at it. */
  lastListFetchId: string | null = null;
  /** Invalid items recorded as listing events so far in this pass. */
  private invalidRecorded = 0;

  constructor(private readonly d: PageReaderDeps) {
    this.log = d.log;
    this.now = d.now;
  }

  setMode(mode: CrawlMode): void {
    this.d.summary.mode = mode;
  }

  pagesLeft(): number {
    return Math.max(0, this.d.bounds.maxPages - this.d.summary.pages);
  }

  async page(req: PageRequest, parse: (json: unknown, res: PageResponse) => ParsedPage): Promise<PageOutcome> {
    const { summary } = this.d;
    const detail = req.kind === 'detail';
    this.spendBudget(detail);
    await this.passGate(req.url);
    await this.d.pacer.pace();
    if (detail) summary.details += 1;
    else summary.pages += 1;
    const fetchId = newEventId();
    const res = await this.d.fetch(req.url, {
      headers: { accept: 'application/json', ...req.headers },
      maxBytes: this.d.bounds.pageMaxBytes,
      timeoutMs: this.d.bounds.pageTimeoutMs,
    });
    this.d.pacer.markSent();
    const observedAt = this.now();
    const { invalidUtf8, ...outcome } = interpret(res, parse, req.notModified, {
      maxItems: this.d.bounds.pageMaxItems,
      maxDepth: SOURCE_LIMITS.pageMaxDepth,
    });
    const listings = outcome.ok ? outcome.page.listings.map(finalizeDraft) : [];
    const recordable = this.withinInvalidCap(listings);
    const notice = outcome.ok ? outcome.page.notice : undefined;
    const textNotice = invalidUtf8 ? INVALID_UTF8 : undefined;
    const invalidNotice = recordable.dropped > 0 ? this.invalidCapNotice(recordable.dropped) : undefined;
    const at = { id: fetchId, observedAt, page: summary.pages, mode: summary.mode };
    await this.d.sink.sourceFetch(pageEvent(this.d.origin, at, req, res, outcome, listings, [notice, textNotice, invalidNotice]));
    if (!outcome.ok) {
      const error = redactText(outcome.error);
      countFailure(summary, `${outcome.errorClass}: ${error}`);
      this.log.warn({ url: redactUrl(req.url), status: res.status, errorClass: outcome.errorClass, error }, 'listing request failed');
      this.d.progress();
      return { ...outcome, fetchId };
    }
    if (!detail) this.lastListFetchId = fetchId;
    if (notice) summary.notes.push(redactText(`${notice.errorClass}: ${notice.message}`));
    if (textNotice) summary.notes.push(`${textNotice.errorClass}: ${redactUrl(req.url)}: ${textNotice.message}`);
    if (outcome.page.carried) this.carry(outcome.page.carried);
    await this.record(listings, recordable.kept, fetchId, observedAt);
    this.d.progress();
    return { ...outcome, fetchId };
  }

  async emit(drafts: ListingDraft[], fetchId: string): Promise<void> {
    const listed = drafts.map(finalizeDraft);
    await this.record(listed, this.withinInvalidCap(listed).kept, fetchId, this.now());
    this.d.progress();
  }

  carry(itemIds: readonly string[]): void {
    this.d.items.carry(itemIds);
  }

  note(text: string): void {
    this.d.summary.notes.push(text);
  }

  /** Refuses a request over the page or detail budget. */
  private spendBudget(detail: boolean): void {
    const { summary, bounds } = this.d;
    if (detail ? summary.details >= bounds.maxDetails : summary.pages >= bounds.maxPages) {
      throw new PageBudgetExhausted(`${detail ? 'detail' : 'page'} budget of ${detail ? bounds.maxDetails : bounds.maxPages} reached`);
    }
  }

  /** Asks the crawl gate; a refusal is recorded (against robots.txt, the page not requested) and ends the pass. */
  private async passGate(url: string): Promise<void> {
    const decision = await this.d.gate(url);
    if (decision.ok) return;
    const { summary } = this.d;
    const at = { observedAt: this.now(), page: summary.pages, mode: summary.mode };
    await this.d.sink.sourceFetch(
      refusalEvent(
        this.d.origin,
        at,
        decision.robotsUrl,
        decision.errorClass,
        decision.cause,
        `${decision.message}; page ${url} not requested`,
      ),
    );
    throw new GateStop(`robots: ${decision.errorClass === 'robots_unreachable' ? 'unreachable' : 'disallowed'} (${decision.detail})`);
  }

  /**
   * The finalised drafts to record as events: all of them while the pass has recorded fewer
   * invalid items than its cap, then only the valid ones. Counts what it lets through.
   */
  private withinInvalidCap(drafts: readonly ListingDraft[]): { kept: ListingDraft[]; dropped: number } {
    const kept: ListingDraft[] = [];
    let dropped = 0;
    for (const d of drafts) {
      if (d.status !== 'invalid') kept.push(d);
      else if (this.invalidRecorded < this.d.bounds.invalidItemsPerPass) {
        this.invalidRecorded += 1;
        kept.push(d);
      } else dropped += 1;
    }
    if (dropped > 0 && !this.d.summary.notes.some((n) => n.startsWith('too_many_invalid'))) {
      this.d.summary.notes.push(`too_many_invalid: ${this.invalidCapMessage()}`);
    }
    return { kept, dropped };
  }

  private invalidCapMessage(): string {
    return `the pass reached its cap of ${this.d.bounds.invalidItemsPerPass} invalid items; further invalid items are counted but not recorded`;
  }

  private invalidCapNotice(dropped: number): { errorClass: string; message: string } {
    return { errorClass: 'too_many_invalid', message: `${dropped} invalid item(s) of this page not recorded: ${this.invalidCapMessage()}` };
  }

  /**
   * Counts finalised drafts into the summary and the pass's items (all of them: an invalid item
   * over the cap still counts as listed), and writes `recorded` to the sink as listing events,
   * SOURCE_LIMITS.sinkChunkEvents at a time (events are made per chunk, never for a whole page at once).
   */
  private async record(
    drafts: readonly ListingDraft[],
    recorded: readonly ListingDraft[],
    fetchId: string,
    observedAt: number,
  ): Promise<void> {
    if (drafts.length === 0) return;
    const { summary } = this.d;
    summary.items += drafts.length;
    summary.invalid += drafts.filter((d) => d.status === 'invalid').length;
    const counts = this.d.items.track(drafts);
    summary.new += counts.new;
    summary.changed += counts.changed;
    const chunk = SOURCE_LIMITS.sinkChunkEvents;
    for (let i = 0; i < recorded.length; i += chunk) {
      await this.d.sink.listings(listingEvents(this.d.origin, recorded.slice(i, i + chunk), fetchId, observedAt));
    }
  }
}
