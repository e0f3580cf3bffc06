import type { Warehouse } from '../../warehouse/warehouse.js';
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

const TOMBSTONES = new Set(['deleted', 'delisted', 'invalid']);
const ms = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);

/**
 * Resolves, for each (agent key, time) of a batch of probes, what the agent's listings
 * said at that time: the newest server.json of a live listing at or before the probe.
 */
export class ListingContextResolver {
  constructor(private readonly warehouse: Warehouse) {}

  async resolve(probes: ReadonlyArray<{ agentKey: string; observedAt: number }>): Promise<Array<ListingContext | null>> {
    if (probes.length === 0) return [];
    const keys = [...new Set(probes.map((p) => p.agentKey))];
    const until = new Date(Math.max(...probes.map((p) => p.observedAt)));
    const rows = await this.warehouse.query<HistoryRow>(
      `SELECT agent_key, observed_at, source, item_id, status, endpoint_transport, server_json
       FROM listing_history FINAL
       WHERE agent_key IN {keys:Array(String)} AND observed_at <= {until:DateTime64(3, 'UTC')}
       ORDER BY agent_key, observed_at, event_id`,
      { keys, until },
    );
    const byKey = new Map<string, HistoryRow[]>();
    for (const r of rows) {
      const list = byKey.get(r.agent_key) ?? [];
      list.push(r);
      byKey.set(r.agent_key, list);
    }
    return probes.map((p) => contextAt(byKey.get(p.agentKey) ?? [], p.observedAt));
  }
}

/** The listing context at time t from an agent's history rows (ascending by time). */
export function contextAt(rows: readonly HistoryRow[], t: number): ListingContext | null {
  const seen = rows.filter((r) => ms(r.observed_at) <= t);
  if (seen.length === 0) return null;
  // Each listing item's newest state at t; only live ones list the agent.
  const latestPerItem = new Map<string, HistoryRow>();
  for (const r of seen) latestPerItem.set(`${r.source}\u0000${r.item_id}`, r);
  const live = [...latestPerItem.values()].filter((r) => !TOMBSTONES.has(r.status));
  const withDoc = live.filter((r) => r.server_json !== '').sort((a, b) => ms(a.observed_at) - ms(b.observed_at)).at(-1);
  let serverJson: unknown = null;
  if (withDoc) {
    try {
      serverJson = JSON.parse(withDoc.server_json);
    } catch {
      serverJson = withDoc.server_json; // judged as what it is: not a JSON object
    }
  }
  const transport = live.map((r) => r.endpoint_transport).filter(Boolean).at(-1) ?? null;
  return { serverJson, transport, source: seen[0]!.source };
}
