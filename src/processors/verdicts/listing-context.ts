import { sha256Hex } from '../../core/canonical-json.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { TOMBSTONE_STATUSES } from '../listings-to-agents.js';
import type { ListingContext } from './observation.js';

export interface HistoryRow {
  agent_key: string;
  observed_at: string;
  source: string;
  item_id: string;
  status: string;
  endpoint_transport: string;
  server_json: string;
}

const itemRef = (r: { source: string; item_id: string }) => `${r.source}\u0000${r.item_id}`;

/**
 * Resolves, for each (agent key, time) of a batch of probes, what the agent's listings
 * said at that time: every listing item that ever named the agent, in the state it had at
 * the probe (its newest event at or before it). An item counts only while it is live and
 * still names this agent, so an item that moved to another URL no longer speaks for it.
 */
export class ListingContextResolver {
  constructor(private readonly warehouse: Warehouse) {}

  async resolve(probes: ReadonlyArray<{ agentKey: string; observedAt: number }>): Promise<Array<ListingContext | null>> {
    if (probes.length === 0) return [];
    const keys = [...new Set(probes.map((p) => p.agentKey))];
    const times = probes.map((p) => p.observedAt);
    const from = new Date(Math.min(...times));
    const until = new Date(Math.max(...times));
    // One statement a batch: the items that ever named one of its agents (by then), each item's
    // state just before the batch's first probe, then every change during the batch's span.
    const itemIn = `(source, item_id) IN (SELECT DISTINCT source, item_id FROM listing_history
      WHERE agent_key IN {keys:Array(String)} AND observed_at <= {until:DateTime64(3, 'UTC')})`;
    const rows = await this.warehouse.query<HistoryRow>(
      `SELECT agent_key, observed_at, source, item_id, status, endpoint_transport, server_json FROM (
         SELECT * FROM listing_history FINAL WHERE ${itemIn} AND observed_at <= {from:DateTime64(3, 'UTC')}
         ORDER BY observed_at DESC, event_id DESC LIMIT 1 BY source, item_id)
       UNION ALL
       SELECT agent_key, observed_at, source, item_id, status, endpoint_transport, server_json
       FROM listing_history FINAL WHERE ${itemIn} AND observed_at > {from:DateTime64(3, 'UTC')} AND observed_at <= {until:DateTime64(3, 'UTC')}`,
      { keys, from, until },
    );
    if (rows.length === 0) return probes.map(() => null);
    const byItem = new Map<string, HistoryRow[]>();
    for (const r of rows) {
      const list = byItem.get(itemRef(r)) ?? [];
      list.push(r);
      byItem.set(itemRef(r), list);
    }
    const byAgent = indexHistories(byItem);
    return probes.map((p) => contextFrom(byAgent.get(p.agentKey) ?? [], p.agentKey, p.observedAt));
  }
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
    const history = rows.map((row) => ({ row, t: fromDateTime64(row.observed_at) })).sort((a, b) => a.t - b.t);
    for (const key of new Set(rows.map((r) => r.agent_key))) {
      const list = byAgent.get(key) ?? [];
      list.push(history);
      byAgent.set(key, list);
    }
  }
  return byAgent;
}

/** The listing context of one agent at time t, from its items' histories. */
export function contextAt(byItem: ReadonlyMap<string, readonly HistoryRow[]>, agentKey: string, t: number): ListingContext | null {
  return contextFrom(indexHistories(byItem).get(agentKey) ?? [], agentKey, t);
}

function contextFrom(histories: readonly Timed[][], agentKey: string, t: number): ListingContext | null {
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
    (a, b) => Number(b.row.server_json !== '') - Number(a.row.server_json !== '') || b.t - a.t || a.row.source.localeCompare(b.row.source),
  );
  const head = live[0]!;
  // Every probe of the agent in the batch reads the same row: parsed and hashed once, shared (the checker never writes to it).
  head.doc ??= parsedServerJson(head.row.server_json);
  const transport = live.map((r) => r.row.endpoint_transport).find(Boolean) ?? null;
  return { serverJson: head.doc.serverJson, transport, source: head.row.source, serverJsonSha256: head.doc.sha256 };
}

function parsedServerJson(text: string): { serverJson: unknown; sha256: string } {
  if (text === '') return { serverJson: null, sha256: '' };
  let serverJson: unknown;
  try {
    serverJson = JSON.parse(text);
  } catch {
    serverJson = text; // judged as what it is: not a JSON object
  }
  return { serverJson, sha256: sha256Hex(text) };
}
