import type { Kafka } from 'kafkajs';
import { CHECKER_VERSION } from '../conformance/index.js';
import { newEventId } from '../events/ids.js';
import type { Logger } from '../log.js';
import type { OptOutList } from '../identity/opt-out.js';
import { scheduleRun, type ScheduleSink } from '../processors/scheduler/scheduler.js';
import { census, runStats, type Census, type RunStats } from '../stats/run-stats.js';
import { pinCheckerVersion } from '../processors/verdicts/current-version.js';
import { DEDUPE_GROUP } from '../processors/dedupe.js';
import { DOCUMENTS_GROUP } from '../processors/documents.js';
import { LISTING_HISTORY_GROUP } from '../processors/listing-history.js';
import { RUN_LOG_GROUP } from '../processors/run-log.js';
import { CURRENT_CHECKER, type Checker } from '../processors/verdicts/checker.js';
import { verdictGroupId } from '../processors/verdicts/processor.js';
import { PROBE_WORKER_GROUP } from '../producers/probe-worker.js';
import type { TopicNames } from '../topics.js';
import type { RunRow } from '../warehouse/rows.js';
import type { ReadOnlyWarehouse, Warehouse } from '../warehouse/warehouse.js';
import { waitUntilConsumed } from '../kafka/lag.js';
import { fromDateTime64 } from '../warehouse/time.js';

/** The default deployment's consumer groups, in pipeline order. */
export function defaultPipelineGroups(checker: Checker = CURRENT_CHECKER, prefix = ''): PipelineGroups {
  return {
    listings: [prefix + DEDUPE_GROUP, prefix + LISTING_HISTORY_GROUP],
    probeWorkers: prefix + PROBE_WORKER_GROUP,
    documents: prefix + DOCUMENTS_GROUP,
    verdicts: prefix + verdictGroupId(checker.version),
    runLog: prefix + RUN_LOG_GROUP,
  };
}

/** The consumer groups a daily run waits for, in pipeline order. */
export interface PipelineGroups {
  /** Groups that read listings (agents and the listing history must be current before scheduling). */
  listings: readonly string[];
  /** The probe workers' group. */
  probeWorkers: string;
  /** The document store's group (the verdicts read the documents probes name). */
  documents: string;
  /** The verdict processor's group. */
  verdicts: string;
  /** The run log's group. */
  runLog: string;
}

export interface DailyRunOptions {
  kafka: Kafka;
  topics: TopicNames;
  warehouse: Warehouse;
  sink: ScheduleSink;
  groups: PipelineGroups;
  log: Logger;
  budget: number;
  sampleSize?: number;
  seed?: string;
  now?: () => number;
  /** Longest wait for each stage of the pipeline. */
  stageTimeoutMs?: number;
  checkerVersion?: string;
  /** Owners' opt-outs, applied by the scheduler on top of agents.opt_out. */
  optOut?: OptOutList;
  /**
   * A shutdown: the waits end at once and the run records its finish as ended early (before the
   * producer closes), rather than waiting for probes a stopping worker gave up.
   */
  signal?: AbortSignal;
}

export interface DailyRunReport {
  runId: string;
  /** Earlier runs that never recorded their finish (their process was killed): recorded now as incomplete. */
  abandoned: AbandonedRun[];
  seed: string;
  planned: number;
  counts: Record<string, number>;
  stats: RunStats;
  census: Census;
}

export interface AbandonedRun {
  runId: string;
  /** ISO 8601 UTC. */
  startedAt: string;
}

/** Longest wait for the run log to record the finish of a run that ended early. */
export const ENDED_EARLY_LOG_WAIT_MS = 5_000;

/** What an abandoned run's finish says. */
export const ABANDONED_NOTE = 'ended early: the process stopped before the run finished (found at the next start)';

/** Daily runs with a start and no finish, oldest first: in progress, or ended by a crash that could not record it. */
async function unfinishedDailyRuns(
  wh: ReadOnlyWarehouse,
): Promise<Array<Pick<RunRow, 'run_id' | 'observed_at' | 'budget' | 'sample_size' | 'seed' | 'counts'>>> {
  return wh.query(
    `SELECT run_id, observed_at, budget, sample_size, seed, counts FROM runs FINAL
     WHERE kind = 'daily' AND phase = 'start' AND run_id NOT IN (SELECT run_id FROM runs WHERE phase = 'finish')
     ORDER BY observed_at`,
  );
}

/**
 * Records a finish (complete false) for every daily run that started and never finished: its
 * process was killed before it could say so itself. Runs before a new run is scheduled; a
 * deployment has one scheduler, so a run without a finish at that moment is not still going.
 * Waits for the run log first, so that every start already written is seen.
 */
export async function closeAbandonedRuns(
  opts: Pick<DailyRunOptions, 'kafka' | 'topics' | 'warehouse' | 'sink' | 'groups' | 'log' | 'now' | 'stageTimeoutMs' | 'signal'>,
): Promise<AbandonedRun[]> {
  const now = opts.now ?? Date.now;
  await waitUntilConsumed(opts.kafka, opts.groups.runLog, [opts.topics.runs], opts.stageTimeoutMs ?? 30 * 60_000, opts.signal);
  const out: AbandonedRun[] = [];
  for (const r of await unfinishedDailyRuns(opts.warehouse)) {
    const startedAt = new Date(fromDateTime64(r.observed_at)).toISOString();
    await opts.sink.run({
      id: newEventId(),
      observedAt: now(),
      runId: r.run_id,
      kind: 'daily',
      phase: 'finish',
      budget: r.budget === null ? null : Number(r.budget),
      sampleSize: r.sample_size === null ? null : Number(r.sample_size),
      seed: r.seed || null,
      counts: Object.fromEntries(Object.entries(r.counts).map(([k, v]) => [k, Number(v)])),
      complete: false,
      note: ABANDONED_NOTE,
    });
    opts.log.warn({ runId: r.run_id, startedAt }, 'a previous daily run never finished (its process was stopped); recorded as incomplete');
    out.push({ runId: r.run_id, startedAt });
  }
  return out;
}

/**
 * One daily run on a running platform (Methods §4-5): wait until the listings are
 * merged, plan and emit the probe requests, wait until every probe is observed and
 * judged, then record the run's finish with what it did.
 */
export async function dailyRun(opts: DailyRunOptions): Promise<DailyRunReport> {
  const now = opts.now ?? Date.now;
  const timeout = opts.stageTimeoutMs ?? 30 * 60_000;
  const checker = opts.checkerVersion ?? CHECKER_VERSION;
  for (const g of opts.groups.listings) await waitUntilConsumed(opts.kafka, g, [opts.topics.listings], timeout, opts.signal);
  opts.signal?.throwIfAborted();
  const abandoned = await closeAbandonedRuns(opts);

  const scheduled = await scheduleRun({
    warehouse: opts.warehouse,
    sink: opts.sink,
    log: opts.log,
    budget: opts.budget,
    ...(opts.sampleSize !== undefined ? { sampleSize: opts.sampleSize } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.optOut ? { optOut: opts.optOut } : {}),
    now,
  });
  opts.log.info({ runId: scheduled.runId, planned: scheduled.requests.length }, 'waiting for probes and verdicts');
  // The run's finish is recorded whatever happens: a run that ended early says so (complete
  // false, with the reason) and is never left looking "in progress" forever.
  let failure: Error | null = null;
  try {
    await waitUntilConsumed(opts.kafka, opts.groups.probeWorkers, [opts.topics.probeRequests], timeout, opts.signal);
    await waitUntilConsumed(opts.kafka, opts.groups.documents, [opts.topics.documents], timeout, opts.signal);
    await waitUntilConsumed(opts.kafka, opts.groups.verdicts, [opts.topics.probes], timeout, opts.signal);
    await pinCheckerVersion(opts.warehouse, checker, `verdicts caught up after run ${scheduled.runId}`);
  } catch (err) {
    failure = opts.signal?.aborted
      ? new Error(`stopped (${String(opts.signal.reason)}) before every probe was judged`, { cause: err })
      : (err as Error);
  }
  const stats = await runStats(opts.warehouse, scheduled.runId, checker);
  const counts: Record<string, number> = {
    ...scheduled.plan.counts,
    planned: scheduled.requests.length,
    sample_checks: stats.sample.checks,
    sample_up: stats.sample.up.successes,
    sample_pass: stats.sample.pass.successes,
  };
  await opts.sink.run({
    id: newEventId(),
    observedAt: now(),
    runId: scheduled.runId,
    kind: 'daily',
    phase: 'finish',
    budget: opts.budget,
    sampleSize: scheduled.plan.counts.sample,
    seed: scheduled.seed,
    counts,
    complete: failure === null,
    note: failure ? `ended early: ${failure.message}`.slice(0, 1000) : null,
  });
  if (failure) {
    // A run that ended early also waits, briefly, for the run log to hold its finish before the
    // consumers stop: a stop stays prompt, and should the wait end first, the next start logs it.
    await waitUntilConsumed(opts.kafka, opts.groups.runLog, [opts.topics.runs], ENDED_EARLY_LOG_WAIT_MS).catch(() => undefined);
    throw failure;
  }
  await waitUntilConsumed(opts.kafka, opts.groups.runLog, [opts.topics.runs], timeout);
  return {
    runId: scheduled.runId,
    abandoned,
    seed: scheduled.seed,
    planned: scheduled.requests.length,
    counts,
    stats: await runStats(opts.warehouse, scheduled.runId, checker),
    census: await census(opts.warehouse, checker),
  };
}
