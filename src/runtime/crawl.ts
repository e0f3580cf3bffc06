import { join } from 'node:path';
import type { Config, SourceSettings } from '../config.js';
import { newEventId } from '../events/ids.js';
import type { Logger } from '../log.js';
import type { ObservationSink } from '../producers/sink.js';
import { createPageFetcher, hostsOf } from '../producers/sources/http-page-fetcher.js';
import { createSources, runSource, SOURCE_NAMES, type SourceSummary } from '../producers/sources/index.js';
import { RobotsCache } from '../http/politeness/robots.js';
import type { SourceRunnerLimits } from '../producers/sources/runner.js';
import { DISABLED_BY_CONFIGURATION, emptySummary } from '../producers/sources/summary.js';
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

/**
 * One crawl run over the chosen sources: a run event at start and finish, then
 * each source in turn behind the crawl gate (terms, robots.txt). A source that
 * fails or is skipped is reported and the next one runs.
 */
export async function crawlOnce(config: Config, sink: ObservationSink, log: Logger, opts: CrawlOnceOptions = {}): Promise<SourceSummary[]> {
  const now = opts.now ?? Date.now;
  const runId = newEventId();
  const settings = config.sources ?? NO_SETTINGS;
  const names = opts.sources && opts.sources.length > 0 ? opts.sources : SOURCE_NAMES;
  const sources = createSources(names);
  const fetch = opts.fetch ?? createPageFetcher({ contact: config.contact, trustedHosts: hostsOf(Object.values(config.sourceUrls)) });
  const state = new FileSourceStateStore(join(config.dataDir, 'state', 'sources'));
  const robots = new RobotsCache({ now });
  const pick = (map: Record<string, number>, name: string) => map[name] ?? map['*'];

  await sink.run({
    id: newEventId(),
    observedAt: now(),
    runId,
    kind: 'crawl',
    phase: 'start',
    budget: null,
    sampleSize: null,
    seed: null,
    counts: {},
    complete: false,
    note: `sources: ${names.join(', ')}`,
  });
  const summaries: SourceSummary[] = [];
  for (const source of sources) {
    if (settings.disabled.includes(source.name)) {
      const s = { ...emptySummary(source.name, 'full'), skipped: DISABLED_BY_CONFIGURATION };
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
          fetch,
          sink,
          state,
          log,
          now,
          robots,
          sleep: opts.sleep,
          onProgress: opts.onProgress,
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
    for (const k of ['pages', 'details', 'items', 'new', 'changed', 'delisted', 'invalid', 'errors'] as const)
      counts[`${s.source}.${k}`] = s[k];
    counts[`${s.source}.skipped`] = s.skipped ? 1 : 0;
  }
  await sink.run({
    id: newEventId(),
    observedAt: now(),
    runId,
    kind: 'crawl',
    phase: 'finish',
    budget: null,
    sampleSize: null,
    seed: null,
    counts,
    complete: summaries.every((s) => s.complete),
    note:
      summaries
        .filter((s) => !s.complete)
        .map((s) => `${s.source}: ${s.skipped ? `skipped (${s.skipped})` : (s.failure ?? 'incomplete')}`)
        .join('; ') || null,
  });
  return summaries;
}
