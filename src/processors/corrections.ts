/**
 * The corrections processor (an owner disputes a result; we re-probe the agent and log the
 * correction): disputes topic → `corrections` table and a `corrected` agent change.
 *
 * A Dispute event names the Probe event id its re-probe will carry (the probe worker derives it
 * from the ProbeRequest id). For each dispute of a batch the processor looks for that probe's check
 * and verdict of its checker version in the warehouse. While one is missing and the dispute is
 * younger than the wait limit (REPROBE_MAX_WAIT_MS since the dispute), the batch waits a bounded
 * time (REPROBE_POLL_WINDOW_MS, under the session timeout) and then fails, so the runner retries it
 * with backoff, uncommitted: the processor is given enough retries to outlast the wait limit. A
 * dispute whose re-probe has not been judged by then is closed as "re-probe did not complete"; one
 * for which no re-probe was requested (opted out, no URL) is closed at once.
 *
 * The sink writes the batch's rows (keyed by dispute id), then publishes one `corrected`
 * AgentChange per dispute with the idempotent producer (its id is a function of kind, agent key,
 * dispute id and checker version), all before the runner commits: a batch written twice changes
 * nothing a query sees. A dispute already answered keeps its answer when it is read again later
 * (a replay after the re-probe's raw rows expired): the stored answered row wins.
 */
import type { AgentChangeEvent, DisputeEvent } from '../events/types.js';
import { SINK_RETRIES, type ConsumerRunner } from '../kafka/consumer-runner.js';
import type { EventProducer } from '../kafka/producer.js';
import { sleep } from '../util/time.js';
import type { CorrectionRow, DateTimeText, UptimeState, VerdictResult } from '../warehouse/rows.js';
import type { InsertRow } from '../warehouse/tables.js';
import { fromDateTime64, fromDateTime64OrNull } from '../warehouse/time.js';
import type { ReadOnlyWarehouse, Warehouse } from '../warehouse/warehouse.js';
import { agentChangeId, failingRuleIds } from './changes/derive.js';
import { changePublisher, processorProducer } from './changes/publish.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';
import { CURRENT_CHECKER, type Checker } from './verdicts/checker.js';

export const CORRECTIONS_GROUP = 'veronikai.corrections.v1';

/** How long after a dispute its re-probe may take to be judged before the dispute is closed without it. */
export const REPROBE_MAX_WAIT_MS = 3_600_000;
/** How long one attempt waits for a re-probe before the batch fails and is retried (under the 30 s session timeout). */
export const REPROBE_POLL_WINDOW_MS = 5_000;
const REPROBE_POLL_MS = 500;
/** The reason as a change's reason line (the whole reason stays in the corrections row). */
const REASON_IN_CHANGE_MAX = 200;

export interface CorrectionsOptions extends EventProcessorDeps {
  warehouse: Warehouse;
  /** The checker whose verdicts of the re-probe answer the dispute (default: the current one, as the verdict processor). */
  checker?: Checker;
  maxWaitMs?: number;
  pollWindowMs?: number;
  /** Where the `corrected` changes go (default: a producer of its own, closed when the processor stops). */
  producer?: EventProducer;
  now?: () => number;
}

/** A batch with a dispute whose re-probe is neither judged nor overdue: the runner retries it. */
export class ReprobePendingError extends Error {
  override name = 'ReprobePendingError';
  constructor(readonly disputeIds: readonly string[]) {
    super(
      `the re-probe of ${disputeIds.length} dispute(s) is not judged yet (waiting up to the limit since each dispute): ${disputeIds.slice(0, 3).join(', ')}`,
    );
  }
}

const toDate = (ms: number | null) => (ms === null ? null : new Date(ms));

function waitText(ms: number): string {
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/** A probe as judged under one checker version: its check and its verdict. */
interface JudgedProbeRow {
  event_id: string;
  agent_key: string;
  observed_at: DateTimeText;
  uptime: UptimeState;
  reason: string;
  result: VerdictResult;
  reasons: string[];
}

/** The probes among `eventIds` (of these agents) that have both a check and a verdict of `checkerVersion`. */
async function judgedProbes(
  wh: ReadOnlyWarehouse,
  q: { checkerVersion: string; agentKeys: readonly string[]; eventIds: readonly string[] },
): Promise<JudgedProbeRow[]> {
  if (q.eventIds.length === 0) return [];
  const params = { cv: q.checkerVersion, keys: [...q.agentKeys], ids: [...q.eventIds] };
  return wh.query<JudgedProbeRow>(
    `SELECT c.event_id AS event_id, c.agent_key AS agent_key, c.observed_at AS observed_at, c.uptime AS uptime, c.reason AS reason,
            v.result AS result, v.reasons AS reasons
     FROM (SELECT event_id, agent_key, observed_at, uptime, reason FROM checks FINAL
           WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND event_id IN {ids:Array(String)}) AS c
     INNER JOIN (SELECT event_id, result, reasons FROM verdicts FINAL
                 WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND event_id IN {ids:Array(String)}) AS v
       ON v.event_id = c.event_id`,
    params,
  );
}

/** The corrections rows of these disputes (of these agents), as stored. */
async function correctionsByDispute(
  wh: ReadOnlyWarehouse,
  q: { agentKeys: readonly string[]; disputeIds: readonly string[] },
): Promise<CorrectionRow[]> {
  if (q.disputeIds.length === 0) return [];
  return wh.query<CorrectionRow>(
    'SELECT * FROM corrections FINAL WHERE agent_key IN {keys:Array(String)} AND dispute_id IN {ids:Array(String)}',
    { keys: [...q.agentKeys], ids: [...q.disputeIds] },
  );
}

/** What the re-probe found, from the judged rows, or from a stored answered row of the dispute. */
interface Reprobe {
  eventId: string;
  at: number;
  uptime: string;
  result: string;
  rules: string[];
}

type Outcome = { kind: 'answered'; reprobe: Reprobe } | { kind: 'not_completed' | 'not_reprobed'; note: string };

function fromJudged(r: JudgedProbeRow): Reprobe {
  return { eventId: r.event_id, at: fromDateTime64(r.observed_at), uptime: r.uptime, result: r.result, rules: failingRuleIds(r.reasons) };
}

function fromStored(r: CorrectionRow): Reprobe {
  return {
    eventId: r.reprobe_event_id,
    at: fromDateTime64OrNull(r.reprobed_at) ?? 0,
    uptime: r.reprobe_uptime,
    result: r.reprobe_result,
    rules: r.reprobe_reasons,
  };
}

const stateText = (uptime: string | null, result: string | null, rules: readonly string[]) =>
  uptime === null && result === null
    ? 'no check'
    : `${uptime ?? 'no check'}, ${result ?? 'no verdict'}${rules.length > 0 ? ` (${rules.join(', ')})` : ''}`;

/** The correction row and its `corrected` change for one dispute and its outcome. */
export function correctionOf(
  d: DisputeEvent,
  outcome: Outcome,
  checkerVersion: string,
  closedAt: number,
): { row: InsertRow<'corrections'>; change: AgentChangeEvent } {
  const reprobe = outcome.kind === 'answered' ? outcome.reprobe : null;
  const verdictChanged = reprobe !== null && d.disputedResult !== null && reprobe.result !== d.disputedResult;
  const uptimeChanged = reprobe !== null && d.disputedUptime !== null && reprobe.uptime !== d.disputedUptime;
  const changeId = agentChangeId('corrected', d.agentKey, d.id, checkerVersion);
  let summary: string;
  if (outcome.kind === 'answered') {
    const r = outcome.reprobe;
    const verdict =
      d.disputedResult === null
        ? `verdict ${r.result}`
        : verdictChanged
          ? `verdict changed from ${d.disputedResult} to ${r.result}`
          : `verdict unchanged (${r.result})`;
    summary = `Dispute answered: re-probed (${r.uptime}), ${verdict}`;
  } else if (outcome.kind === 'not_completed') {
    summary = `Dispute closed: ${outcome.note}`;
  } else {
    summary = `Dispute recorded, not re-probed: ${outcome.note}`;
  }
  const reason = d.reason.length > REASON_IN_CHANGE_MAX ? `${d.reason.slice(0, REASON_IN_CHANGE_MAX - 1)}…` : d.reason;
  const reasons = [
    `disputed: ${reason}`,
    `before: ${stateText(d.disputedUptime, d.disputedResult, d.disputedReasons)}`,
    `after: ${outcome.kind === 'answered' ? stateText(outcome.reprobe.uptime, outcome.reprobe.result, outcome.reprobe.rules) : outcome.note}`,
  ];
  const change: AgentChangeEvent = {
    id: changeId,
    observedAt: d.observedAt,
    kind: 'corrected',
    agentKey: d.agentKey,
    agentId: d.agentId,
    protocol: d.protocol,
    name: d.name,
    checkerVersion,
    causeEventId: d.id,
    fromState: d.disputedResult,
    toState: reprobe ? reprobe.result : null,
    summary,
    reasons,
  };
  const row: InsertRow<'corrections'> = {
    dispute_id: d.id,
    requested_at: new Date(d.observedAt),
    agent_key: d.agentKey,
    agent_id: d.agentId,
    protocol: d.protocol,
    name: d.name,
    reason: d.reason,
    disputed_checker_version: d.checkerVersion,
    disputed_event_id: d.disputedEventId ?? '',
    disputed_at: toDate(d.disputedAt),
    disputed_uptime: d.disputedUptime ?? '',
    disputed_result: d.disputedResult ?? '',
    disputed_reasons: d.disputedReasons,
    request_id: d.requestId ?? '',
    outcome: outcome.kind,
    note: outcome.kind === 'answered' ? '' : outcome.note,
    checker_version: checkerVersion,
    reprobe_event_id: reprobe?.eventId ?? d.probeEventId ?? '',
    reprobed_at: toDate(reprobe?.at ?? null),
    reprobe_uptime: reprobe?.uptime ?? '',
    reprobe_result: reprobe?.result ?? '',
    reprobe_reasons: reprobe?.rules ?? [],
    verdict_changed: verdictChanged ? 1 : 0,
    uptime_changed: uptimeChanged ? 1 : 0,
    change_id: changeId,
    closed_at: new Date(closedAt),
    rank: reprobe ? 2 : 1,
  };
  return { row, change };
}

/**
 * Decides each dispute of a batch, waiting up to `pollWindowMs` for re-probes still to be judged;
 * throws ReprobePendingError when one is neither judged nor overdue after that.
 */
export class CorrectionsWriter {
  private readonly checkerVersion: string;
  private readonly maxWaitMs: number;
  private readonly pollWindowMs: number;
  private readonly now: () => number;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly publish: (changes: readonly AgentChangeEvent[]) => Promise<void>,
    opts: { checkerVersion: string; maxWaitMs?: number; pollWindowMs?: number; now?: () => number },
  ) {
    this.checkerVersion = opts.checkerVersion;
    this.maxWaitMs = opts.maxWaitMs ?? REPROBE_MAX_WAIT_MS;
    this.pollWindowMs = opts.pollWindowMs ?? REPROBE_POLL_WINDOW_MS;
    this.now = opts.now ?? Date.now;
  }

  private async decide(disputes: readonly DisputeEvent[]): Promise<{ outcomes: Map<string, Outcome>; pending: string[] }> {
    const agentKeys = [...new Set(disputes.map((d) => d.agentKey))];
    const probeIds = disputes.flatMap((d) => (d.probeEventId ? [d.probeEventId] : []));
    const judged = new Map(
      (await judgedProbes(this.warehouse, { checkerVersion: this.checkerVersion, agentKeys, eventIds: probeIds })).map((r) => [
        r.event_id,
        r,
      ]),
    );
    const stored = new Map(
      (await correctionsByDispute(this.warehouse, { agentKeys, disputeIds: disputes.map((d) => d.id) }))
        .filter((r) => r.outcome === 'answered' && r.checker_version === this.checkerVersion)
        .map((r) => [r.dispute_id, r]),
    );
    const outcomes = new Map<string, Outcome>();
    const pending: string[] = [];
    for (const d of disputes) {
      const found = d.probeEventId ? judged.get(d.probeEventId) : undefined;
      const answered = stored.get(d.id);
      if (!d.probeEventId) outcomes.set(d.id, { kind: 'not_reprobed', note: d.notReprobed ?? 'no re-probe was requested' });
      else if (found) outcomes.set(d.id, { kind: 'answered', reprobe: fromJudged(found) });
      else if (answered) outcomes.set(d.id, { kind: 'answered', reprobe: fromStored(answered) });
      else if (this.now() >= d.observedAt + this.maxWaitMs) {
        outcomes.set(d.id, { kind: 'not_completed', note: `the re-probe did not complete within ${waitText(this.maxWaitMs)}` });
      } else pending.push(d.id);
    }
    return { outcomes, pending };
  }

  async write(events: readonly DisputeEvent[]): Promise<void> {
    // One row per dispute (a batch may hold a redelivered copy).
    const disputes = [...new Map(events.map((d) => [d.id, d])).values()];
    if (disputes.length === 0) return;
    const deadline = this.now() + this.pollWindowMs;
    let decided = await this.decide(disputes);
    while (decided.pending.length > 0) {
      if (this.now() >= deadline) throw new ReprobePendingError(decided.pending);
      await sleep(REPROBE_POLL_MS);
      decided = await this.decide(disputes);
    }
    const closedAt = this.now();
    const made = disputes.map((d) => correctionOf(d, decided.outcomes.get(d.id)!, this.checkerVersion, closedAt));
    await this.warehouse.insert(
      'corrections',
      made.map((m) => m.row),
    );
    await this.publish(made.map((m) => m.change));
  }
}

/** Retries that outlast the wait limit: each failed attempt waits at least the poll window. */
export function correctionRetries(maxWaitMs: number, pollWindowMs: number): number {
  return Math.ceil(maxWaitMs / Math.max(1, pollWindowMs)) + 2;
}

/** disputes topic → corrections rows and `corrected` agent changes. */
export function createCorrectionsProcessor(opts: CorrectionsOptions): ConsumerRunner<DisputeEvent> {
  const { producer, closeWith } = processorProducer(opts);
  const maxWaitMs = opts.maxWaitMs ?? REPROBE_MAX_WAIT_MS;
  const pollWindowMs = opts.pollWindowMs ?? REPROBE_POLL_WINDOW_MS;
  const writer = new CorrectionsWriter(opts.warehouse, changePublisher(producer, opts.topics), {
    checkerVersion: (opts.checker ?? CURRENT_CHECKER).version,
    maxWaitMs,
    pollWindowMs,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const runner = createEventProcessor(
    { ...opts, sinkRetries: Math.max(opts.sinkRetries ?? SINK_RETRIES, correctionRetries(maxWaitMs, pollWindowMs)) },
    { groupId: CORRECTIONS_GROUP, topic: 'disputes', event: 'Dispute', write: (events) => writer.write(events) },
  );
  closeWith(runner as ConsumerRunner<unknown>);
  return runner;
}
