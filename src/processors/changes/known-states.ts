import { LRUCache } from 'lru-cache';
import { DECIDED_UPTIME, DECIDED_VERDICTS, type ProbeFacts, type StatePoint } from './derive.js';

/**
 * Each agent's newest decided uptime and verdict as the change writer last left them, so a batch
 * of probes of agents it has seen needs no read of their history (a replay's batches would
 * otherwise read back most of what the batch before them wrote).
 *
 * What is kept holds only while nobody else writes an agent's rows of this checker version: the
 * verdict processor's group is the only writer, and probes are keyed by agent, so one partition
 * holds all of an agent's probes. A kept state is used only when its partition's batch starts
 * right where the last batch this writer finished ended (no other member wrote the offsets
 * between, and no batch is being written again after a failed commit), and only when every probe
 * of the agent in the batch comes after every point of it known (a late probe needs the history
 * around it, which is read). Anything else is read, as a first batch is.
 */

/** Agents whose states a writer keeps (least recently used forgotten first): a few hundred bytes each. */
export const KNOWN_STATE_AGENTS = 200_000;

/** Where a batch came from: its partition and first and last offsets. */
export interface BatchPlace {
  partition: number;
  firstOffset: string;
  lastOffset: string;
}

/** An agent's newest decided points, and the newest point of any kind it is known to have. */
export interface AgentStates {
  uptime: StatePoint | null;
  verdict: StatePoint | null;
  newest: { observedAt: number; eventId: string };
}

interface Kept extends AgentStates {
  /** The run of contiguous batches it was written in. */
  run: number;
}

const after = (a: { observedAt: number; eventId: string }, b: { observedAt: number; eventId: string }) =>
  a.observedAt > b.observedAt || (a.observedAt === b.observedAt && a.eventId > b.eventId);

const newer = <P extends { observedAt: number; eventId: string }>(a: P | null, b: P | null): P | null =>
  a === null ? b : b === null ? a : after(b, a) ? b : a;

export class KnownStates {
  private readonly agents: LRUCache<string, Kept>;
  /** Per partition: the first offset of the batch that continues the run, and the run's number. */
  private readonly partitions = new Map<number, { next: string; run: number }>();
  private runs = 0;

  constructor(capacity: number = KNOWN_STATE_AGENTS) {
    this.agents = new LRUCache({ max: capacity });
  }

  /** The run a batch belongs to: the partition's current one when the batch continues it, else a new one (nothing kept applies). */
  runOf(batch: BatchPlace): number {
    const p = this.partitions.get(batch.partition);
    return p !== undefined && p.next === batch.firstOffset ? p.run : ++this.runs;
  }

  /**
   * The kept states of `agentKey` for a batch of run `run`, when they hold for every one of its
   * probes (`earliest`: its first probe in the batch); undefined when its history must be read.
   */
  get(agentKey: string, run: number, earliest: { observedAt: number; eventId: string }): AgentStates | undefined {
    const k = this.agents.get(agentKey);
    return k !== undefined && k.run === run && after(earliest, k.newest) ? k : undefined;
  }

  /**
   * Records what a batch written in full leaves: each agent's states before it (kept or read)
   * moved on by its own probes. Called once the batch's changes are published.
   */
  finish(batch: BatchPlace, run: number, prior: ReadonlyMap<string, AgentStates>, facts: readonly ProbeFacts[]): void {
    // One record per agent, its points replaced as newer ones come (a point is made only when it is newer).
    const next = new Map<string, Kept>();
    for (const f of facts) {
      let s = next.get(f.agentKey);
      if (s === undefined) {
        const p = prior.get(f.agentKey);
        s = { uptime: p?.uptime ?? null, verdict: p?.verdict ?? null, newest: p?.newest ?? f, run };
        next.set(f.agentKey, s);
      }
      if (DECIDED_UPTIME.has(f.uptime) && (s.uptime === null || after(f, s.uptime)))
        s.uptime = { observedAt: f.observedAt, eventId: f.eventId, state: f.uptime };
      if (DECIDED_VERDICTS.has(f.verdict) && (s.verdict === null || after(f, s.verdict)))
        s.verdict = { observedAt: f.observedAt, eventId: f.eventId, state: f.verdict };
      if (after(f, s.newest)) s.newest = f;
    }
    for (const [key, s] of next) this.agents.set(key, { ...s, newest: { observedAt: s.newest.observedAt, eventId: s.newest.eventId } });
    this.partitions.set(batch.partition, { next: (BigInt(batch.lastOffset) + 1n).toString(), run });
  }

  /** Forgets a partition's run (its batch failed part-way: what it wrote is read again). */
  forget(partition: number): void {
    this.partitions.delete(partition);
  }
}

/** An agent's states from the points of its history that were read (any order), none when it has none. */
export function statesOf(uptime: readonly StatePoint[], verdict: readonly StatePoint[]): AgentStates | null {
  let u: StatePoint | null = null;
  let v: StatePoint | null = null;
  for (const p of uptime) u = newer(u, p);
  for (const p of verdict) v = newer(v, p);
  const newest = newer<{ observedAt: number; eventId: string }>(u, v);
  return newest === null ? null : { uptime: u, verdict: v, newest };
}
