import type { Admin, Kafka } from 'kafkajs';
import { agentId } from '../identity/agent-key.js';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import type { Logger } from '../log.js';
import { createListingHistory, LISTING_HISTORY_GROUP } from '../processors/listing-history.js';
import type { Checker } from '../processors/verdicts/checker.js';
import type { Signer } from '../processors/verdicts/judge-probe.js';
import { createVerdictProcessor, verdictGroupId } from '../processors/verdicts/processor.js';
import type { TopicNames } from '../topics.js';
import { pinCheckerVersion } from '../processors/verdicts/current-version.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/**
 * Replay (DESIGN "Processes"; docs/ARCHITECTURE.md): the probe history judged again by
 * this build's checker. The verdict processor's consumer group carries the checker
 * version, so a version that has never run starts at the earliest offset of the probes
 * topic and writes its verdict rows beside the older versions' rows. The listing history
 * (each verdict's join context: what the listings said at the probe's time) is brought
 * up to date first, so old probes are judged against the listings of their day.
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
  /** Messages this process sent to the dead-letters topic (undecodable). */
  deadLettered: number;
  /** Verdict rows of this checker version now in the warehouse (rows past the 90-day TTL excepted). */
  verdictRows: number;
  durationMs: number;
  listingHistory: { groupId: string; behindAtStart: number; ran: boolean };
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
  /** Consumer groups (defaults: the verdict group of the checker's version, and the listing history's group). */
  groups?: { verdicts?: string; listingHistory?: string };
  /** The version to compare with; default: the one v_checker_current__v1 shows if it is another, else the most recently judged other version. */
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

interface PartitionSpan {
  partition: number;
  low: bigint;
  high: bigint;
}

/** The offset span of every partition of a topic, now. */
async function topicSpans(admin: Admin, topic: string): Promise<PartitionSpan[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets
    .map((p) => ({ partition: p.partition, low: BigInt(p.low), high: BigInt(p.high) }))
    .sort((a, b) => a.partition - b.partition);
}

/** Messages of `spans` the group has committed: a partition without a commit counts from its low watermark. */
async function committedWithin(admin: Admin, groupId: string, topic: string, spans: readonly PartitionSpan[]): Promise<bigint> {
  const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const at = new Map((t?.partitions ?? []).map((p) => [p.partition, p.offset]));
  let sum = 0n;
  for (const s of spans) {
    const raw = at.get(s.partition);
    const off = raw === undefined || raw === '-1' ? s.low : BigInt(raw);
    const clamped = off < s.low ? s.low : off > s.high ? s.high : off;
    sum += clamped - s.low;
  }
  return sum;
}

const totalOf = (spans: readonly PartitionSpan[]) => spans.reduce((n, s) => n + (s.high - s.low), 0n);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

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
  opts: { pollMs: number; deadline: number; signal?: AbortSignal; failed?: Promise<never>; tick?: (processed: number) => void; what: string },
): Promise<void> {
  const total = totalOf(spans);
  let failure: unknown = null;
  opts.failed?.catch((err: unknown) => {
    failure = err;
  });
  for (;;) {
    const processed = await committedWithin(admin, groupId, topic, spans);
    opts.tick?.(Number(processed));
    if (processed >= total) return;
    if (failure) throw new ReplayError(`${opts.what} stopped: ${(failure as Error).message ?? String(failure)}`, null, { cause: failure });
    if (opts.signal?.aborted) throw new ReplayError(`${opts.what} was interrupted`, null);
    if (Date.now() > opts.deadline) throw new ReplayError(`${opts.what} was not caught up before the timeout (${processed} of ${total} messages)`, null);
    await sleep(opts.pollMs, opts.signal);
  }
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
  const log = logger.child({ component: 'replay', checkerVersion: checker.version, groupId });

  const admin = kafka.admin();
  await admin.connect();
  const running: ConsumerRunner<unknown>[] = [];
  let last: ReplayProgress | null = null;
  try {
    // 1. The join context: the listing history must hold every listing a probe could be judged against.
    const listingSpans = await topicSpans(admin, topics.listings);
    const historyBehind = Number(totalOf(listingSpans) - (await committedWithin(admin, historyGroup, topics.listings, listingSpans)));
    let historyRan = false;
    if (historyBehind > 0) {
      log.info({ group: historyGroup, behind: historyBehind }, 'the listing history is behind the listings topic: catching it up first');
      const history = createListingHistory({ kafka, warehouse, topics, logger, groupId: historyGroup });
      running.push(history as ConsumerRunner<unknown>);
      await history.start();
      historyRan = true;
      await followGroup(admin, historyGroup, topics.listings, listingSpans, {
        pollMs: Math.min(pollMs, 500),
        deadline,
        ...(opts.signal ? { signal: opts.signal } : {}),
        failed: history.done.then(() => Promise.reject(new Error('the listing-history processor stopped'))),
        what: 'the listing history',
      });
      await history.stop();
      running.splice(running.indexOf(history as ConsumerRunner<unknown>), 1);
      log.info({ group: historyGroup }, 'the listing history is caught up');
    }

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
    if (processedAtStart < total) {
      log.info({ total, processedAtStart }, 'replaying the probes topic');
      const runner = createVerdictProcessor({ kafka, warehouse, topics, logger, sign: opts.sign, checker, groupId });
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
      judged = runner.stats.ok;
      deadLettered = runner.stats.dlq;
    }

    const [rows] = await warehouse.query<{ n: number }>(
      'SELECT toUInt32(count()) AS n FROM verdicts FINAL WHERE checker_version = {cv:String}',
      { cv: checker.version },
    );
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
      deadLettered,
      verdictRows: Number(rows?.n ?? 0),
      durationMs: Date.now() - started,
      listingHistory: { groupId: historyGroup, behindAtStart: historyBehind, ran: historyRan },
      comparison,
    };
    log.info({ ...summary, comparison: comparison && { ...comparison, agents: comparison.agents.length } }, 'replay caught up');
    return summary;
  } finally {
    for (const r of running.reverse()) await r.stop().catch((err: unknown) => log.warn({ err }, 'error while stopping a processor'));
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * The version a replay is compared with: the one the `*_current` views show when it is
 * another version, else the most recently judged version other than `current`; null when none.
 */
export async function previousCheckerVersion(warehouse: Warehouse, current: string): Promise<string | null> {
  const [shown] = await warehouse.query<{ checker_version: string }>('SELECT checker_version FROM v_checker_current__v1');
  if (shown && shown.checker_version !== '' && shown.checker_version !== current) {
    const [has] = await warehouse.query<{ n: number }>(
      'SELECT toUInt32(count()) AS n FROM verdicts WHERE checker_version = {v:String}',
      { v: shown.checker_version },
    );
    if (Number(has?.n ?? 0) > 0) return shown.checker_version;
  }
  const [other] = await warehouse.query<{ checker_version: string }>(
    `SELECT checker_version FROM verdicts WHERE checker_version != {cv:String}
     GROUP BY checker_version ORDER BY max(judged_at) DESC LIMIT 1`,
    { cv: current },
  );
  return other?.checker_version ?? null;
}

/** The two versions' results on the same probe events (joined by event id): what changed, and for which agents. */
export async function compareVersions(warehouse: Warehouse, previous: string, current: string, agentLimit = 50): Promise<VersionComparison> {
  const pair = `(SELECT event_id, result FROM verdicts FINAL WHERE checker_version = {old:String}) AS o
     INNER JOIN (SELECT event_id, agent_key, observed_at, result FROM verdicts FINAL WHERE checker_version = {new:String}) AS n
     ON n.event_id = o.event_id`;
  const params = { old: previous, new: current };
  const [totals] = await warehouse.query<{ compared: number; changed: number; agents: number }>(
    `SELECT toUInt32(count()) AS compared, toUInt32(countIf(o.result != n.result)) AS changed,
            toUInt32(uniqExactIf(n.agent_key, o.result != n.result)) AS agents
     FROM ${pair}`,
    params,
  );
  const transitions = await warehouse.query<{ old_result: string; new_result: string; events: number }>(
    `SELECT o.result AS old_result, n.result AS new_result, toUInt32(count()) AS events
     FROM ${pair} WHERE o.result != n.result
     GROUP BY old_result, new_result ORDER BY events DESC, old_result, new_result`,
    params,
  );
  const changed = await warehouse.query<{ agent_key: string; old_result: string; new_result: string; events: number }>(
    `SELECT n.agent_key AS agent_key, argMax(o.result, n.observed_at) AS old_result,
            argMax(n.result, n.observed_at) AS new_result, toUInt32(count()) AS events
     FROM ${pair} WHERE o.result != n.result
     GROUP BY agent_key ORDER BY agent_key LIMIT {limit:UInt32}`,
    { ...params, limit: agentLimit },
  );
  const names = new Map<string, string>();
  if (changed.length > 0) {
    const rows = await warehouse.query<{ agent_key: string; name: string }>(
      'SELECT agent_key, name FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
      { keys: changed.map((c) => c.agent_key) },
    );
    for (const r of rows) names.set(r.agent_key, r.name);
  }
  return {
    previousVersion: previous,
    checkerVersion: current,
    comparedEvents: Number(totals?.compared ?? 0),
    changedEvents: Number(totals?.changed ?? 0),
    changedAgents: Number(totals?.agents ?? 0),
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

const num = (n: number) => n.toLocaleString('en-US');

/** "1h 02m", "3m 07s", "12s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** One line of progress: "1,234 / 5,678 messages (21.7%) · 312 msg/s · ETA 14s". */
export function formatProgress(p: ReplayProgress): string {
  const pct = p.total > 0 ? ((p.processed / p.total) * 100).toFixed(1) : '100.0';
  const rate = p.rate === null ? '… msg/s' : `${p.rate >= 10 ? Math.round(p.rate) : p.rate.toFixed(1)} msg/s`;
  const eta = p.done ? 'done' : p.etaMs === null ? 'ETA …' : `ETA ${formatDuration(p.etaMs)}`;
  return `replay ${p.checkerVersion}: ${num(p.processed)} / ${num(p.total)} messages (${pct}%) · ${rate} · ${eta} · ${formatDuration(p.elapsedMs)} elapsed`;
}

/** What a replay did, in plain words for the terminal. */
export function formatReplaySummary(s: ReplaySummary): string[] {
  const lines = [
    s.alreadyProcessed >= s.total && s.judged === 0
      ? `checker ${s.checkerVersion} had already judged all ${num(s.total)} probe message(s): nothing to replay (group ${s.groupId})`
      : `replayed ${num(s.total - s.alreadyProcessed)} probe message(s) under checker ${s.checkerVersion} in ${formatDuration(s.durationMs)}: ` +
        `${num(s.judged)} event(s) judged${s.deadLettered > 0 ? `, ${num(s.deadLettered)} sent to dead letters` : ''}` +
        `${s.alreadyProcessed > 0 ? ` (the first ${num(s.alreadyProcessed)} had already been judged under this version)` : ''}`,
    `listing history: ${s.listingHistory.ran ? `was ${num(s.listingHistory.behindAtStart)} message(s) behind, caught up first` : 'already current'}`,
    `${num(s.verdictRows)} verdict row(s) under ${s.checkerVersion} in the warehouse`,
  ];
  const c = s.comparison;
  if (!c) {
    lines.push('no earlier checker version has verdicts in the warehouse: nothing to compare with');
    return lines;
  }
  lines.push(
    `versus ${c.previousVersion}: ${num(c.comparedEvents)} probe event(s) judged by both; ${num(c.changedEvents)} changed result, ` +
      `for ${num(c.changedAgents)} agent(s)`,
  );
  if (c.transitions.length > 0) lines.push(`  changes: ${c.transitions.map((t) => `${t.from} → ${t.to}: ${num(t.events)}`).join(', ')}`);
  for (const a of c.agents) {
    lines.push(`  ${a.agentId}  ${a.from} → ${a.to}  ${a.agentKey}${a.name ? `  (${a.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 80)})` : ''}`);
  }
  if (c.changedAgents > c.agents.length) lines.push(`  … and ${num(c.changedAgents - c.agents.length)} more`);
  return lines;
}
