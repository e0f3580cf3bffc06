import { createHash } from 'node:crypto';
import type { Coverage, ListingDraft, SourceState } from './types.js';

/**
 * Item state kept between passes: item id → [protocol, content hash of its last listing draft,
 * endpoint URL, card URL]. The URLs let a `delisted` event name the agent it no longer lists.
 */
export const ITEMS_KEY = '_items';
/** Item ids seen so far in an unfinished rolling sweep. */
export const SWEEP_KEY = '_sweep';

export type ItemInfo = [protocol: string, hash: string, endpointUrl: string | null, cardUrl: string | null];

/** A delisting that would remove more than this share of a source's items (of at least GUARD_MIN) is held back. */
const DELIST_GUARD_SHARE = 0.5;
const DELIST_GUARD_MIN = 50;

/** Content hash of a draft, without the raw item (counters like likes must not read as changes). */
export function draftHash(d: ListingDraft): string {
  const { raw: _raw, rawTruncated: _cut, ...rest } = d;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 16);
}

function itemsOf(state: SourceState): Map<string, ItemInfo> {
  const raw = state[ITEMS_KEY];
  const out = new Map<string, ItemInfo>();
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string') {
        out.set(k, [v[0], v[1], typeof v[2] === 'string' ? v[2] : null, typeof v[3] === 'string' ? v[3] : null]);
      }
    }
  }
  return out;
}

function sweepOf(state: SourceState): Set<string> {
  const raw = state[SWEEP_KEY];
  return new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []);
}

const sameContent = (a: ItemInfo, b: ItemInfo) => a[0] === b[0] && a[1] === b[1];

/** What settling a complete pass decided: the item state to save, the items to delist, a delisting held back. */
export interface Settlement {
  state: SourceState;
  /** Items the previous complete pass listed and this one did not, with what they were last listed as. */
  gone: Array<[itemId: string, info: ItemInfo]>;
  /** Set when the delisting guard held a delisting back. */
  held: { gone: number; before: number } | null;
}

/** The items one pass has seen, against the item state of the previous passes. */
export class PassItems {
  /** Items seen in this pass. */
  private readonly seen = new Map<string, ItemInfo>();
  private readonly seenInvalid = new Set<string>();
  private readonly deleted = new Set<string>();

  private constructor(
    private readonly prev: Map<string, ItemInfo>,
    private readonly sweep: Set<string>,
  ) {}

  static from(state: SourceState): PassItems {
    return new PassItems(itemsOf(state), sweepOf(state));
  }

  /** Notes the drafts of a page; returns how many of them are new and how many changed since the last pass. */
  track(drafts: readonly ListingDraft[]): { new: number; changed: number } {
    const counts = { new: 0, changed: 0 };
    for (const d of drafts) {
      if (d.status === 'invalid') {
        this.seenInvalid.add(d.itemId);
        continue;
      }
      if (d.status === 'deleted') {
        this.deleted.add(d.itemId);
        if (this.prev.has(d.itemId) && !this.seen.has(d.itemId)) counts.changed += 1;
        this.seen.delete(d.itemId);
        continue;
      }
      const value: ItemInfo = [d.protocol, draftHash(d), d.endpointUrl, d.cardUrl];
      if (!this.seen.has(d.itemId)) {
        const before = this.prev.get(d.itemId);
        if (before === undefined) counts.new += 1;
        else if (!sameContent(before, value)) counts.changed += 1;
      }
      this.seen.set(d.itemId, value);
    }
    return counts;
  }

  /** Items still listed but not re-emitted: they keep their last state and count as seen. */
  carry(ids: readonly string[]): void {
    for (const id of ids) {
      const before = this.prev.get(id);
      if (before !== undefined && !this.seen.has(id)) this.seen.set(id, before);
    }
  }

  /** The previous items updated by this pass (seen ones replaced, deleted ones dropped). */
  private merged(): Record<string, ItemInfo> {
    const items = new Map(this.prev);
    for (const [k, v] of this.seen) items.set(k, v);
    for (const k of this.deleted) items.delete(k);
    return Object.fromEntries(items);
  }

  private sweepSoFar(): string[] {
    return [...new Set([...this.sweep, ...this.seen.keys()])];
  }

  /** The state of an incomplete rolling sweep: what it read stays read, nothing is delisted. */
  progressState(progress: SourceState): SourceState {
    return { ...progress, [ITEMS_KEY]: this.merged(), [SWEEP_KEY]: this.sweepSoFar() };
  }

  /**
   * The item state after a complete pass, and what it delists: with coverage 'all' or
   * 'sweep-done', whatever was listed before and was not seen now is gone, unless so much would
   * go at once (or nothing is left) that the delisting guard holds it back.
   */
  settle(coverage: Coverage): Settlement {
    if (coverage === 'part') return { state: { [ITEMS_KEY]: this.merged(), [SWEEP_KEY]: [...this.sweep] }, gone: [], held: null };
    if (coverage === 'sweep-continues')
      return { state: { [ITEMS_KEY]: this.merged(), [SWEEP_KEY]: this.sweepSoFar() }, gone: [], held: null };
    const present = new Set([...this.seen.keys(), ...this.seenInvalid, ...(coverage === 'sweep-done' ? this.sweep : [])]);
    const gone = [...this.prev.keys()].filter((id) => !present.has(id) && !this.deleted.has(id));
    const before = this.prev.size;
    const guarded = gone.length > 0 && (present.size === 0 || (before >= DELIST_GUARD_MIN && gone.length > before * DELIST_GUARD_SHARE));
    if (guarded) return { state: { [ITEMS_KEY]: this.merged(), [SWEEP_KEY]: [] }, gone: [], held: { gone: gone.length, before } };
    const kept = new Map<string, ItemInfo>();
    for (const id of present) {
      const v = this.seen.get(id) ?? this.prev.get(id);
      if (v !== undefined) kept.set(id, v);
    }
    return {
      state: { [ITEMS_KEY]: Object.fromEntries(kept), [SWEEP_KEY]: [] },
      gone: gone.map((id) => [id, this.prev.get(id)!]),
      held: null,
    };
  }
}
