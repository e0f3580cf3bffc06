import { createHash } from 'node:crypto';
import type { AgentChangeEvent, ListingEvent } from '../events/types.js';
import { agentId, agentKey } from '../identity/agent-key.js';
import { optOutProvider, type OptOutList, type OptOutProvider, type OptOutSource } from '../identity/opt-out.js';
import type { Logger } from '../log.js';
import { indexAgents } from '../warehouse/search/index-writer.js';
import { fromDateTime64, toDateTime64 } from '../warehouse/time.js';
import type { Flag, AgentRow as StoredAgentRow, ListingRow as StoredListingRow } from '../warehouse/rows.js';
import type { ReadOnlyWarehouse, Warehouse } from '../warehouse/warehouse.js';
import { deriveListingChanges, type ListingCause } from './changes/derive.js';

/**
 * The dedupe processor's sink: listing events become `listings` rows (latest
 * state per source item) and every touched agent is recomputed from all of its
 * listings into `agents`. Both writes are pure functions of what is already in
 * the warehouse plus the batch (and the owners' opt-out list), so a batch written
 * twice (a crash between the insert and the offset commit) leaves the same rows as
 * queries see them (FINAL).
 *
 * A listing whose status is `deleted` (the registry's own tombstone) or `delisted`
 * (the source's complete pass no longer listed it) is tombstoned: it no longer lists
 * its agent. An agent none of whose listings is live is `active = 0` with
 * `inactive_since`; its row and its listings stay, so its history stays queryable.
 */

export const DESCRIPTION_MAX = 500;

/** Listing statuses that mean "this source no longer lists the item". */
export const TOMBSTONE_STATUSES: ReadonlySet<string> = new Set(['deleted', 'delisted']);

/** A listing row as this processor writes it (version as a number) or reads it back. */
export type ListingRow = Omit<StoredListingRow, 'version'> & { version: string | number };
/** An agent row as this processor writes it. */
export type AgentRow = Omit<StoredAgentRow, 'version'> & { version: number };

// ---------------------------------------------------------------------------
// Owners' opt-outs (Methods §9)

export interface ListingsToAgentsOptions {
  /** Owners' opt-outs: a provider, a fixed list, or the path of the opt-out file (Config.optOutFile). */
  optOut?: OptOutSource;
  log?: Logger;
  /**
   * Receives the `listed` / `delisted` changes of a batch (agents that became active or
   * inactive), before the agents rows are written: a crash in between derives them again from
   * the same stored rows (same ids), while a crash after the write already published them.
   * Without it no change is derived (and no prior row read).
   */
  onAgentChanges?: (changes: AgentChangeEvent[]) => Promise<void>;
}

// ---------------------------------------------------------------------------

const itemRef = (source: string, itemId: string) => `${source}\u0000${itemId}`;
const toDt = toDateTime64;
const fromDt = fromDateTime64;
const isTombstone = (status: string) => TOMBSTONE_STATUSES.has(status);

/**
 * (source, item_id) is the listings sort key; a tuple IN over it reads only the granules it
 * needs. Arrays of tuples cannot be bound as one parameter, so they travel as two arrays.
 */
const ITEM_IN = '(source, item_id) IN (SELECT arrayJoin(arrayZip({sources:Array(String)}, {items:Array(String)})))';
const itemParams = (refs: ReadonlyArray<readonly [string, string]>) => ({ sources: refs.map((r) => r[0]), items: refs.map((r) => r[1]) });

/** The listing columns the agents are merged from (never the bulky raw item). */
const MERGE_COLUMNS =
  'source, item_id, agent_key, protocol, name, description, version_label, endpoint_url, endpoint_transport, card_url, ' +
  "server_json, status, '' AS raw, raw_truncated, tombstoned, content_hash, changed_at, first_seen, last_seen, last_event_id, version";

/** Whether each of these agents' stored row is active (keys without a row are absent). */
async function agentsActive(wh: ReadOnlyWarehouse, keys: readonly string[]): Promise<Map<string, boolean>> {
  if (keys.length === 0) return new Map();
  const rows = await wh.query<{ agent_key: string; active: Flag }>(
    'SELECT agent_key, active FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
    { keys: [...keys] },
  );
  return new Map(rows.map((r) => [r.agent_key, Number(r.active) === 1]));
}

/** What a listing says about its agent, hashed: a change here is a change the scheduler rechecks. */
export function contentHash(l: {
  name: string;
  description: string;
  version: string | null;
  endpointUrl: string | null;
  endpointTransport: string | null;
  cardUrl: string | null;
  serverJson: string | null;
}): string {
  return createHash('sha256')
    .update(JSON.stringify([l.name, l.description, l.version, l.endpointUrl, l.endpointTransport, l.cardUrl, l.serverJson]))
    .digest('hex')
    .slice(0, 32);
}

export class ListingsToAgents {
  private readonly optOut: OptOutProvider;
  private readonly onAgentChanges: ListingsToAgentsOptions['onAgentChanges'];

  constructor(
    private readonly warehouse: Warehouse,
    opts: ListingsToAgentsOptions = {},
  ) {
    this.optOut = optOutProvider(opts.optOut, opts.log);
    this.onAgentChanges = opts.onAgentChanges;
  }

  /** Writes one batch of listing events; returns the agent keys it recomputed. */
  async write(events: readonly ListingEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    // The newest event per source item wins within the batch.
    const latest = new Map<string, ListingEvent>();
    const latestLive = new Map<string, ListingEvent>();
    const earliest = new Map<string, number>();
    for (const ev of events) {
      const ref = itemRef(ev.source, ev.itemId);
      const cur = latest.get(ref);
      if (!cur || ev.observedAt >= cur.observedAt) latest.set(ref, ev);
      if (!isTombstone(ev.status) && ev.status !== 'invalid' && ev.observedAt >= (latestLive.get(ref)?.observedAt ?? -Infinity)) {
        latestLive.set(ref, ev);
      }
      earliest.set(ref, Math.min(earliest.get(ref) ?? Infinity, ev.observedAt));
    }

    const refs = [...latest.keys()];
    const existing = await this.warehouse.query<{
      source: string;
      item_id: string;
      first_seen: string;
      agent_key: string;
      content_hash: string;
      changed_at: string;
    }>(
      `SELECT source, item_id, first_seen, agent_key, content_hash, changed_at FROM listings FINAL WHERE ${ITEM_IN}`,
      itemParams([...latest.values()].map((ev) => [ev.source, ev.itemId])),
    );
    const prior = new Map(existing.map((r) => [itemRef(r.source, r.item_id), r]));

    // A delisting (or any tombstone that names no URL of its own) carries the item's last live
    // listing forward: from this batch when it is here, else from the stored row.
    const carries = (ev: ListingEvent) => ev.status === 'delisted' || (isTombstone(ev.status) && !agentKey(ev.protocol, ev));
    const needRows = refs.filter((ref) => carries(latest.get(ref)!) && !latestLive.has(ref) && prior.has(ref));
    const priorRows = new Map<string, ListingRow>();
    if (needRows.length > 0) {
      const rows = await this.warehouse.query<ListingRow>(
        `SELECT * FROM listings FINAL WHERE ${ITEM_IN}`,
        itemParams(needRows.map((ref) => ref.split('\u0000') as [string, string])),
      );
      for (const row of rows) priorRows.set(itemRef(row.source, row.item_id), row);
    }

    // The newest event time that touched each agent key: its agents row never goes back in version.
    const touched = new Map<string, number>();
    // The events that list each agent key (every one, in batch order) and the newest events per
    // item that touched it without listing it: the causes of listed / delisted (derive.ts).
    const causes = new Map<string, ListingCause[]>();
    const cause = (key: string, ev: ListingEvent, live: boolean) =>
      causes.set(key, [...(causes.get(key) ?? []), { id: ev.id, observedAt: ev.observedAt, live }]);
    for (const ev of events) {
      const key = isTombstone(ev.status) || ev.status === 'invalid' ? null : agentKey(ev.protocol, ev);
      if (key) cause(key, ev, true);
    }
    const touch = (key: string, at: number, ev?: ListingEvent, live = false) => {
      touched.set(key, Math.max(touched.get(key) ?? 0, at));
      if (ev && !live) cause(key, ev, false);
    };
    const rows: ListingRow[] = [];
    for (const [ref, ev] of latest) {
      const before = prior.get(ref);
      if (before?.agent_key) touch(before.agent_key, ev.observedAt, ev);
      const firstSeen = toDt(Math.min(earliest.get(ref)!, before ? fromDt(before.first_seen) : Infinity));
      const tomb = isTombstone(ev.status) ? 1 : 0;
      const carry = carries(ev);
      const live = carry ? latestLive.get(ref) : undefined;
      const kept = carry && !live ? priorRows.get(ref) : undefined;
      if (kept) {
        rows.push({ ...kept, status: ev.status, tombstoned: 1, first_seen: firstSeen, last_event_id: ev.id, version: ev.observedAt });
        if (kept.agent_key) touch(kept.agent_key, ev.observedAt, ev);
        continue;
      }
      const src = live ?? ev;
      const key = ev.status === 'invalid' ? null : agentKey(src.protocol, src);
      if (key) touch(key, ev.observedAt, ev, !tomb && ev.status !== 'invalid');
      const hash = contentHash(src);
      const changedAt = before && before.content_hash === hash ? before.changed_at : toDt(src.observedAt);
      rows.push({
        source: ev.source,
        item_id: ev.itemId,
        agent_key: key ?? '',
        protocol: src.protocol,
        name: src.name,
        description: src.description,
        version_label: src.version ?? '',
        endpoint_url: src.endpointUrl ?? '',
        endpoint_transport: src.endpointTransport ?? '',
        card_url: src.cardUrl ?? '',
        server_json: src.serverJson ?? '',
        status: ev.status,
        raw: src.raw,
        raw_truncated: src.rawTruncated ? 1 : 0,
        tombstoned: tomb,
        content_hash: hash,
        changed_at: changedAt,
        first_seen: firstSeen,
        // A delisting is not a sighting: the item was last seen when it was last listed.
        last_seen: toDt(live ? live.observedAt : ev.observedAt),
        last_event_id: ev.id,
        version: ev.observedAt,
      });
    }
    await this.warehouse.insert('listings', rows);

    if (touched.size > 0) await this.recomputeAgents(touched, causes);
    return [...touched.keys()];
  }

  /**
   * Rebuilds the agents rows of the given keys (each with the time of the newest event that
   * touched it) from every listing that names them. A row's version is at least that time, so a
   * recomputed agent never loses to an older stored row. A key no listing names any more (its
   * only listing changed URL or became invalid) keeps its row, marked inactive as of that time.
   */
  async recomputeAgents(
    touched: ReadonlyMap<string, number>,
    causes: ReadonlyMap<string, readonly ListingCause[]> = new Map(),
  ): Promise<void> {
    const keys = [...touched.keys()];
    const listingRows = await this.warehouse.query<ListingRow>(
      `SELECT ${MERGE_COLUMNS} FROM listings FINAL WHERE agent_key IN {keys:Array(String)} ORDER BY agent_key, version`,
      { keys },
    );
    const byKey = new Map<string, ListingRow[]>();
    for (const r of listingRows) {
      const list = byKey.get(r.agent_key) ?? [];
      list.push(r);
      byKey.set(r.agent_key, list);
    }
    const optOut = this.optOut.current();
    const agents: AgentRow[] = [];
    for (const [key, rows] of byKey) agents.push(mergeAgent(key, rows, optOut, touched.get(key) ?? 0));

    const orphans = keys.filter((k) => !byKey.has(k));
    if (orphans.length > 0) {
      const stale = await this.warehouse.query<AgentRow>(
        `SELECT * FROM agents FINAL WHERE agent_key IN {keys:Array(String)} AND active = 1`,
        { keys: orphans },
      );
      for (const a of stale) {
        const version = Math.max(touched.get(a.agent_key) ?? 0, Number(a.version) + 1);
        agents.push({ ...a, sources: [], source_first_seen: {}, active: 0, inactive_since: toDt(version), version });
      }
    }
    if (agents.length > 0 && this.onAgentChanges) {
      const prior = await agentsActive(
        this.warehouse,
        agents.map((a) => a.agent_key),
      );
      const changes = deriveListingChanges(
        agents.map((a) => ({ agentKey: a.agent_key, protocol: a.protocol, name: a.name, active: a.active === 1 })),
        prior,
        causes,
      );
      if (changes.length > 0) await this.onAgentChanges(changes);
    }
    if (agents.length > 0) await this.warehouse.insert('agents', agents);
    // The search index follows the agents rows in the same batch (docs/SEARCH.md).
    if (agents.length > 0)
      await indexAgents(
        this.warehouse,
        agents.map((a) => a.agent_key),
      );
  }
}

/** One agent from all the listings that share its key (pure; exported for unit tests). */
export function mergeAgent(key: string, rows: readonly ListingRow[], optOut?: OptOutList, touchedAt = 0): AgentRow {
  const version = (r: ListingRow) => Number(r.version);
  const byNewest = [...rows].sort((a, b) => version(b) - version(a) || a.source.localeCompare(b.source));
  const live = byNewest.filter((r) => Number(r.tombstoned) === 0 && !isTombstone(r.status));
  const head = live[0] ?? byNewest[0]!;
  const sourceFirstSeen: Record<string, string> = {};
  for (const r of live) {
    const cur = sourceFirstSeen[r.source];
    if (!cur || r.first_seen < cur) sourceFirstSeen[r.source] = r.first_seen;
  }
  const firstSeen = rows.reduce((m, r) => (r.first_seen < m ? r.first_seen : m), rows[0]!.first_seen);
  const lastSeen = rows.reduce((m, r) => (r.last_seen > m ? r.last_seen : m), rows[0]!.last_seen);
  const maxVersion = Math.max(touchedAt, ...rows.map(version));
  const changedAt = (live.length > 0 ? live : rows).reduce((m, r) => (r.changed_at > m ? r.changed_at : m), '');
  const opt = optOut?.lookup({ agent_key: key, endpoint_url: head.endpoint_url, card_url: head.card_url }) ?? null;
  return {
    agent_id: agentId(key),
    agent_key: key,
    protocol: head.protocol,
    name: head.name,
    description: [...head.description].slice(0, DESCRIPTION_MAX).join(''),
    endpoint_url: head.endpoint_url,
    card_url: head.card_url,
    sources: Object.keys(sourceFirstSeen).sort(),
    source_first_seen: sourceFirstSeen,
    first_seen: firstSeen,
    last_seen: lastSeen,
    changed_at: changedAt || firstSeen,
    active: live.length > 0 ? 1 : 0,
    inactive_since: live.length > 0 ? null : toDt(maxVersion),
    has_server_json: live.some((r) => r.server_json !== '') ? 1 : 0,
    opt_out: opt?.mode ?? '',
    opt_out_reason: opt?.reason ?? '',
    version: maxVersion,
  };
}
