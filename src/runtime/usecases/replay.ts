import type { Admin, Kafka } from 'kafkajs';
import { committedWithin as readCommitted, spanTotal as totalOf, topicSpans, type PartitionSpan } from '../../kafka/lag.js';
import { retry } from '../../util/retry.js';
import { pollUntil, PollTimeoutError } from '../../util/poll.js';
import { agentId } from '../../identity/agent-key.js';
import type { ConsumerRunner } from '../../kafka/consumer-runner.js';
import type { Logger } from '../../log.js';
import { createListingHistory, LISTING_HISTORY_GROUP } from '../../processors/listing-history.js';
import { createDocumentStore, DOCUMENTS_GROUP } from '../../processors/documents.js';
import type { Config } from '../../config.js';
import { CURRENT_CHECKER, type Checker } from '../../processors/verdicts/checker.js';
import type { Signer } from '../../processors/verdicts/judge-probe.js';
import { createVerdictProcessor, verdictGroupId, VerdictWriter } from '../../processors/verdicts/processor.js';
import type { TopicNames } from '../../topics.js';
import { pinCheckerVersion } from '../../processors/verdicts/current-version.js';
import {
  factCoverage,
  factSpans,
  FactsIncompleteError,
  replayFromFacts,
  type FactReplaySummary,
} from '../../processors/verdicts/replay-facts.js';
import { signingKeyObject } from '../../processors/verdicts/batch-sign.js';
import { changePublisher } from '../../processors/changes/publish.js';
import { rawHistorySince } from '../../processors/changes/processor.js';
import { EventProducer } from '../../kafka/producer.js';
import { agentNames } from '../../warehouse/read/agents.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { defaultSigner, startPlatform } from '../platform.js';
import {
  checkedDays,
  countVerdicts,
  previousCheckerVersion,
  versionChangedAgents,
  versionPairTotals,
  versionTransitions,
} from './replay-versions.js';

/**
 * Replay (DESIGN "Processes"; docs/ARCHITECTURE.md): the probe history judged again by
 * this build's checker. The verdict processor's consumer group carries the checker
 * version, so a version that has never run starts at the earliest offset of the probes
 * topic and writes its verdict rows beside the older versions' rows. The listing history
 * (each verdict's join context: what the listings said at the probe's time) and the
 * document store (the cards and metadata probe events name by hash) are brought up to
 * date first, so old probes are judged against the listings of their day and the very
 * documents they read.
 *
 * A version that has never run starts, where they cover the topic, from the facts the verdict
 * writer keeps (docs/REPLAY.md, replay-facts.ts): each distinct input judged once, the rows written
 * by the engine, the changes derived from them; its group is then set to where the facts end and
 * the topic is read from there.
 *
 * Progress is measured where Kafka keeps it: the group's committed offsets against the
 * high watermarks the probes topic had when the replay started (messages produced later
 * are the live processor's business). The replay is done when every partition's commit
 * reached its start-time high watermark.
 */

export interface ReplayProgress {
  checkerVersion: string;
  groupId: string;
  /** Messages of the probes topic (up to the start-time high watermarks) the group has committed. */
  processed: number;
  /** Messages on the probes topic when the replay started (sum over partitions of high − low watermark). */
  total: number;
  /** `processed` when this replay started (a group that had already committed part of the topic resumes). */
  processedAtStart: number;
  /** Messages per second over the last few seconds; null until it can be measured. */
  rate: number | null;
  /** Estimated time left; null while the rate is unknown or zero. */
  etaMs: number | null;
  elapsedMs: number;
  done: boolean;
}

export interface VersionComparison {
  /** The version compared against (the previous one). */
  previousVersion: string;
  checkerVersion: string;
  /** Probe events both versions judged (joined by event id). */
  comparedEvents: number;
  changedEvents: number;
  changedAgents: number;
  /** Result changes old → new, with how many events made each. */
  transitions: Array<{ from: string; to: string; events: number }>;
  /** The agents whose result changed (at most `agentLimit`), with the change of their newest differing event. */
  agents: Array<{ agentKey: string; agentId: string; name: string; from: string; to: string; events: number }>;
}

export interface ReplaySummary {
  checkerVersion: string;
  groupId: string;
  /** Messages on the probes topic when the replay started. */
  total: number;
  /** Messages the group had committed before this replay (0 for a version that never ran). */
  alreadyProcessed: number;
  /** Probe events this process judged (written as checks and verdicts). */
  judged: number;
  /** What the replay took from the kept facts (replay-facts.ts), when they covered the topic; the rest was read from it. */
  fromFacts: FactReplaySummary | null;
  /** Messages this process sent to the dead-letters topic (undecodable). */
  deadLettered: number;
  /** Verdict rows of this checker version now in the warehouse (rows past the 90-day TTL excepted). */
  verdictRows: number;
  durationMs: number;
  listingHistory: { groupId: string; behindAtStart: number; ran: boolean };
  documents: { groupId: string; behindAtStart: number; ran: boolean };
  /** Versus the previous checker version, when one has verdict rows. */
  comparison: VersionComparison | null;
}

export interface ReplayOptions {
  kafka: Kafka;
  topics: TopicNames;
  warehouse: Warehouse;
  sign: Signer;
  checker: Checker;
  logger: Logger;
  onProgress?: (p: ReplayProgress) => void;
  /** Give up after this long (default 6 h): the promise rejects with a ReplayError; the commits made so far stay. */
  timeoutMs?: number;
  /** How often offsets are measured and onProgress is called (default 1000 ms). */
  pollMs?: number;
  /** Consumer groups (defaults: the verdict group of the checker's version, the listing history's and the document store's groups). */
  groups?: { verdicts?: string; listingHistory?: string; documents?: string };
  /** The version to compare with; default: the one v_checker_current__v2 shows if it is another, else the most recently judged other version. */
  compareWith?: string;
  /** How many changed agents the comparison names (default 50). */
  agentLimit?: number;
  signal?: AbortSignal;
}

export class ReplayError extends Error {
  override name = 'ReplayError';
  constructor(
    message: string,
    readonly progress: ReplayProgress | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A group's committed messages within `spans`. A group the broker has not seen yet (a new
 * version, a rebuilt document store) can briefly answer "not the coordinator" or "coordinator
 * loading": those retriable answers are asked again, not taken as the replay's failure.
 */
function committedWithin(admin: Admin, groupId: string, topic: string, spans: readonly PartitionSpan[]): Promise<bigint> {
  return retry(() => readCommitted(admin, groupId, topic, spans), {
    retries: 8,
    baseMs: 100,
    maxMs: 2000,
    shouldRetry: (o) => !o.ok && (o.error as { retriable?: unknown }).retriable === true,
  });
}

/** Messages per second over a sliding window of (time, processed) samples. */
class RateMeter {
  private readonly samples: Array<{ t: number; n: number }> = [];
  constructor(private readonly windowMs: number) {}
  add(t: number, n: number): number | null {
    this.samples.push({ t, n });
    while (this.samples.length > 2 && t - this.samples[0]!.t > this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    if (t - first.t < 500) return null;
    return ((n - first.n) * 1000) / (t - first.t);
  }
}

/**
 * Waits until `groupId` has committed every message `spans` cover, calling `tick` with the
 * processed count after each measurement. Rejects when `failed` rejects, on the deadline or on abort.
 */
async function followGroup(
  admin: Admin,
  groupId: string,
  topic: string,
  spans: readonly PartitionSpan[],
  opts: {
    pollMs: number;
    deadline: number;
    signal?: AbortSignal;
    failed?: Promise<never>;
    tick?: (processed: number) => void;
    what: string;
  },
): Promise<void> {
  const total = totalOf(spans);
  let failure: unknown = null;
  opts.failed?.catch((err: unknown) => {
    failure = err;
  });
  try {
    await pollUntil(
      opts.what,
      async () => {
        const processed = await committedWithin(admin, groupId, topic, spans);
        opts.tick?.(Number(processed));
        if (processed >= total) return { done: true, value: undefined };
        if (failure)
          throw new ReplayError(`${opts.what} stopped: ${(failure as Error).message ?? String(failure)}`, null, { cause: failure });
        return { done: false, why: `${processed} of ${total} messages` };
      },
      { timeoutMs: opts.deadline - Date.now(), intervalMs: opts.pollMs, ...(opts.signal ? { signal: opts.signal } : {}) },
    );
  } catch (err) {
    if (err instanceof PollTimeoutError) throw new ReplayError(`${opts.what} was not caught up before the timeout (${err.last})`, null);
    if ((err as Error).name === 'AbortError' && opts.signal?.aborted) throw new ReplayError(`${opts.what} was interrupted`, null);
    throw err;
  }
}

/**
 * Per partition of the probes topic, the offset the kept facts cover it to (factCoverage), from the
 * first offset whose probes can still have rows (observed within the raw tables' TTL: by the
 * messages' timestamps, which the probe worker sets as it observes); null when they do not cover it.
 */
async function factsCover(
  admin: Admin,
  warehouse: Warehouse,
  topic: string,
  spans: readonly PartitionSpan[],
): Promise<Map<number, bigint> | null> {
  const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, rawHistorySince(Date.now()));
  const from = new Map(byTime.map((o) => [o.partition, BigInt(o.offset)]));
  return factCoverage(
    await factSpans(warehouse, topic),
    spans.map((s) => {
      const at = from.get(s.partition) ?? s.low;
      return { partition: s.partition, from: at < s.low || at < 0n ? s.low : at, high: s.high };
    }),
  );
}

/**
 * Replays the probes topic through the verdict processor of `checker` (see the module
 * comment). Resolves with the summary once the group has caught up with the topic as it
 * was at the start; the verdict processor is stopped (its last batch committed) before.
 */
export async function replayProbes(opts: ReplayOptions): Promise<ReplaySummary> {
  const { kafka, topics, warehouse, checker, logger } = opts;
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 6 * 3_600_000);
  const pollMs = opts.pollMs ?? 1000;
  const groupId = opts.groups?.verdicts ?? verdictGroupId(checker.version);
  const historyGroup = opts.groups?.listingHistory ?? LISTING_HISTORY_GROUP;
  const documentsGroup = opts.groups?.documents ?? DOCUMENTS_GROUP;
  const log = logger.child({ component: 'replay', checkerVersion: checker.version, groupId });

  const admin = kafka.admin();
  await admin.connect();
  const running: ConsumerRunner<unknown>[] = [];
  let last: ReplayProgress | null = null;
  try {
    // 1. The join context: the listing history must hold every listing a probe could be judged
    // against, and the document store every document a probe names.
    const catchUp = async (what: string, groupId: string, topic: string, create: () => ConsumerRunner<unknown>) => {
      const spans = await topicSpans(admin, topic);
      const behind = Number(totalOf(spans) - (await committedWithin(admin, groupId, topic, spans)));
      if (behind <= 0) return { groupId, behindAtStart: 0, ran: false };
      log.info({ group: groupId, behind }, `the ${what} is behind its topic: catching it up first`);
      const runner = create();
      running.push(runner);
      await runner.start();
      await followGroup(admin, groupId, topic, spans, {
        pollMs: Math.min(pollMs, 500),
        deadline,
        ...(opts.signal ? { signal: opts.signal } : {}),
        failed: runner.done.then(() => Promise.reject(new Error(`the ${what} processor stopped`))),
        what: `the ${what}`,
      });
      await runner.stop();
      running.splice(running.indexOf(runner), 1);
      log.info({ group: groupId }, `the ${what} is caught up`);
      return { groupId, behindAtStart: behind, ran: true };
    };
    const history = await catchUp(
      'listing history',
      historyGroup,
      topics.listings,
      () => createListingHistory({ kafka, warehouse, topics, logger, groupId: historyGroup }) as ConsumerRunner<unknown>,
    );
    const documents = await catchUp(
      'document store',
      documentsGroup,
      topics.documents,
      () => createDocumentStore({ kafka, warehouse, topics, logger, groupId: documentsGroup }) as ConsumerRunner<unknown>,
    );

    // 2. The probes, through this checker's own group, up to the high watermarks of now.
    const spans = await topicSpans(admin, topics.probes);
    const total = Number(totalOf(spans));
    const processedAtStart = Number(await committedWithin(admin, groupId, topics.probes, spans));
    const meter = new RateMeter(15_000);
    const report = (processed: number) => {
      const now = Date.now();
      const rate = meter.add(now, processed);
      const remaining = total - processed;
      last = {
        checkerVersion: checker.version,
        groupId,
        processed,
        total,
        processedAtStart,
        rate,
        etaMs: remaining <= 0 ? 0 : rate && rate > 0 ? Math.round((remaining / rate) * 1000) : null,
        elapsedMs: now - started,
        done: remaining <= 0,
      };
      opts.onProgress?.(last);
    };
    report(processedAtStart);

    let judged = 0;
    let deadLettered = 0;
    // A version that has never run: from the kept facts where they cover the topic (replay-facts.ts), then the topic from where they end.
    const facts = processedAtStart === 0 && total > 0 ? await factsCover(admin, warehouse, topics.probes, spans) : null;
    let fromFacts: FactReplaySummary | null = null;
    if (facts !== null) {
      log.info('replaying from the kept facts: each distinct input judged once, the rows written by the engine');
      const producer = new EventProducer(kafka, { logger });
      try {
        fromFacts = await replayFromFacts(warehouse, checker, signingKeyObject(opts.sign), changePublisher(producer, topics));
      } catch (err) {
        if (!(err instanceof FactsIncompleteError)) throw err;
        log.warn({ err }, 'the kept facts name inputs no longer stored: reading the topic whole');
      } finally {
        await producer.close().catch((err: unknown) => log.warn({ err }, 'error while closing the agent-changes producer'));
      }
      if (fromFacts !== null) {
        await admin.setOffsets({
          groupId,
          topic: topics.probes,
          partitions: [...facts].map(([partition, offset]) => ({ partition, offset: String(offset) })),
        });
        judged = fromFacts.events;
        log.info({ ...fromFacts }, 'replayed from the kept facts');
      }
    } else if (processedAtStart === 0 && total > 0) log.info('the kept facts do not cover the probes topic: reading it whole');
    const processedBefore = facts === null ? processedAtStart : Number(await committedWithin(admin, groupId, topics.probes, spans));
    if (facts !== null) report(processedBefore);
    // The read models are derived once, when the replay has caught up, not after every batch.
    const writer = new VerdictWriter(warehouse, checker, opts.sign, undefined, 'deferred');
    if (processedBefore < total) {
      log.info({ total, processedAtStart }, 'replaying the probes topic');
      const runner = createVerdictProcessor({ kafka, warehouse, topics, logger, sign: opts.sign, checker, groupId, writer });
      running.push(runner as ConsumerRunner<unknown>);
      await runner.start();
      try {
        await followGroup(admin, groupId, topics.probes, spans, {
          pollMs,
          deadline,
          ...(opts.signal ? { signal: opts.signal } : {}),
          failed: runner.done.then(() => Promise.reject(new Error('the verdict processor stopped'))),
          tick: report,
          what: `the replay under ${checker.version}`,
        });
      } catch (err) {
        if (err instanceof ReplayError) throw new ReplayError(err.message, last, { cause: err.cause });
        throw err;
      }
      await runner.stop();
      running.splice(running.indexOf(runner as ConsumerRunner<unknown>), 1);
      judged += runner.stats.ok;
      deadLettered = runner.stats.dlq;
      log.info({ memo: { hits: writer.memo.hits, misses: writer.memo.misses } }, 'judged; deriving the read models of the days replayed');
    }
    // After the facts, the days the topic's tail wrote (the facts' days are derived); else every day this version has rows
    // on: an earlier, interrupted run of this replay wrote some without their read models.
    const derived =
      fromFacts !== null
        ? await writer.deriveReadModels([], { latest: true })
        : await writer.deriveReadModels(await checkedDays(warehouse, checker.version));
    log.info({ days: derived.days }, 'read models derived');

    const verdictRows = await countVerdicts(warehouse, checker.version);
    const previous = opts.compareWith ?? (await previousCheckerVersion(warehouse, checker.version));
    const comparison = previous ? await compareVersions(warehouse, previous, checker.version, opts.agentLimit ?? 50) : null;
    // Caught up: from now on the current-version views show this version's verdicts.
    await pinCheckerVersion(warehouse, checker.version, 'replay caught up');
    const summary: ReplaySummary = {
      checkerVersion: checker.version,
      groupId,
      total,
      alreadyProcessed: processedAtStart,
      judged,
      fromFacts,
      deadLettered,
      verdictRows,
      durationMs: Date.now() - started,
      listingHistory: history,
      documents,
      comparison,
    };
    log.info({ ...summary, comparison: comparison && { ...comparison, agents: comparison.agents.length } }, 'replay caught up');
    return summary;
  } finally {
    // Side by side: each waits for its fetch in flight, and one after the other those waits add up.
    await Promise.all(running.map((r) => r.stop().catch((err: unknown) => log.warn({ err }, 'error while stopping a processor'))));
    await admin.disconnect().catch(() => undefined);
  }
}

export { previousCheckerVersion };

/** What a replay by this build writes: its checker version, and the consumer groups it moves. */
export function replayGroups(checker: Checker = CURRENT_CHECKER): { checkerVersion: string; verdicts: string; listingHistory: string } {
  return { checkerVersion: checker.version, verdicts: verdictGroupId(checker.version), listingHistory: LISTING_HISTORY_GROUP };
}

export interface RunReplayOptions extends Pick<ReplayOptions, 'onProgress' | 'timeoutMs' | 'compareWith' | 'signal'> {
  log: Logger;
  /** Called once Kafka and the warehouse are open, before the replay starts, with the probes topic it reads. */
  onStart?: (info: { probesTopic: string }) => void;
}

/**
 * `replay` as a role: opens Kafka and the warehouse (no API, processors or probe worker),
 * replays the probes topic under this build's checker with the configured signing key, and
 * closes what it opened.
 */
export async function runReplay(config: Config, opts: RunReplayOptions): Promise<ReplaySummary> {
  const { log, onStart, ...replay } = opts;
  const platform = await startPlatform(config, { log, clientId: 'veronikai-replay', api: false, processors: false, probes: false });
  try {
    const { kafka, topics } = platform.kafka;
    onStart?.({ probesTopic: topics.probes });
    return await replayProbes({
      ...replay,
      kafka,
      topics,
      warehouse: platform.warehouse,
      sign: defaultSigner(config),
      checker: CURRENT_CHECKER,
      logger: log,
    });
  } finally {
    await platform.close();
  }
}

/** The two versions' results on the same probe events (joined by event id): what changed, and for which agents. */
export async function compareVersions(
  warehouse: Warehouse,
  previous: string,
  current: string,
  agentLimit = 50,
): Promise<VersionComparison> {
  const totals = await versionPairTotals(warehouse, previous, current);
  const transitions = await versionTransitions(warehouse, previous, current);
  const changed = await versionChangedAgents(warehouse, previous, current, agentLimit);
  const names = await agentNames(
    warehouse,
    changed.map((c) => c.agent_key),
  );
  return {
    previousVersion: previous,
    checkerVersion: current,
    comparedEvents: Number(totals.compared),
    changedEvents: Number(totals.changed),
    changedAgents: Number(totals.agents),
    transitions: transitions.map((t) => ({ from: t.old_result, to: t.new_result, events: Number(t.events) })),
    agents: changed.map((c) => ({
      agentKey: c.agent_key,
      agentId: agentId(c.agent_key),
      name: names.get(c.agent_key) ?? '',
      from: c.old_result,
      to: c.new_result,
      events: Number(c.events),
    })),
  };
}
