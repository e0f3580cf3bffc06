import { silentLogger } from '../../../src/log.js';
import { MemorySink } from '../../../src/producers/sink.js';
import { createPageFetcher } from '../../../src/producers/sources/http-page-fetcher.js';
import { runSource, type SourceRunnerLimits, type SourceSummary } from '../../../src/producers/sources/runner.js';
import { MemorySourceStateStore } from '../../../src/producers/sources/state.js';
import type { ListingSource, PageFetcher } from '../../../src/producers/sources/types.js';

/** A runner over MemorySink and MemorySourceStateStore with the real bounded fetcher, for source tests. */
export function sourceHarness<S extends MemorySink = MemorySink>(sink: S = new MemorySink() as S) {
  const state = new MemorySourceStateStore();
  /** Every URL the crawl requested, robots.txt included. */
  const urls: string[] = [];
  const real = createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: ['127.0.0.1'], maxRetries: 0 });
  const fetch: PageFetcher = async (url, opts) => {
    urls.push(url);
    return real(url, opts);
  };
  let runs = 0;
  const h = {
    sink,
    state,
    urls,
    clock: Date.UTC(2026, 10, 30, 6),
    run(
      source: ListingSource,
      baseUrl: string,
      opts: { full?: boolean; termsForbidden?: string; limits?: Partial<SourceRunnerLimits>; sleep?: (ms: number) => Promise<void> } = {},
    ): Promise<SourceSummary> {
      runs += 1;
      return runSource(
        source,
        {
          fetch,
          sink,
          state,
          log: silentLogger,
          now: () => h.clock,
          sleep: opts.sleep,
          limits: { pageTimeoutMs: 1000, pageDelayMs: 0, ...opts.limits },
        },
        { runId: `run-${runs}`, baseUrl, full: opts.full, termsForbidden: opts.termsForbidden },
      );
    },
    /** Forgets the events and URLs recorded so far (the state stays). */
    clear() {
      sink.fetches.length = 0;
      sink.listingEvents.length = 0;
      urls.length = 0;
    },
    listed: () => sink.listingEvents.filter((l) => l.status !== 'delisted' && l.status !== 'invalid'),
    delisted: () =>
      sink.listingEvents
        .filter((l) => l.status === 'delisted')
        .map((l) => l.itemId)
        .sort(),
  };
  return h;
}
