import { optOutProvider } from '../identity/opt-out.js';
import type { SourceSummary } from '../producers/sources/index.js';
import { sleepUnlessAborted, whenAborted, withTimeout } from '../util/time.js';
import { crawlOnce, type CrawlOnceOptions } from './crawl.js';
import { dailyRun, type DailyRunOptions, type DailyRunReport } from './daily.js';
import type { Platform } from './platform.js';

/**
 * What the commands run on a started platform: a role that serves until stopped, the crawl
 * and the scheduler once or every interval, and `run`'s whole daily cycle. Commands print;
 * these only compose.
 */

/** Resolves when the signal aborts; rejects with the reason when a processor or the probe worker fails first. */
export async function untilStopped(platform: Platform, signal: AbortSignal): Promise<void> {
  await Promise.race([
    whenAborted(signal),
    platform.failed.then((err) => {
      throw err;
    }),
  ]);
}

/**
 * Calls `cycle` once, or again every `every` ms until the signal aborts (the wait ends at
 * once then, and a cycle in progress finishes first). Resolves true when it was stopped.
 */
export async function repeatEvery(every: number | null, signal: AbortSignal | null, cycle: (n: number) => Promise<void>): Promise<boolean> {
  for (let n = 0; ; n++) {
    if (signal?.aborted) return true;
    await cycle(n);
    if (every === null || !signal) return false;
    if (!(await sleepUnlessAborted(every, signal))) return true;
  }
}

/** A source skipped by configuration (disabled, terms) is not a failure; one skipped by robots.txt or failing is. */
export function crawlFailed(summaries: readonly SourceSummary[]): boolean {
  const byChoice = (s: SourceSummary) => s.skipped === 'disabled by configuration' || Boolean(s.skipped?.startsWith('terms:'));
  return summaries.some((s) => !s.complete && !byChoice(s));
}

/** One crawl of the configured sources into the platform's topics. */
export function crawl(platform: Platform, opts: CrawlOnceOptions = {}): Promise<SourceSummary[]> {
  return crawlOnce(platform.config, platform.sink, platform.log, opts);
}

/**
 * The daily run's options on a running platform. The opt-out file is re-read at every run,
 * with the platform's logger, so an unreadable file is reported, not silently skipped.
 */
export function dailyRunOn(platform: Platform, extra: Partial<DailyRunOptions> = {}): () => Promise<DailyRunReport> {
  const optOuts = optOutProvider(platform.config.optOutFile, platform.log);
  return () =>
    dailyRun({
      kafka: platform.kafka.kafka,
      topics: platform.kafka.topics,
      warehouse: platform.warehouse,
      sink: platform.sink,
      groups: platform.groups,
      log: platform.log,
      budget: platform.config.budget,
      sampleSize: platform.config.sampleSize,
      optOut: optOuts.current(),
      ...extra,
    });
}

/** How long a cycle in progress may take to end after a shutdown signal; its run records itself as ended early. */
export const CYCLE_GRACE_MS = 10_000;

export interface DailyCycleHooks {
  sources?: readonly string[];
  /** Full resync on the first cycle. */
  full?: boolean;
  onCrawl(summaries: readonly SourceSummary[]): void;
  onReport(report: DailyRunReport): void;
  /** A cycle that failed; the next one still runs. */
  onError(err: unknown): void;
}

/**
 * `run`'s loop: crawl every source, then one daily run (schedule, probe, judge, roll up), once
 * or every `every` ms. Resolves when it was told to stop (a cycle in progress gets a grace
 * period) or after the only cycle; rejects when a processor or the probe worker failed.
 */
export async function runDailyCycles(
  platform: Platform,
  every: number | null,
  signal: AbortSignal | null,
  hooks: DailyCycleHooks,
): Promise<void> {
  // A stop ends the run's waits at once, so its finish is recorded while the producer is still open.
  const daily = dailyRunOn(platform, signal ? { signal } : {});
  let inFlight: Promise<void> = Promise.resolve();
  const loop = repeatEvery(every, signal, (n) => {
    inFlight = (async () => {
      hooks.onCrawl(await crawl(platform, { sources: hooks.sources ?? [], full: n === 0 && Boolean(hooks.full) }));
      hooks.onReport(await daily());
    })().catch(hooks.onError);
    return inFlight;
  });
  const failure = platform.failed.then((err) => {
    throw err;
  });
  const stopped = signal
    ? whenAborted(signal).then(() => withTimeout(inFlight, CYCLE_GRACE_MS).catch(() => undefined))
    : new Promise<never>(() => undefined);
  await Promise.race([loop, failure, stopped]);
}
