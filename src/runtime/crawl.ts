import { join } from 'node:path';
import { UsageError, type Config, type SourceSettings } from '../config.js';
import { newEventId } from '../events/ids.js';
import type { Logger } from '../log.js';
import type { ObservationSink } from '../producers/sink.js';
import { createPageFetcher, hostsOf } from '../producers/sources/http-page-fetcher.js';
import { createSources, runSource, SOURCE_NAMES, type SourceSummary } from '../producers/sources/index.js';
import type { RobotsCache, SourceRunnerLimits } from '../producers/sources/runner.js';
import { FileSourceStateStore } from '../producers/sources/state.js';
import type { PageFetcher } from '../producers/sources/types.js';

export interface CrawlOnceOptions {
  sources?: readonly string[];
  full?: boolean;
  now?: () => number;
  /** Called after every request of every source with that source's summary so far. */
  onProgress?: (summary: Readonly<SourceSummary>) => void;
  /** The page fetcher; default: the bounded GET client, trusting the hosts of the configured source URLs. */
  fetch?: PageFetcher;
  /** Request-level bounds (tests use short timeouts); budgets and pacing come from the configuration. */
  limits?: Partial<Pick<SourceRunnerLimits, 'pageMaxBytes' | 'pageTimeoutMs'>>;
  sleep?: (ms: number) => Promise<void>;
}

const NO_SETTINGS: SourceSettings = { disabled: [], termsForbidden: [], maxPages: {}, pageDelayMs: {} };

/** Refuses per-source settings that name no known source (a typo must not silently crawl). */
export function checkSourceSettings(settings: SourceSettings | undefined, known: readonly string[] = SOURCE_NAMES): void {
  if (!settings) return;
  const named = [
    ...settings.disabled.map((n) => ['disabled sources', n] as const),
    ...settings.termsForbidden.map((n) => ['terms-forbidden sources', n] as const),
    ...Object.keys(settings.maxPages).map((n) => ['page budget', n] as const),
    ...Object.keys(settings.pageDelayMs).map((n) => ['page delay', n] as const),
  ];
  for (const [what, n] of named) {
    if (n !== '*' && !known.includes(n)) throw new UsageError(`${what}: unknown source "${n}" (known: ${known.join(', ')})`);
  }
}

function skippedSummary(source: string, reason: string): SourceSummary {
  return {
    source, mode: 'full', pages: 0, details: 0, items: 0, new: 0, changed: 0, delisted: 0, invalid: 0, errors: 0,
    complete: false, failure: null, skipped: reason, notes: [],
  };
}

/**
 * One crawl run over the chosen sources: a run event at start and finish, then
 * each source in turn behind the crawl gate (terms, robots.txt). A source that
 * fails or is skipped is reported and the next one runs.
 */
export async function crawlOnce(config: Config, sink: ObservationSink, log: Logger, opts: CrawlOnceOptions = {}): Promise<SourceSummary[]> {
  const now = opts.now ?? Date.now;
  const runId = newEventId();
  const settings = config.sources ?? NO_SETTINGS;
  checkSourceSettings(settings);
  const names = opts.sources && opts.sources.length > 0 ? opts.sources : SOURCE_NAMES;
  const sources = createSources(names);
  const fetch =
    opts.fetch ?? createPageFetcher({ contact: config.contact, trustedHosts: hostsOf(Object.values(config.sourceUrls)) });
  const state = new FileSourceStateStore(join(config.dataDir, 'state', 'sources'));
  const robots: RobotsCache = new Map();
  const pick = (map: Record<string, number>, name: string) => map[name] ?? map['*'];

  await sink.run({
    id: newEventId(), observedAt: now(), runId, kind: 'crawl', phase: 'start',
    budget: null, sampleSize: null, seed: null, counts: {}, complete: false, note: `sources: ${names.join(', ')}`,
  });
  const summaries: SourceSummary[] = [];
  for (const source of sources) {
    if (settings.disabled.includes(source.name)) {
      const s = skippedSummary(source.name, 'disabled by configuration');
      log.info({ source: source.name }, 'source disabled by configuration');
      opts.onProgress?.(s);
      summaries.push(s);
      continue;
    }
    const maxPages = pick(settings.maxPages, source.name);
    const pageDelayMs = pick(settings.pageDelayMs, source.name);
    summaries.push(
      await runSource(
        source,
        {
          fetch, sink, state, log, now, robots, sleep: opts.sleep, onProgress: opts.onProgress,
          limits: {
            ...opts.limits,
            ...(maxPages === undefined ? {} : { maxPages }),
            ...(pageDelayMs === undefined ? {} : { pageDelayMs }),
          },
        },
        {
          runId,
          baseUrl: config.sourceUrls[source.name],
          full: opts.full,
          termsForbidden: settings.termsForbidden.includes(source.name) ? 'its terms forbid crawling (configured)' : null,
        },
      ),
    );
  }
  const counts: Record<string, number> = {};
  for (const s of summaries) {
    for (const k of ['pages', 'details', 'items', 'new', 'changed', 'delisted', 'invalid', 'errors'] as const) counts[`${s.source}.${k}`] = s[k];
    counts[`${s.source}.skipped`] = s.skipped ? 1 : 0;
  }
  await sink.run({
    id: newEventId(), observedAt: now(), runId, kind: 'crawl', phase: 'finish',
    budget: null, sampleSize: null, seed: null, counts, complete: summaries.every((s) => s.complete),
    note:
      summaries
        .filter((s) => !s.complete)
        .map((s) => `${s.source}: ${s.skipped ? `skipped (${s.skipped})` : (s.failure ?? 'incomplete')}`)
        .join('; ') || null,
  });
  return summaries;
}

/** One line per source, for people. An unreachable source says so; it is never "0 items". */
export function formatSummary(s: SourceSummary): string {
  if (s.skipped) return `${s.source}: skipped (${s.skipped})`;
  const details = s.details > 0 ? `, ${s.details} detail request(s)` : '';
  const head =
    `${s.source} (${s.mode}): ${s.pages} page(s)${details}, ${s.items} item(s): ${s.new} new, ${s.changed} changed, ` +
    `${s.delisted} delisted, ${s.invalid} invalid, ${s.errors} error(s)`;
  const notes = s.notes.length > 0 ? ` [${s.notes.join('; ')}]` : '';
  return s.complete ? `${head}, complete${notes}` : `${head}, INCOMPLETE: ${s.failure ?? 'stopped early'}${notes}`;
}

/** A one-line progress text for a terminal. */
export function formatProgress(s: Readonly<SourceSummary>): string {
  if (s.skipped) return `${s.source}: skipped`;
  const details = s.details > 0 ? ` + ${s.details} detail` : '';
  return `${s.source}: page ${s.pages}${details}, ${s.items} item(s), ${s.new} new, ${s.changed} changed, ${s.errors} error(s)`;
}
