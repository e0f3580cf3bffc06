import type { AgentChangeEvent, ProbeEvent } from '../../events/types.js';
import { pollUntil, PollTimeoutError } from '../../util/poll.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { DOCUMENT_WAIT_MS } from '../documents.js';
import { agentChange, deriveProbeChanges, type ProbeFacts, type StatePoint } from './derive.js';
import { KnownStates, statesOf, type AgentStates, type BatchPlace } from './known-states.js';
import type { ChangePublisher } from './publish.js';
import { agentNames, checksOfProbes, priorStates, verdictsOfProbes, type ProbeRef } from './reads.js';

/**
 * Up, down and verdict changes of a batch of probes, published to the agent-changes topic.
 *
 * The verdict processor runs it on each batch right after writing the batch's checks and verdicts
 * (src/processors/verdicts/processor.ts), before its offsets are committed: it reads what was
 * written (never judges itself), so a change always agrees with the verdict shown, and being in
 * the same consumer group it can never fall behind the rows it reads. Rows still missing after a
 * short wait fail the batch, which the runner retries, uncommitted.
 *
 * Which checker version: the verdict processor's (one consumer group per version), and
 * it reads that version's rows only, for verdict changes (versioned ids: a replay under a new
 * version writes that version's verdict history beside the old) and for up/down. Up/down ids
 * leave the version out, so a replay under a new version derives the same ids from its own checks
 * wherever it judges uptime as the old one did (uptime rules rarely change with a version) and
 * the copies collapse. Where a new version does judge a probe's uptime differently, its replay
 * derives the changes it sees; the old version's stay, since they were announced as they were.
 *
 * Raw checks and verdicts expire after 90 days (clickhouse/0004, 0005; dropped at insert when
 * already past). A probe observed before RAW_HISTORY_DAYS ago makes no change and is not waited
 * for, and history is read from that day on only: a probe whose previous decided state is older
 * than that has none, so it makes no change (as a newcomer does), whatever has merged away.
 */

/** How many whole UTC days back, from today's start, raw rows are certainly all still there (rollups.ts: today - 89). */
export const RAW_HISTORY_DAYS = 89;
/** How long a batch waits for its checks and verdicts rows (written just before, in the same batch): under the consumer session timeout, as for documents. */
export const ROWS_WAIT_MS = DOCUMENT_WAIT_MS;
const ROWS_POLL_MS = 200;
const DAY_MS = 86_400_000;

/** The start of the oldest UTC day whose raw rows are all inside the TTL. */
export function rawHistorySince(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS - RAW_HISTORY_DAYS * DAY_MS;
}

/** Probes of a batch whose checks or verdicts rows the verdict processor has not written (yet). */
export class MissingJudgementsError extends Error {
  override name = 'MissingJudgementsError';
  constructor(
    readonly eventIds: readonly string[],
    checkerVersion: string,
  ) {
    super(
      `${eventIds.length} probe(s) have no checks/verdicts rows of checker ${checkerVersion} yet (is the verdict processor running?): ${eventIds.slice(0, 3).join(', ')}`,
    );
  }
}

export interface ChangeWriterOptions {
  waitMs?: number;
  now?: () => number;
}

/** One batch of judged probe events → its changes, published. */
export class ProbeChangeWriter {
  private readonly waitMs: number;
  private readonly now: () => number;
  /** The agents' states the last batches left (known-states.ts): a batch of agents seen before reads no history. */
  private readonly known = new KnownStates();

  constructor(
    private readonly warehouse: Warehouse,
    private readonly checkerVersion: string,
    private readonly publish: ChangePublisher,
    opts: ChangeWriterOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? ROWS_WAIT_MS;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Derives and publishes the batch's changes; returns them. `written`: the batch's checks and
   * verdicts as the caller has just written them (the verdict processor, after its inserts
   * resolved), by event id, so they need not be read back; without it they are read. `batch`:
   * where the batch came from, so that the next batch of its partition can start from the states
   * this one leaves rather than read them; without it every agent's history is read.
   */
  async write(events: readonly ProbeEvent[], written?: ReadonlyMap<string, ProbeFacts>, batch?: BatchPlace): Promise<AgentChangeEvent[]> {
    const run = batch === undefined ? null : this.known.runOf(batch);
    try {
      const { changes, facts, prior } = await this.derived(events, written, run);
      await this.publish(changes);
      if (batch !== undefined && run !== null) this.known.finish(batch, run, prior, facts);
      return changes;
    } catch (err) {
      if (batch !== undefined) this.known.forget(batch.partition);
      throw err;
    }
  }

  /** The batch's changes, from the warehouse's history (no writes). */
  async derive(events: readonly ProbeEvent[], written?: ReadonlyMap<string, ProbeFacts>): Promise<AgentChangeEvent[]> {
    return (await this.derived(events, written, null)).changes;
  }

  private async derived(
    events: readonly ProbeEvent[],
    written: ReadonlyMap<string, ProbeFacts> | undefined,
    run: number | null,
  ): Promise<{ changes: AgentChangeEvent[]; facts: ProbeFacts[]; prior: Map<string, AgentStates> }> {
    const prior = new Map<string, AgentStates>();
    const since = rawHistorySince(this.now());
    const recent = events.filter((e) => e.observedAt >= since);
    if (recent.length === 0) return { changes: [], facts: [], prior };
    const given = written && recent.every((e) => written.has(e.id)) ? recent.map((e) => written.get(e.id)!) : null;
    const facts = given ?? (await this.judged(recent));
    // Each agent's first probe of the batch: its kept states serve only when they come before it.
    const earliest = new Map<string, { observedAt: number; eventId: string }>();
    for (const f of facts) {
      const e = earliest.get(f.agentKey);
      if (e === undefined || f.observedAt < e.observedAt || (f.observedAt === e.observedAt && f.eventId < e.eventId))
        earliest.set(f.agentKey, { observedAt: f.observedAt, eventId: f.eventId });
    }
    const uptimeHistory = new Map<string, StatePoint[]>();
    const verdictHistory = new Map<string, StatePoint[]>();
    const inTtl = (p: StatePoint | null): StatePoint[] => (p !== null && p.observedAt >= since ? [p] : []);
    const toRead: string[] = [];
    for (const [key, first] of earliest) {
      const k = run === null ? undefined : this.known.get(key, run, first);
      if (k === undefined) {
        toRead.push(key);
        continue;
      }
      prior.set(key, k);
      uptimeHistory.set(key, inTtl(k.uptime));
      verdictHistory.set(key, inTtl(k.verdict));
    }
    const names = new Map<string, string>();
    if (toRead.length > 0) {
      let from = Infinity;
      let until = -Infinity;
      for (const e of recent) {
        from = Math.min(from, e.observedAt);
        until = Math.max(until, e.observedAt);
      }
      // One read: each agent's newest decided states before the batch, any other point inside its span, and its name.
      const rows = await priorStates(this.warehouse, {
        checkerVersion: this.checkerVersion,
        agentKeys: toRead,
        eventIds: recent.map((e) => e.id),
        since: new Date(since),
        from: new Date(from),
        until: new Date(until),
      });
      for (const r of rows) {
        if (r.kind === 'name') {
          names.set(r.agent_key, r.state);
          continue;
        }
        const lines = r.kind === 'uptime' ? uptimeHistory : verdictHistory;
        const point = { observedAt: fromDateTime64(r.observed_at), eventId: r.event_id, state: r.state };
        const line = lines.get(r.agent_key);
        if (line) line.push(point);
        else lines.set(r.agent_key, [point]);
      }
      for (const key of toRead) {
        const s = statesOf(uptimeHistory.get(key) ?? [], verdictHistory.get(key) ?? []);
        if (s !== null) prior.set(key, s);
      }
    }
    let changes = deriveProbeChanges({ events: facts, uptimeHistory, verdictHistory, names, checkerVersion: this.checkerVersion });
    // A change of an agent whose history was kept rather than read is named now (changes are few).
    const read = new Set(toRead);
    const unnamed = [...new Set(changes.map((c) => c.agentKey).filter((k) => !read.has(k)))];
    if (unnamed.length > 0) {
      const found = await agentNames(this.warehouse, unnamed);
      changes = changes.map((c) => (found.has(c.agentKey) ? agentChange({ ...c, name: found.get(c.agentKey)! }) : c));
    }
    return { changes, facts, prior };
  }

  /** Each probe's check and verdict, waiting a bounded time for the verdict processor to write them. */
  private async judged(events: readonly ProbeEvent[]): Promise<ProbeFacts[]> {
    const refs: ProbeRef[] = events.map((e) => ({ id: e.id, agentKey: e.agentKey, observedAt: e.observedAt }));
    const checks = new Map<string, { uptime: string; reason: string }>();
    const verdicts = new Map<string, { result: string; reasons: string[] }>();
    const missing = () => refs.filter((r) => !checks.has(r.id) || !verdicts.has(r.id));
    try {
      await pollUntil(
        'checks and verdicts',
        async () => {
          const needChecks = refs.filter((r) => !checks.has(r.id));
          for (const r of await checksOfProbes(this.warehouse, this.checkerVersion, needChecks)) checks.set(r.event_id, r);
          const needVerdicts = refs.filter((r) => !verdicts.has(r.id));
          for (const r of await verdictsOfProbes(this.warehouse, this.checkerVersion, needVerdicts)) verdicts.set(r.event_id, r);
          const left = missing().length;
          return left === 0 ? { done: true, value: undefined } : { done: false, why: `${left} probe(s) missing` };
        },
        { timeoutMs: this.waitMs, intervalMs: ROWS_POLL_MS },
      );
    } catch (err) {
      if (err instanceof PollTimeoutError)
        throw new MissingJudgementsError(
          missing().map((r) => r.id),
          this.checkerVersion,
        );
      throw err;
    }
    return events.map((e) => {
      const c = checks.get(e.id)!;
      const v = verdicts.get(e.id)!;
      return {
        eventId: e.id,
        agentKey: e.agentKey,
        protocol: e.protocol,
        observedAt: e.observedAt,
        uptime: c.uptime,
        reason: c.reason,
        verdict: v.result,
        verdictReasons: v.reasons,
      };
    });
  }
}
