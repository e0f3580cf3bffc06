import { sha256Hex } from '../../core/canonical-json.js';
import type { AgentChangeEvent, AgentChangeKind } from '../../events/types.js';
import { agentId } from '../../identity/agent-key.js';

/**
 * Agent changes as pure functions of what happened before (no I/O): the verdict processor and
 * the dedupe processor read the history, these decide. The same history and events always give
 * the same changes with the same ids, so deriving again after a crash or a replay repeats them
 * exactly and the copies collapse (agent_changes is keyed by observed_at and change id).
 */

/** Kinds whose id (and meaning) depends on the checker version (schemas/avro/agent-change.avsc). */
const VERSIONED_KINDS: ReadonlySet<AgentChangeKind> = new Set(['verdict', 'corrected']);

/**
 * The change id: 32 hex of SHA-256 over kind, agent key, cause event id and, for verdict and
 * correction changes, the checker version. The fields are hashed as a JSON array, so no field's
 * text can run into the next one.
 */
export function agentChangeId(kind: AgentChangeKind, agentKey: string, causeEventId: string, checkerVersion = ''): string {
  const fields = VERSIONED_KINDS.has(kind) ? [kind, agentKey, causeEventId, checkerVersion] : [kind, agentKey, causeEventId];
  return sha256Hex(JSON.stringify(fields)).slice(0, 32);
}

/** A rule id as the catalogue names rules (A2A-CARD-001, MCP-Q-004, …). */
const RULE_ID = /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$/;

/** The failing rule ids of a verdict's reasons (`RULE location: message`), in order, once each. */
export function failingRuleIds(reasons: readonly string[]): string[] {
  const ids: string[] = [];
  for (const r of reasons) {
    const first = r.split(/[\s:]/, 1)[0] ?? '';
    if (RULE_ID.test(first) && !ids.includes(first)) ids.push(first);
  }
  return ids;
}

const who = (name: string, agentKey: string) => name || agentKey;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One sentence for people (a feed entry's title). */
export function changeSummary(c: Pick<AgentChangeEvent, 'kind' | 'name' | 'agentKey' | 'fromState' | 'toState' | 'reasons'>): string {
  const name = who(c.name, c.agentKey);
  switch (c.kind) {
    case 'down':
      return c.reasons[0] ? `${name} went down: ${c.reasons[0]}` : `${name} went down`;
    case 'up':
      return `${name} came back up`;
    case 'verdict': {
      const failing = c.toState === 'fail' && c.reasons.length > 0 ? ` (${plural(c.reasons.length, 'rule')} failing)` : '';
      return `${name}'s verdict changed from ${c.fromState ?? 'none'} to ${c.toState ?? 'none'}${failing}`;
    }
    case 'listed':
      return c.fromState === 'delisted' ? `${name} was listed again` : `${name} was newly listed`;
    case 'delisted':
      return `${name} was delisted`;
    case 'corrected':
      return `${name}'s result was corrected`;
  }
}

/** A change with its id and summary filled in. */
export function agentChange(c: Omit<AgentChangeEvent, 'id' | 'summary' | 'agentId'> & { agentId?: string }): AgentChangeEvent {
  return {
    ...c,
    id: agentChangeId(c.kind, c.agentKey, c.causeEventId, c.checkerVersion),
    agentId: c.agentId ?? agentId(c.agentKey),
    summary: changeSummary(c),
  };
}

// ---------------------------------------------------------------------------
// up / down / verdict, from probes

/** One probe as judged: its checks row and its verdicts row, of one checker version. */
export interface ProbeFacts {
  eventId: string;
  agentKey: string;
  protocol: 'a2a' | 'mcp';
  observedAt: number;
  /** up | down | unknown | skipped. */
  uptime: string;
  /** The check's reason (why down, or up). */
  reason: string;
  /** pass | fail | unknown | n/a. */
  verdict: string;
  /** The verdict's reasons (failing rules first). */
  verdictReasons: readonly string[];
}

/** A point of an agent's history: a decided state at one probe. */
export interface StatePoint {
  observedAt: number;
  eventId: string;
  state: string;
}

export interface ProbeChangeInput {
  events: readonly ProbeFacts[];
  /** Each agent's checks whose uptime is up or down (any order; the batch's own may be among them). */
  uptimeHistory: ReadonlyMap<string, readonly StatePoint[]>;
  /** Each agent's decided verdicts (not unknown) of `checkerVersion` (any order). */
  verdictHistory: ReadonlyMap<string, readonly StatePoint[]>;
  /** Agent names by key ('' when unknown). */
  names: ReadonlyMap<string, string>;
  checkerVersion: string;
}

/** Uptime states that make and keep a state; unknown and skipped say nothing about the agent. */
export const DECIDED_UPTIME: ReadonlySet<string> = new Set(['up', 'down']);
/**
 * Verdicts that make and keep a state. An unknown verdict is one that could not be reached (the
 * agent did not answer, or answered 429 or 402): it says nothing about conformance, and an agent
 * that goes down already has its `down` change, so pass → unknown → pass is no change at all.
 */
export const DECIDED_VERDICTS: ReadonlySet<string> = new Set(['pass', 'fail', 'n/a']);

const before = (a: { observedAt: number; eventId: string }, b: { observedAt: number; eventId: string }) =>
  a.observedAt < b.observedAt || (a.observedAt === b.observedAt && a.eventId < b.eventId);

/** The history of one agent in time order (ties by event id), each probe once. */
function timeline(points: Iterable<StatePoint>): StatePoint[] {
  const byId = new Map<string, StatePoint>();
  for (const p of points) byId.set(p.eventId, p);
  return [...byId.values()].sort((a, b) => a.observedAt - b.observedAt || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
}

/** The last point strictly before `at` (by time, then event id), or null when none is known. */
function lastBefore(line: readonly StatePoint[], at: { observedAt: number; eventId: string }): StatePoint | null {
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(line[mid]!, at)) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? line[lo - 1]! : null;
}

/**
 * The up, down and verdict changes of a batch of judged probes, each against the agent's history
 * strictly before it (by observed time, ties by event id): not against the newest state known, so
 * a late event older than what was already derived compares with what came before it and makes no
 * flip-flop. The batch's own probes are part of that history, so several probes of one agent are
 * walked in time order. No point before a probe (a newcomer, or history past the raw tables' TTL
 * or the read's bound) means no change: `listed` announces newcomers.
 */
export function deriveProbeChanges(input: ProbeChangeInput): AgentChangeEvent[] {
  const events = [...new Map(input.events.map((e) => [e.eventId, e])).values()].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  // Each agent's own events in one pass (a filter per agent would cost agents × events per batch).
  const byAgent = new Map<string, ProbeFacts[]>();
  for (const e of events) {
    const list = byAgent.get(e.agentKey);
    if (list) list.push(e);
    else byAgent.set(e.agentKey, [e]);
  }
  // Each event's prior decided uptime and verdict, by agent; then the changes, in time order.
  const priorUptime = new Map<ProbeFacts, StatePoint | null>();
  const priorVerdict = new Map<ProbeFacts, StatePoint | null>();
  for (const [key, own] of byAgent) {
    priors(own, input.uptimeHistory.get(key) ?? [], (e) => e.uptime, DECIDED_UPTIME, priorUptime);
    priors(own, input.verdictHistory.get(key) ?? [], (e) => e.verdict, DECIDED_VERDICTS, priorVerdict);
  }

  const out: AgentChangeEvent[] = [];
  for (const e of events) {
    const uptimePrior = priorUptime.get(e);
    const verdictPrior = priorVerdict.get(e);
    const uptimeFlips = flips(uptimePrior, e.uptime);
    const verdictFlips = flips(verdictPrior, e.verdict);
    if (!uptimeFlips && !verdictFlips) continue;
    const common = {
      observedAt: e.observedAt,
      agentKey: e.agentKey,
      protocol: e.protocol,
      name: input.names.get(e.agentKey) ?? '',
      causeEventId: e.eventId,
    };
    if (uptimeFlips)
      out.push(
        agentChange({
          ...common,
          kind: e.uptime === 'down' ? 'down' : 'up',
          checkerVersion: '',
          fromState: uptimePrior!.state,
          toState: e.uptime,
          reasons: e.reason ? [e.reason] : [],
        }),
      );
    if (verdictFlips)
      out.push(
        agentChange({
          ...common,
          kind: 'verdict',
          checkerVersion: input.checkerVersion,
          fromState: verdictPrior!.state,
          toState: e.verdict,
          reasons: failingRuleIds(e.verdictReasons),
        }),
      );
  }
  return out;
}

/** Whether an event in `state` after `prior` (its prior decided point, if any) is a change. */
const flips = (prior: StatePoint | null | undefined, state: string): prior is StatePoint =>
  prior !== null && prior !== undefined && prior.state !== state;

/**
 * The prior decided point of each of one agent's decided events (`own`, in time order), into
 * `out`. When the whole history comes before the agent's first event (a batch that follows the
 * last one, from kept states), one walk carries the latest point along; otherwise the history and
 * the events make one timeline, searched for each event (a late probe among what is known).
 */
function priors(
  own: readonly ProbeFacts[],
  history: readonly StatePoint[],
  stateOf: (e: ProbeFacts) => string,
  decided: ReadonlySet<string>,
  out: Map<ProbeFacts, StatePoint | null>,
): void {
  const first = own[0]!;
  if (history.every((p) => before(p, first))) {
    let last: StatePoint | null = null;
    for (const p of history) if (last === null || before(last, p)) last = p;
    for (const e of own) {
      const state = stateOf(e);
      if (!decided.has(state)) continue;
      out.set(e, last);
      last = { observedAt: e.observedAt, eventId: e.eventId, state };
    }
    return;
  }
  const line = timeline([
    ...history,
    ...own.filter((e) => decided.has(stateOf(e))).map((e) => ({ observedAt: e.observedAt, eventId: e.eventId, state: stateOf(e) })),
  ]);
  for (const e of own) if (decided.has(stateOf(e))) out.set(e, lastBefore(line, e));
}

// ---------------------------------------------------------------------------
// listed / delisted, from the dedupe processor's agents

/** A listing event that touched an agent, in the batch's (offset) order. */
export interface ListingCause {
  id: string;
  observedAt: number;
  /** The event lists the agent (not a tombstone, not invalid, names this agent's key). */
  live: boolean;
}

export interface AgentActivity {
  agentKey: string;
  protocol: string;
  name: string;
  /** The agent row as recomputed from the batch. */
  active: boolean;
}

/**
 * `listed` when an agent becomes active (new: from null; again after a delisting: from
 * 'delisted'), `delisted` when it becomes inactive, against its stored row before the batch
 * (`priorActive`: absent when it had none). The cause is the first live listing event of the
 * batch that touched it (listed) or the last one that was not live (delisted): in offset order,
 * which redelivery from the last commit repeats whatever the batch boundaries.
 */
export function deriveListingChanges(
  agents: readonly AgentActivity[],
  priorActive: ReadonlyMap<string, boolean>,
  causes: ReadonlyMap<string, readonly ListingCause[]>,
): AgentChangeEvent[] {
  const out: AgentChangeEvent[] = [];
  for (const a of agents) {
    const prior = priorActive.get(a.agentKey);
    const list = causes.get(a.agentKey) ?? [];
    let kind: 'listed' | 'delisted' | null = null;
    let cause: ListingCause | undefined;
    if (a.active && prior !== true) {
      kind = 'listed';
      cause = list.find((c) => c.live) ?? list[0];
    } else if (!a.active && prior === true) {
      kind = 'delisted';
      cause = [...list].reverse().find((c) => !c.live) ?? list.at(-1);
    }
    if (!kind || !cause) continue;
    out.push(
      agentChange({
        kind,
        observedAt: cause.observedAt,
        agentKey: a.agentKey,
        protocol: a.protocol === 'mcp' ? 'mcp' : 'a2a',
        name: a.name,
        checkerVersion: '',
        causeEventId: cause.id,
        fromState: kind === 'listed' ? (prior === false ? 'delisted' : null) : 'listed',
        toState: kind,
        reasons: [],
      }),
    );
  }
  return out;
}
