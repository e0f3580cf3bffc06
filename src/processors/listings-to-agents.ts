import type { ListingEvent } from '../events/types.js';
import { agentId, agentKey } from '../identity/agent-key.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/**
 * The dedupe processor's sink: listing events become `listings` rows (latest
 * state per source item) and every touched agent is recomputed from all of its
 * listings into `agents`. Both writes are pure functions of what is already in
 * the warehouse plus the batch, so a batch written twice (a crash between the
 * insert and the offset commit) leaves the same rows as queries see them (FINAL).
 */

export const DESCRIPTION_MAX = 500;

export interface ListingRow {
  source: string;
  item_id: string;
  agent_key: string;
  protocol: string;
  name: string;
  description: string;
  version_label: string;
  endpoint_url: string;
  endpoint_transport: string;
  card_url: string;
  server_json: string;
  status: string;
  raw: string;
  raw_truncated: number;
  tombstoned: number;
  first_seen: string;
  last_seen: string;
  last_event_id: string;
  version: string | number;
}

export interface AgentRow {
  agent_id: string;
  agent_key: string;
  protocol: string;
  name: string;
  description: string;
  endpoint_url: string;
  card_url: string;
  sources: string[];
  source_first_seen: Record<string, string>;
  first_seen: string;
  last_seen: string;
  active: number;
  inactive_since: string | null;
  has_server_json: number;
  version: number;
}

const itemRef = (source: string, itemId: string) => `${source}\u0000${itemId}`;
const toDt = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const fromDt = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);

export class ListingsToAgents {
  constructor(private readonly warehouse: Warehouse) {}

  /** Writes one batch of listing events; returns the agent keys it recomputed. */
  async write(events: readonly ListingEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    // The newest event per source item wins within the batch.
    const latest = new Map<string, ListingEvent>();
    const earliest = new Map<string, number>();
    for (const ev of events) {
      const ref = itemRef(ev.source, ev.itemId);
      const cur = latest.get(ref);
      if (!cur || ev.observedAt >= cur.observedAt) latest.set(ref, ev);
      earliest.set(ref, Math.min(earliest.get(ref) ?? Infinity, ev.observedAt));
    }

    const refs = [...latest.keys()];
    const existing = await this.warehouse.query<{ ref: string; first_seen: string; agent_key: string }>(
      `SELECT concat(source, char(0), item_id) AS ref, first_seen, agent_key
       FROM listings FINAL WHERE concat(source, char(0), item_id) IN {refs:Array(String)}`,
      { refs },
    );
    const prior = new Map(existing.map((r) => [r.ref, r]));

    const touched = new Set<string>();
    const rows: ListingRow[] = [];
    for (const [ref, ev] of latest) {
      const key = ev.status === 'invalid' ? null : agentKey(ev.protocol, ev);
      const before = prior.get(ref);
      if (before?.agent_key) touched.add(before.agent_key);
      if (key) touched.add(key);
      const firstSeen = Math.min(earliest.get(ref)!, before ? fromDt(before.first_seen) : Infinity);
      rows.push({
        source: ev.source,
        item_id: ev.itemId,
        agent_key: key ?? '',
        protocol: ev.protocol,
        name: ev.name,
        description: ev.description,
        version_label: ev.version ?? '',
        endpoint_url: ev.endpointUrl ?? '',
        endpoint_transport: ev.endpointTransport ?? '',
        card_url: ev.cardUrl ?? '',
        server_json: ev.serverJson ?? '',
        status: ev.status,
        raw: ev.raw,
        raw_truncated: ev.rawTruncated ? 1 : 0,
        tombstoned: ev.status === 'deleted' ? 1 : 0,
        first_seen: toDt(firstSeen),
        last_seen: toDt(ev.observedAt),
        last_event_id: ev.id,
        version: ev.observedAt,
      });
    }
    await this.warehouse.insert('listings', rows);

    const keys = [...touched];
    if (keys.length > 0) await this.recomputeAgents(keys);
    return keys;
  }

  /** Rebuilds the agents rows of the given keys from every listing that names them. */
  async recomputeAgents(keys: readonly string[]): Promise<void> {
    const listingRows = await this.warehouse.query<ListingRow>(
      `SELECT * FROM listings FINAL WHERE agent_key IN {keys:Array(String)} ORDER BY agent_key, version`,
      { keys: [...keys] },
    );
    const byKey = new Map<string, ListingRow[]>();
    for (const r of listingRows) {
      const list = byKey.get(r.agent_key) ?? [];
      list.push(r);
      byKey.set(r.agent_key, list);
    }
    const agents: AgentRow[] = [];
    for (const [key, rows] of byKey) agents.push(mergeAgent(key, rows));
    if (agents.length > 0) await this.warehouse.insert('agents', agents);
  }
}

/** One agent from all the listings that share its key (pure; exported for unit tests). */
export function mergeAgent(key: string, rows: readonly ListingRow[]): AgentRow {
  const version = (r: ListingRow) => Number(r.version);
  const byNewest = [...rows].sort((a, b) => version(b) - version(a) || a.source.localeCompare(b.source));
  const live = byNewest.filter((r) => r.tombstoned === 0 || (r.tombstoned as unknown) === '0');
  const head = live[0] ?? byNewest[0]!;
  const sourceFirstSeen: Record<string, string> = {};
  for (const r of live) {
    const cur = sourceFirstSeen[r.source];
    if (!cur || r.first_seen < cur) sourceFirstSeen[r.source] = r.first_seen;
  }
  const firstSeen = rows.reduce((m, r) => (r.first_seen < m ? r.first_seen : m), rows[0]!.first_seen);
  const lastSeen = rows.reduce((m, r) => (r.last_seen > m ? r.last_seen : m), rows[0]!.last_seen);
  const maxVersion = Math.max(...rows.map(version));
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
    active: live.length > 0 ? 1 : 0,
    inactive_since: live.length > 0 ? null : toDt(maxVersion),
    has_server_json: live.some((r) => r.server_json !== '') ? 1 : 0,
    version: maxVersion,
  };
}
