import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../../core/canonical-json.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { BigIntText } from '../../warehouse/rows.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { TOMBSTONE_STATUSES } from '../listings-to-agents.js';
import type { ListingContext } from './observation.js';

export interface HistoryRow {
  agent_key: string;
  observed_at: string;
  event_id: string;
  source: string;
  item_id: string;
  status: string;
  endpoint_transport: string;
  /** SHA-256 (hex) of the row's server.json, '' when it has none (clickhouse/0039). */
  server_json_sha256: string;
  /** The server.json text, when the row was read with it (else it is read when an input needs it: loadServerJson). */
  server_json?: string;
}

/**
 * Bytes of server.json text kept by hash: each new input of an agent needs its listing's document
 * again, and a kept text is parsed in microseconds where a read costs a statement. Texts, not
 * parsed documents, since a text is a few times smaller: tens of thousands of a few kilobytes.
 */
export const SERVER_JSON_KEPT_BYTES = 64 * 1024 * 1024;
/** Agents whose listing state a resolver keeps between batches (a few hundred bytes each, no server.json text). */
export const LISTING_STATES_KEPT = 200_000;
/**
 * How far behind its listings a probe may be judged from a kept listing state: a batch whose
 * probes all came before (now − this) leaves each agent's state as of its last probe, taking every
 * listing event observed by then as written. Only a replay keeps states (it catches the listing
 * history up before it starts); a live processor reads the history every batch, since the listing
 * history may be catching up beside it.
 */
export const LISTING_SETTLE_MS = 15 * 60_000;

const itemRef = (r: { source: string; item_id: string }) => `${r.source}\u0000${r.item_id}`;

/** An agent's listing items as of `upTo`: the newest row of each item that had named it by then. */
interface KeptListing {
  upTo: number;
  items: Map<string, HistoryRow>;
}

export interface ResolverOptions {
  /** Bytes of server.json text kept (default SERVER_JSON_KEPT_BYTES). */
  keptBytes?: number;
  /** Keep each agent's listing state between batches (a replay's writer; default false). */
  keepStates?: boolean;
  now?: () => number;
}

const COLUMNS = 'agent_key, observed_at, event_id, source, item_id, status, endpoint_transport, server_json_sha256';
const DT = (name: string) => `{${name}:DateTime64(3, 'UTC')}`;

/**
 * Resolves, for each (agent key, time) of a batch of probes, what the agent's listings
 * said at that time: every listing item that ever named the agent, in the state it had at
 * the probe (its newest event at or before it). An item counts only while it is live and
 * still names this agent, so an item that moved to another URL no longer speaks for it.
 */
export class ListingContextResolver {
  /** Where each context's server.json is stored, until it is loaded (loadServerJson). */
  private readonly rows = new WeakMap<ListingContext, HistoryRow>();
  private readonly texts: LRUCache<string, string>;
  private readonly kept = new LRUCache<string, KeptListing>({ max: LISTING_STATES_KEPT });
  private readonly keepStates: boolean;
  private readonly now: () => number;
  constructor(
    private readonly warehouse: Warehouse,
    opts: ResolverOptions = {},
  ) {
    this.texts = new LRUCache({ maxSize: opts.keptBytes ?? SERVER_JSON_KEPT_BYTES, sizeCalculation: (text) => Math.max(1, text.length) });
    this.keepStates = opts.keepStates === true;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Each probe's listing context, its server.json named by hash and not yet read: a probe whose
   * inputs were judged before needs no more; loadServerJson reads the others'. An agent with a
   * kept state older than its first probe of the batch reads only the listing events since.
   */
  async resolve(probes: ReadonlyArray<{ agentKey: string; observedAt: number }>): Promise<Array<ListingContext | null>> {
    if (probes.length === 0) return [];
    const first = new Map<string, number>();
    let until = -Infinity;
    for (const p of probes) {
      first.set(p.agentKey, Math.min(first.get(p.agentKey) ?? Infinity, p.observedAt));
      until = Math.max(until, p.observedAt);
    }
    const full: string[] = [];
    const known = new Map<string, KeptListing>();
    for (const [key, t] of first) {
      const k = this.kept.get(key);
      if (k !== undefined && t > k.upTo) known.set(key, k);
      else full.push(key);
    }
    const histories = new Map<string, Timed[][]>();
    if (full.length > 0) {
      const from = Math.min(...full.map((k) => first.get(k)!));
      const byAgent = indexHistories(byItem(await this.readHistories(full, from, until)));
      for (const key of full) histories.set(key, byAgent.get(key) ?? []);
    }
    if (known.size > 0) {
      const since = Math.min(...[...known.values()].map((k) => k.upTo));
      const rows = await this.readSince(
        [...known.keys()],
        [...known.values()].flatMap((k) => [...k.items.values()]),
        since,
        until,
      );
      // By item, and each agent's items named since: each agent then costs its own rows.
      const sinceByItem = byItem(rows);
      const named = new Map<string, Set<string>>();
      for (const r of rows) {
        const set = named.get(r.agent_key);
        if (set) set.add(itemRef(r));
        else named.set(r.agent_key, new Set([itemRef(r)]));
      }
      for (const [key, k] of known) histories.set(key, movedOn(k, sinceByItem, named.get(key)));
    }
    // Every listing event up to the batch's last probe is taken as written once it is old enough.
    if (this.keepStates && until <= this.now() - LISTING_SETTLE_MS)
      for (const key of first.keys()) {
        const items = new Map<string, HistoryRow>();
        for (const h of histories.get(key) ?? []) if (h.length > 0) items.set(itemRef(h.at(-1)!.row), h.at(-1)!.row);
        this.kept.set(key, { upTo: until, items });
      }
    return probes.map((p) => {
      const found = contextFrom(histories.get(p.agentKey) ?? [], p.agentKey, p.observedAt);
      if (found === null) return null;
      if (found.context.serverJson === undefined) this.rows.set(found.context, found.head);
      return found.context;
    });
  }

  /**
   * The items that ever named one of `keys` (by `until`): each item's state at `from`, then every
   * change up to `until`. One statement.
   */
  private readHistories(keys: readonly string[], from: number, until: number): Promise<HistoryRow[]> {
    const itemIn = `(source, item_id) IN (SELECT DISTINCT source, item_id FROM listing_history
      WHERE agent_key IN {keys:Array(String)} AND observed_at <= ${DT('until')})`;
    return this.warehouse.query<HistoryRow>(
      `SELECT ${COLUMNS} FROM (
         SELECT ${COLUMNS} FROM listing_history FINAL WHERE ${itemIn} AND observed_at <= ${DT('from')}
         ORDER BY observed_at DESC, event_id DESC LIMIT 1 BY source, item_id)
       UNION ALL
       SELECT ${COLUMNS}
       FROM listing_history FINAL WHERE ${itemIn} AND observed_at > ${DT('from')} AND observed_at <= ${DT('until')}`,
      { keys: [...keys], from: new Date(from), until: new Date(until) },
    );
  }

  /**
   * The listing events after `since` (up to `until`) of the kept items and of every item that
   * named one of `keys` in that time: what moves kept states on. Copies of a row are told apart
   * by its event id (movedOn), so no FINAL is needed.
   */
  private async readSince(keys: readonly string[], items: readonly HistoryRow[], since: number, until: number): Promise<HistoryRow[]> {
    const inSpan = `observed_at > ${DT('since')} AND observed_at <= ${DT('until')}`;
    // Listings change far less often than agents are probed: most spans have no listing event at
    // all, which one column's scan tells, without the item and key lists' statement.
    const [span] = await this.warehouse.query<{ n: BigIntText }>(`SELECT count() AS n FROM listing_history WHERE ${inSpan}`, {
      since: new Date(since),
      until: new Date(until),
    });
    if (Number(span?.n ?? 0) === 0) return [];
    return this.warehouse.query<HistoryRow>(
      `SELECT ${COLUMNS} FROM listing_history
       WHERE ${inSpan} AND (item_id IN {items:Array(String)}
         OR (source, item_id) IN (SELECT source, item_id FROM listing_history WHERE ${inSpan} AND agent_key IN {keys:Array(String)}))`,
      { keys: [...keys], items: [...new Set(items.map((r) => r.item_id))], since: new Date(since), until: new Date(until) },
    );
  }

  /**
   * Reads the server.json of each of these contexts that has one and does not hold it yet: one
   * statement for those not kept. Contexts of one document share one parse of it.
   */
  async loadServerJson(contexts: ReadonlyArray<ListingContext | null>): Promise<void> {
    const wanted = new Map<string, HistoryRow>();
    // Contexts this resolver did not make (a replay's, stored with their inputs) name their document by hash only.
    const byHash = new Set<string>();
    // This call's documents, whatever the kept ones (a batch may need more than are kept).
    const read = new Map<string, { serverJson: unknown }>();
    for (const c of contexts) {
      if (c === null || c.serverJson !== undefined) continue;
      const sha = c.serverJsonSha256 ?? '';
      if (read.has(sha)) continue;
      const text = this.texts.get(sha);
      if (text !== undefined) read.set(sha, { serverJson: serverJsonOf(text) });
      else {
        const row = this.rows.get(c);
        if (row === undefined) byHash.add(sha);
        else wanted.set(row.server_json_sha256, row);
      }
    }
    if (byHash.size > 0) {
      const texts = await this.warehouse.query<{ sha: string; text: string }>(
        `SELECT server_json_sha256 AS sha, any(server_json) AS text FROM listing_history
         WHERE server_json_sha256 IN {shas:Array(String)} GROUP BY sha`,
        { shas: [...byHash] },
      );
      for (const t of texts) {
        read.set(t.sha, { serverJson: serverJsonOf(t.text) });
        this.texts.set(t.sha, t.text);
      }
    }
    if (wanted.size > 0) {
      const refs = [...wanted.values()];
      // By the table's sort key (source, item_id), then the rows' own ids.
      const texts = await this.warehouse.query<{ sha: string; text: string }>(
        `SELECT server_json_sha256 AS sha, any(server_json) AS text FROM listing_history
         WHERE source IN {sources:Array(String)} AND item_id IN {items:Array(String)} AND event_id IN {ids:Array(String)}
           AND server_json_sha256 IN {shas:Array(String)}
         GROUP BY sha`,
        {
          sources: [...new Set(refs.map((r) => r.source))],
          items: refs.map((r) => r.item_id),
          ids: refs.map((r) => r.event_id),
          shas: [...wanted.keys()],
        },
      );
      for (const t of texts) {
        read.set(t.sha, { serverJson: serverJsonOf(t.text) });
        this.texts.set(t.sha, t.text);
      }
    }
    for (const c of contexts) {
      if (c === null || c.serverJson !== undefined) continue;
      const kept = read.get(c.serverJsonSha256 ?? '');
      if (kept === undefined) throw new Error(`the server.json ${c.serverJsonSha256} is no longer stored`);
      c.serverJson = kept.serverJson;
    }
  }
}

/** Rows by item. */
function byItem(rows: readonly HistoryRow[]): Map<string, HistoryRow[]> {
  const out = new Map<string, HistoryRow[]>();
  for (const r of rows) {
    const list = out.get(itemRef(r));
    if (list) list.push(r);
    else out.set(itemRef(r), [r]);
  }
  return out;
}

/**
 * An agent's item histories from its kept state and the rows read since (by item): each kept
 * item's row, then its newer ones; and every row since of an item that named the agent since
 * (`named`; such an item may have moved on after).
 */
function movedOn(kept: KeptListing, since: ReadonlyMap<string, readonly HistoryRow[]>, named: ReadonlySet<string> = new Set()): Timed[][] {
  const out: Timed[][] = [];
  for (const ref of new Set([...kept.items.keys(), ...named])) {
    const rows = new Map<string, HistoryRow>();
    const keptRow = kept.items.get(ref);
    if (keptRow !== undefined) rows.set(keptRow.event_id, keptRow);
    for (const r of since.get(ref) ?? []) if (fromDateTime64(r.observed_at) > kept.upTo) rows.set(r.event_id, r);
    out.push(timed([...rows.values()]));
  }
  return out;
}

/** A history row with its time parsed once, and its server.json parsed and hashed once (on first use). */
interface Timed {
  row: HistoryRow;
  t: number;
  doc?: { serverJson: unknown; sha256: string };
}

/**
 * Item histories (each ascending by time) by every agent key they ever named: a probe reads only
 * the items of its own agent, so resolving a batch costs its own rows, not batch × items.
 */
function indexHistories(byItem: ReadonlyMap<string, readonly HistoryRow[]>): Map<string, Timed[][]> {
  const byAgent = new Map<string, Timed[][]>();
  for (const rows of byItem.values()) {
    const history = timed(rows);
    for (const key of new Set(rows.map((r) => r.agent_key))) {
      const list = byAgent.get(key) ?? [];
      list.push(history);
      byAgent.set(key, list);
    }
  }
  return byAgent;
}

/** One item's rows ascending by time (ties by event id), each time parsed once. */
function timed(rows: readonly HistoryRow[]): Timed[] {
  return rows
    .map((row) => ({ row, t: fromDateTime64(row.observed_at) }))
    .sort((a, b) => a.t - b.t || (a.row.event_id < b.row.event_id ? -1 : a.row.event_id > b.row.event_id ? 1 : 0));
}

/** The listing context of one agent at time t, from its items' histories. */
export function contextAt(byItem: ReadonlyMap<string, readonly HistoryRow[]>, agentKey: string, t: number): ListingContext | null {
  return contextFrom(indexHistories(byItem).get(agentKey) ?? [], agentKey, t)?.context ?? null;
}

function contextFrom(histories: readonly Timed[][], agentKey: string, t: number): { context: ListingContext; head: HistoryRow } | null {
  const live: Timed[] = [];
  for (const history of histories) {
    let state: Timed | undefined;
    for (const r of history) {
      if (r.t > t) break;
      state = r;
    }
    if (state && state.row.agent_key === agentKey && !TOMBSTONE_STATUSES.has(state.row.status)) live.push(state);
  }
  if (live.length === 0) return null;
  // The item with a server.json speaks for the agent (only the official registry has one), then the newest.
  live.sort(
    (a, b) =>
      Number(b.row.server_json_sha256 !== '') - Number(a.row.server_json_sha256 !== '') ||
      b.t - a.t ||
      a.row.source.localeCompare(b.row.source),
  );
  const head = live[0]!;
  // Read with its text (a caller's own rows): parsed once, shared by every probe that reads the
  // same row (the checker never writes to it). Else the text is read when an input needs it.
  if (head.row.server_json !== undefined) head.doc ??= parsedServerJson(head.row.server_json);
  const serverJson = head.doc !== undefined ? head.doc.serverJson : head.row.server_json_sha256 === '' ? null : undefined;
  const transport = live.map((r) => r.row.endpoint_transport).find(Boolean) ?? null;
  return {
    context: { serverJson, transport, source: head.row.source, serverJsonSha256: head.row.server_json_sha256 },
    head: head.row,
  };
}

function parsedServerJson(text: string): { serverJson: unknown; sha256: string } {
  return { serverJson: serverJsonOf(text), sha256: text === '' ? '' : sha256Hex(text) };
}

function serverJsonOf(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text; // judged as what it is: not a JSON object
  }
}
