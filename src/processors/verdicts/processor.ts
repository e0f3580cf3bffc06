import type { ProbeEvent } from '../../events/types.js';
import type { ConsumerRunner } from '../../kafka/consumer-runner.js';
import type { EventProducer } from '../../kafka/producer.js';
import {
  CENSUS_REFRESH_INTERVAL_MS,
  refreshAgentDailyHistory,
  refreshAgentStatus,
  refreshCensus,
  refreshDailyRollups,
  refreshRunSamples,
} from '../../warehouse/rollups.js';
import type { BigIntText } from '../../warehouse/rows.js';
import type { ReadOnlyWarehouse, Warehouse } from '../../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from '../event-processor.js';
import { CURRENT_CHECKER, type Checker } from './checker.js';
import { judgeProbe, type Signer } from './judge-probe.js';
import { ListingContextResolver } from './listing-context.js';
import { DocumentReader } from '../documents.js';
import { documentHashes } from './observation.js';
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
}

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
 * Writes one batch of probe events as checks, verdicts and agent_latest rows, then
 * recomputes the rollups of the days (and agents) it touched. The documents the events
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
  constructor(
    private readonly warehouse: Warehouse,
    private readonly checker: Checker,
    private readonly sign: Signer,
    documents?: DocumentReader,
  ) {
    this.context = new ListingContextResolver(warehouse);
    this.documents = documents ?? new DocumentReader(warehouse);
  }

  /**
   * Writes the batch; resolves with each event's check and verdict as written (by event id), which
   * the change derivation compares with the agents' history (rather than reading them back).
   */
  async write(events: readonly ProbeEvent[]): Promise<Map<string, ProbeFacts>> {
    const written = new Map<string, ProbeFacts>();
    if (events.length === 0) return written;
    const contexts = await this.context.resolve(events);
    // The documents the events name by hash (older events carry their bodies inline and name none).
    const documents = await this.documents.texts(events.flatMap(documentHashes));
    const judged = events.map((ev, i) => judgeProbe(ev, contexts[i] ?? null, this.checker, this.sign, documents));
    await this.warehouse.insert('checks', judged.map((j) => j.check));
    await this.warehouse.insert('verdicts', judged.map((j) => j.verdict));
    await this.warehouse.insert('agent_latest', judged.map((j) => j.latest));
    const days = [...new Set(events.map((e) => new Date(e.observedAt).toISOString().slice(0, 10)))];
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
    for (const j of judged) written.set(j.facts.eventId, j.facts);
    return written;
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
  const writer = new VerdictWriter(opts.warehouse, checker, opts.sign);
  const { producer, closeWith } = processorProducer(opts);
  const changes = new ProbeChangeWriter(opts.warehouse, checker.version, changePublisher(producer, opts.topics));
  const runner = createEventProcessor(opts, {
    groupId: verdictGroupId(checker.version),
    topic: 'probes',
    event: 'Probe',
    // Two batches a fetch: the next partition's batch is at hand when one is written.
    batches: { maxBytesPerPartition: opts.batchBytes ?? VERDICT_BATCH_BYTES, maxBytes: 2 * (opts.batchBytes ?? VERDICT_BATCH_BYTES) },
    write: async (events) => {
      await changes.write(events, await writer.write(events));
    },
  });
  closeWith(runner as ConsumerRunner<unknown>);
  const stopCensus = writer.keepCensusCurrent(CENSUS_REFRESH_INTERVAL_MS, (err) =>
    opts.logger.warn({ err }, 'census recount failed; tried again at the next interval'),
  );
  runner.done.then(stopCensus, stopCensus);
  return runner;
}
