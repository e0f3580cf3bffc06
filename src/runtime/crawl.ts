import { join } from 'node:path';
import type { Config } from '../config.js';
import { newEventId } from '../events/ids.js';
import type { Logger } from '../log.js';
import type { ObservationSink } from '../producers/sink.js';
import { createSources, runSource, SOURCE_NAMES, type SourceSummary } from '../producers/sources/index.js';
import { createPageFetcher, hostsOf } from '../producers/sources/http-page-fetcher.js';
import { FileSourceStateStore } from '../producers/sources/state.js';

export interface CrawlOnceOptions {
  sources?: readonly string[];
  full?: boolean;
  now?: () => number;
}

/**
 * One crawl run over the chosen sources: a run event at start and finish, then
 * each source in turn. A source that fails is reported and the next one runs.
 */
export async function crawlOnce(config: Config, sink: ObservationSink, log: Logger, opts: CrawlOnceOptions = {}): Promise<SourceSummary[]> {
  const now = opts.now ?? Date.now;
  const runId = newEventId();
  const names = opts.sources && opts.sources.length > 0 ? opts.sources : SOURCE_NAMES;
  const sources = createSources(names);
  const fetch = createPageFetcher({ contact: config.contact, trustedHosts: hostsOf(Object.values(config.sourceUrls)) });
  const state = new FileSourceStateStore(join(config.dataDir, 'state', 'sources'));

  await sink.run({
    id: newEventId(), observedAt: now(), runId, kind: 'crawl', phase: 'start',
    budget: null, sampleSize: null, seed: null, counts: {}, complete: false, note: `sources: ${names.join(', ')}`,
  });
  const summaries: SourceSummary[] = [];
  for (const source of sources) {
    summaries.push(
      await runSource(source, { fetch, sink, state, log, now }, { runId, baseUrl: config.sourceUrls[source.name], full: opts.full }),
    );
  }
  const counts: Record<string, number> = {};
  for (const s of summaries) {
    counts[`${s.source}.pages`] = s.pages;
    counts[`${s.source}.items`] = s.items;
    counts[`${s.source}.invalid`] = s.invalid;
    counts[`${s.source}.errors`] = s.errors;
  }
  await sink.run({
    id: newEventId(), observedAt: now(), runId, kind: 'crawl', phase: 'finish',
    budget: null, sampleSize: null, seed: null, counts, complete: summaries.every((s) => s.complete),
    note: summaries.filter((s) => !s.complete).map((s) => `${s.source}: ${s.failure ?? 'incomplete'}`).join('; ') || null,
  });
  return summaries;
}

/** One line per source, for people. An unreachable source says so; it is never "0 items". */
export function formatSummary(s: SourceSummary): string {
  const head = `${s.source} (${s.mode}): ${s.pages} page(s), ${s.items} item(s), ${s.invalid} invalid, ${s.errors} error(s)`;
  return s.complete ? `${head}, complete` : `${head}, INCOMPLETE: ${s.failure ?? 'stopped early'}`;
}
