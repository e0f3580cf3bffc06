import { LRUCache } from 'lru-cache';
import type { ProbeEvent } from '../../events/types.js';
import type { BatchInfo, ConsumerRunner } from '../../kafka/consumer-runner.js';
import type { EventProducer } from '../../kafka/producer.js';
import type { KeyObject } from 'node:crypto';
import {
  CENSUS_REFRESH_INTERVAL_MS,
  refreshAgentDailyHistory,
  refreshAgentStatus,
  refreshCensus,
  refreshDailyRollups,
  refreshRunSamples,
  refreshRunSamplesOfDays,
} from '../../warehouse/rollups.js';
import type { BigIntText } from '../../warehouse/rows.js';
import type { ReadOnlyWarehouse, Warehouse } from '../../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from '../event-processor.js';
import { CURRENT_CHECKER, type Checker } from './checker.js';
import { judgeInputs, latestRow, probeRows, type JudgedProbe, type Signer } from './judge-probe.js';
import { signingKeyObject, signJudged, treeAttestation } from './batch-sign.js';
import { inputDigest, JudgementMemo } from './memo.js';
import { factRow, inputRow } from './probe-facts.js';
import { eventCodec } from '../../events/codec.js';
import type { InsertRow } from '../../warehouse/tables.js';
import { ListingContextResolver } from './listing-context.js';
import { DocumentReader } from '../documents.js';
import { documentHashes } from './observation.js';
import { cardsSeen } from './search-cards.js';
import { writeAgentLatest } from './agent-latest.js';
import { indexAgents } from '../../warehouse/search/index-writer.js';
import { ProbeChangeWriter } from '../changes/processor.js';
import type { ProbeFacts } from '../changes/derive.js';
import { changePublisher, processorProducer } from '../changes/publish.js';

/**
 * The verdict processor's consumer group carries the checker version: a new
 * version is a new group, which starts at the earliest offset of the probes topic
 * and writes its verdict rows beside the old version's (a replay).
 */
export function verdictGroupId(checkerVersion: string): string {
  return `veronikai.verdicts.${checkerVersion.replace(/[^A-Za-z0-9._+-]/g, '_')}`;
}

/**
 * A mark of the agents table that changes whenever an agent is written (new, delisted, hidden):
 * its stored rows and newest version. The census keeper compares it to decide whether to recount;
 * a count from the table's parts and one column, not a FINAL read of every row.
 */
async function agentsWriteMark(wh: ReadOnlyWarehouse): Promise<string> {
  const [row] = await wh.query<{ n: BigIntText; v: BigIntText }>('SELECT count() AS n, max(version) AS v FROM agents');
  return `${String(row?.n ?? 0)}:${String(row?.v ?? 0)}`;
}

export interface VerdictProcessorOptions extends EventProcessorDeps {
  warehouse: Warehouse;
  sign: Signer;
  checker?: Checker;
  /** Publishes the agent changes the batches show (default: a producer of its own). */
  producer?: EventProducer | undefined;
  /** Most bytes of probe events one batch reads from a partition (default VERDICT_BATCH_BYTES). */
  batchBytes?: number;
  /** The writer to use (a replay brings one that derives the read models once, at its end). */
  writer?: VerdictWriter;
  /** Partitions' batches written at once (default REPLAY_CONCURRENT_BATCHES for a deferred writer, else 1). */
  concurrentBatches?: number;
}

/**
 * When the read models (rollups, daily history, status rows, run samples) are derived: after each
 * batch (a live processor: the pages are as fresh as the verdicts), or once for every day and
 * agent a replay touched, when it has caught up (deriveReadModels), by the engine over the rows
 * written: per batch they cost a replay more than judging.
 */
export type ReadModelTiming = 'per-batch' | 'deferred';

/** Days derived by one statement of a deferred derivation: large windows, each a bounded piece of the engine's memory. */
export const DEFERRED_READ_MODEL_DAYS = 8;

/**
 * Probe events read per partition and fetch, so per batch. Each of a batch's statements (its
 * inserts, the listing and document reads, the read-model refreshes, the change derivation) costs
 * tens of milliseconds beside its per-row cost, and the default fetch (1 MiB, about 1,600 probe
 * events) let those fixed costs dominate a replay. 8 MiB is 8,000 to 13,000 probe events (with
 * their keys, headers and record overhead), written in a few seconds, well inside the consumer
 * session.
 */
export const VERDICT_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Partitions' batches a replay (deferred read models) writes at once: while the engine inserts one
 * batch on its own threads, the event loop decodes, judges and signs the next. Probes are keyed by
 * agent, so two partitions' batches never share an agent (their changes and agent_latest rows are
 * apart). A live processor keeps one: its per-batch read models refresh shared days.
 */
export const REPLAY_CONCURRENT_BATCHES = 2;

/**
 * How much probe time passes before an input in use is written to probe_inputs again: its row's
 * seen_at moves on, well inside the table's 90-day TTL, at a row per input a month.
 */
export const INPUT_RECORD_REFRESH_MS = 30 * 86_400_000;
/** Inputs whose last write a writer remembers (forgotten ones are written again: one row more). */
export const INPUTS_RECORDED_KEPT = 1_000_000;

/**
 * Writes one batch of probe events as checks, verdicts and (a live writer) agent_latest rows, then
 * recomputes the rollups of the days (and agents) it touched (a replay's writer: once it has caught up). The documents the events
 * name by hash are read from the `documents` table first (waiting a bounded time for the
 * document store, which may be a moment behind); a document still missing fails the
 * batch, which is retried, rather than judging a probe without what it saw. Every write is keyed
 * by event id (and checker version), so writing a batch twice changes nothing a query sees.
 */
export class VerdictWriter {
  private readonly context: ListingContextResolver;
  private readonly documents: DocumentReader;
  /** When this writer last recounted the census (ms); it reads every agent, so not every batch. */
  private censusAt = -Infinity;
  /** A batch was written since the last count began (its count was skipped, or missed it). */
  private censusStale = false;
  /** agentsWriteMark when the last count began ('' before the first). */
  private agentsMark = '';
  /** The count under way, which a second caller joins. */
  private counting: Promise<void> | null = null;
  private readonly key: KeyObject;
  /** Judgements by input digest, across batches (memo.ts). */
  readonly memo = new JudgementMemo();
  /** Inputs this writer judged (each distinct input once, while the memo holds it). */
  judgedInputs = 0;
  /** When (probe time) each input was last written to probe_inputs, least recently used dropped first. */
  private readonly inputsRecorded = new LRUCache<string, number>({ max: INPUTS_RECORDED_KEPT });
  /** Deferred read models: the days written since the last derivation. */
  private readonly pendingDays = new Set<string>();
  constructor(
    private readonly warehouse: Warehouse,
    private readonly checker: Checker,
    sign: Signer,
    documents?: DocumentReader,
    readonly readModels: ReadModelTiming = 'per-batch',
  ) {
    // A replay has caught the listing history up before it starts: its writer keeps listing states between batches.
    this.context = new ListingContextResolver(warehouse, { keepStates: readModels === 'deferred' });
    this.documents = documents ?? new DocumentReader(warehouse);
    this.key = signingKeyObject(sign);
  }

  /**
   * Writes the batch; resolves with each event's check and verdict as written (by event id), which
   * the change derivation compares with the agents' history (rather than reading them back).
   */
  async write(events: readonly ProbeEvent[], batch?: BatchInfo): Promise<Map<string, ProbeFacts>> {
    const written = new Map<string, ProbeFacts>();
    if (events.length > 0) await this.writeEvents(events, written);
    // Once its facts are in: the span's probes can be replayed from them (replay-facts.ts).
    if (batch !== undefined)
      await this.warehouse.insert('probe_fact_spans', [
        { topic: batch.topic, topic_partition: batch.partition, first_offset: batch.firstOffset, last_offset: batch.lastOffset },
      ]);
    return written;
  }

  private async writeEvents(events: readonly ProbeEvent[], written: Map<string, ProbeFacts>): Promise<void> {
    const contexts = await this.context.resolve(events);
    // Each probe's inputs by digest: a probe whose inputs were judged before takes that judgement
    // and needs nothing else; only the others' documents are read, and each distinct input is judged once.
    const digests = events.map((ev, i) => inputDigest(ev, contexts[i] ?? null));
    const known = digests.map((d) => this.memo.get(d));
    // The documents the new inputs name by hash (older events carry their bodies inline and name none), and their listings' server.json.
    const documents = await this.documents.texts(events.filter((_, i) => known[i] === undefined).flatMap(documentHashes));
    await this.context.loadServerJson(contexts.filter((_, i) => known[i] === undefined));
    const judged = events.map((ev, i) => {
      let judgement = known[i] ?? this.memo.peek(digests[i]!);
      if (judgement === undefined) {
        judgement = judgeInputs(ev, contexts[i] ?? null, this.checker, documents);
        this.memo.set(digests[i]!, judgement);
        this.judgedInputs++;
      }
      return probeRows(ev, contexts[i] ?? null, this.checker, judgement);
    });
    // What a replay under another version joins its judgements with (probe-facts.ts): every probe's facts, and each input
    // once in a while (INPUT_RECORD_REFRESH_MS of probe time), so one still in use never leaves by TTL.
    const inputs = new Map<string, InsertRow<'probe_inputs'>>();
    events.forEach((ev, i) => {
      const d = digests[i]!;
      const last = this.inputsRecorded.get(d);
      if (!inputs.has(d) && (last === undefined || ev.observedAt - last >= INPUT_RECORD_REFRESH_MS))
        inputs.set(d, inputRow(eventCodec(), ev, contexts[i] ?? null, d));
    });
    await this.warehouse.insert(
      'probe_facts',
      judged.map((j, i) => factRow(events[i]!, j.check, digests[i]!)),
    );
    if (inputs.size > 0) await this.warehouse.insert('probe_inputs', [...inputs.values()]);
    for (const [d, row] of inputs) this.inputsRecorded.set(d, (row.seen_at as Date).getTime());
    // One signature per VERDICT_TREE_LEAVES verdicts: the heads of their trees (batch-sign.ts).
    const heads = signJudged(judged, this.checker.version, this.key);
    await this.warehouse.insert(
      'checks',
      judged.map((j) => j.check),
    );
    await this.warehouse.insert(
      'verdicts',
      judged.map((j) => j.verdict),
    );
    await this.warehouse.insert('verdict_heads', heads);
    // A replay writes each agent's newest row once, when it has caught up (agent-latest.ts).
    if (this.readModels === 'per-batch')
      await this.warehouse.insert(
        'agent_latest',
        newestByAgent(judged).map((j) => ({ ...latestRow(j), signature: treeAttestation(j, heads) })),
      );
    const days = [...new Set(events.map((e) => new Date(e.observedAt).toISOString().slice(0, 10)))];
    for (const j of judged) written.set(j.facts.eventId, j.facts);
    // The cards the batch judged reach the search index in the same batch (docs/SEARCH.md). A
    // replay (deferred read models) judges events whose cards the live writer indexed already:
    // the index does not depend on the checker version.
    const cards = this.readModels === 'deferred' ? new Map() : cardsSeen(events);
    if (cards.size > 0) await indexAgents(this.warehouse, [...cards.keys()], cards);
    if (this.readModels === 'deferred') {
      for (const d of days) this.pendingDays.add(d);
      return;
    }
    const agentKeys = [...new Set(events.map((e) => e.agentKey))];
    const checkerVersion = this.checker.version;
    await refreshDailyRollups(this.warehouse, { days, checkerVersion });
    await refreshAgentDailyHistory(this.warehouse, { days, agentKeys, checkerVersion });
    // The read model of the API pages: the touched agents' status rows (after their
    // daily history), the batch's in-sample checks per run, and now and then the census.
    await refreshAgentStatus(this.warehouse, { agentKeys, checkerVersion });
    await refreshRunSamples(this.warehouse, { checkerVersion, agentKeys, eventIds: events.map((e) => e.id) });
    this.censusStale = true;
    if (Date.now() - this.censusAt >= CENSUS_REFRESH_INTERVAL_MS) await this.recountCensus();
  }

  /**
   * Derives the deferred read models of every day written since the last call (and of `alsoDays`,
   * e.g. the days an interrupted run of the same replay wrote): each agent's latest row, the days' rollups,
   * the daily history and run samples of every agent on them, then every status row of this
   * version, in windows of DEFERRED_READ_MODEL_DAYS days; then the census. Idempotent, as each
   * refresh is: a derivation cut short is simply run again. `latest`: the agents' latest and status
   * rows even with no day to derive (a replay from the facts derived the daily models of its own days).
   */
  async deriveReadModels(alsoDays: readonly string[] = [], { latest = false }: { latest?: boolean } = {}): Promise<{ days: number }> {
    const days = [...new Set([...this.pendingDays, ...alsoDays])].sort();
    const checkerVersion = this.checker.version;
    const agents = latest || days.length > 0;
    // Before the status rows and the census, which read agent_latest.
    if (agents) await writeAgentLatest(this.warehouse, checkerVersion);
    for (let i = 0; i < days.length; i += DEFERRED_READ_MODEL_DAYS) {
      const window = days.slice(i, i + DEFERRED_READ_MODEL_DAYS);
      await refreshDailyRollups(this.warehouse, { days: window, checkerVersion });
      await refreshAgentDailyHistory(this.warehouse, { days: window, checkerVersion });
      await refreshRunSamplesOfDays(this.warehouse, { days: window, checkerVersion });
    }
    if (agents) await refreshAgentStatus(this.warehouse, { checkerVersion });
    for (const d of days) this.pendingDays.delete(d);
    this.censusStale = true;
    await this.recountCensus();
    return { days: days.length };
  }

  /**
   * Keeps the census current between batches (the processor runs this while it runs): every
   * `intervalMs`, unless a count began within it, recounts when a batch was written since the last
   * count began (the last batches of a run come within a minute of a count, and no batch follows)
   * or when the agents table changed (the listings processor adds, delists and hides agents with no
   * probe to follow; a hidden agent must leave the census, Methods §9). Returns the stop.
   */
  keepCensusCurrent(intervalMs: number, onError: (err: unknown) => void): () => void {
    const timer = setInterval(() => {
      this.catchUpCensus(intervalMs).catch(onError);
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async catchUpCensus(intervalMs: number): Promise<void> {
    if (this.counting || Date.now() - this.censusAt < intervalMs) return;
    if (!this.censusStale && (await agentsWriteMark(this.warehouse)) === this.agentsMark) return;
    await this.recountCensus();
  }

  /**
   * Recounts census_totals for this writer's version, one count at a time. What it marks (no batch
   * pending, the agents table as seen) is taken before it reads, so a write during the count is
   * counted again next time.
   */
  private recountCensus(): Promise<void> {
    this.counting ??= (async () => {
      const stale = this.censusStale;
      this.censusStale = false;
      this.censusAt = Date.now();
      try {
        this.agentsMark = await agentsWriteMark(this.warehouse);
        await refreshCensus(this.warehouse, this.checker.version);
      } catch (err) {
        this.censusStale ||= stale;
        this.agentsMark = '';
        throw err;
      } finally {
        this.counting = null;
      }
    })();
    return this.counting;
  }
}

/**
 * probes topic → checks, verdicts, agent_latest and the rollups, under one checker version; then
 * the up, down and verdict changes those rows show, to the agent-changes topic, before
 * the batch's offsets are committed.
 */
export function createVerdictProcessor(opts: VerdictProcessorOptions): ConsumerRunner<ProbeEvent> {
  const checker = opts.checker ?? CURRENT_CHECKER;
  const writer = opts.writer ?? new VerdictWriter(opts.warehouse, checker, opts.sign);
  const { producer, closeWith } = processorProducer(opts);
  const changes = new ProbeChangeWriter(opts.warehouse, checker.version, changePublisher(producer, opts.topics));
  const runner = createEventProcessor(opts, {
    groupId: verdictGroupId(checker.version),
    topic: 'probes',
    event: 'Probe',
    // Two batches a fetch: the next partition's batch is at hand when one is written.
    batches: {
      maxBytesPerPartition: opts.batchBytes ?? VERDICT_BATCH_BYTES,
      maxBytes: 2 * (opts.batchBytes ?? VERDICT_BATCH_BYTES),
      partitionsConsumedConcurrently: opts.concurrentBatches ?? (writer.readModels === 'deferred' ? REPLAY_CONCURRENT_BATCHES : 1),
    },
    write: async (events, batch) => {
      await changes.write(events, await writer.write(events, batch), batch);
    },
  });
  closeWith(runner as ConsumerRunner<unknown>);
  const stopCensus = writer.keepCensusCurrent(CENSUS_REFRESH_INTERVAL_MS, (err) =>
    opts.logger.warn({ err }, 'census recount failed; tried again at the next interval'),
  );
  runner.done.then(stopCensus, stopCensus);
  return runner;
}

/**
 * Each agent's newest judged probe of the batch (the later one of equal times, as the table keeps
 * the last inserted): agent_latest keeps only the newest observation, so the others need not go.
 */
function newestByAgent(judged: readonly JudgedProbe[]): JudgedProbe[] {
  const newest = new Map<string, JudgedProbe>();
  for (const j of judged) {
    const prev = newest.get(j.check.agent_key);
    if (prev === undefined || (prev.check.observed_at as Date).getTime() <= (j.check.observed_at as Date).getTime())
      newest.set(j.check.agent_key, j);
  }
  return [...newest.values()];
}
