import type { BigIntText, DateTimeText, Flag, Protocol } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { LIST_CHUNK_MAX, readInRounds } from './rounds.js';

/**
 * Agents and their listings as the API serves them (agents, listings), and agent names by key.
 * Rows come back as the port returns them (see rows.ts); turning them into responses is the API's job.
 */

/** An agents row as the API names its fields. */
export interface AgentApiRow {
  id: string;
  key: string;
  protocol: Protocol;
  name: string;
  description: string;
  endpointUrl: string;
  cardUrl: string;
  sources: string[];
  sourceFirstSeen: Record<string, DateTimeText>;
  firstSeen: DateTimeText;
  lastSeen: DateTimeText;
  /** `active = 1` comes back as 0 | 1 (and is served so). */
  active: Flag;
  inactiveSince: DateTimeText | null;
  hasServerJson: Flag;
}

const AGENT_COLUMNS = `agent_id AS id, agent_key AS key, protocol, name, description, endpoint_url AS endpointUrl,
  card_url AS cardUrl, sources, source_first_seen AS sourceFirstSeen, first_seen AS firstSeen,
  last_seen AS lastSeen, active = 1 AS active, inactive_since AS inactiveSince, has_server_json = 1 AS hasServerJson`;

export interface AgentPageFilter {
  /** Agent keys after this one ('' from the start). */
  after: string;
  limit: number;
  protocol?: string | undefined;
  source?: string | undefined;
  active: 'true' | 'false' | 'all';
}

/**
 * A page of agents in key order after `after`, hidden ones never (the owners' opt-out), with the key the
 * next page starts after (null at the end). Read in rounds, as search reads (readInRounds): the
 * next stretch of keys, then that stretch's stored rows, each agent's newest version kept and
 * the filter applied here, so a page reads a bounded stretch of the key order, across parts too,
 * and a filtered page can come back short, or empty, with a next page. Neither read uses FINAL:
 * on a large table FINAL costs more than the rows it reads (about 15–25 ms a query at 1M agents
 * for a stretch of 16k rows), and the newest version of a stretch is easy to keep by hand.
 */
export async function agentsPage(wh: ReadOnlyWarehouse, f: AgentPageFilter): Promise<{ rows: AgentApiRow[]; next: string | null }> {
  // Unfiltered (active agents, the default) a stretch of twice a page is enough, unless many
  // agents in it are inactive or hidden; a filter that can match few reads the longest stretch.
  const filtered = Boolean(f.protocol || f.source || f.active !== 'true');
  type Stored = AgentApiRow & { optOut: string; version: BigIntText };
  let lastShown = '';
  return readInRounds<string, { agent_key: string }, AgentApiRow>({
    after: f.after,
    limit: f.limit,
    chunk: filtered ? LIST_CHUNK_MAX : Math.min(LIST_CHUNK_MAX, 2 * (f.limit + 1)),
    // A key stored twice (not merged yet) only shortens the stretch.
    read: (after, chunk) =>
      wh.query<{ agent_key: string }>(
        'SELECT agent_key FROM agents WHERE agent_key > {after:String} ORDER BY agent_key LIMIT {chunk:UInt32}',
        { after: after ?? '', chunk },
      ),
    keep: async (keys) => {
      if (keys.length === 0) return [];
      const stored = await wh.query<Stored>(
        `SELECT ${AGENT_COLUMNS}, opt_out AS optOut, version FROM agents
         WHERE agent_key >= {first:String} AND agent_key <= {last:String}`,
        { first: keys[0]!.agent_key, last: keys[keys.length - 1]!.agent_key },
      );
      // Each agent's newest version, as ReplacingMergeTree(version) keeps it, in key order.
      const newest = new Map<string, Stored>();
      for (const r of stored) {
        const cur = newest.get(r.key);
        if (!cur || BigInt(r.version) >= BigInt(cur.version)) newest.set(r.key, r);
      }
      const shown = [...newest.values()].filter((r) => r.optOut !== 'hidden').sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      lastShown = shown.at(-1)?.key ?? '';
      return shown
        .filter((r) => (!f.protocol || r.protocol === f.protocol) && (!f.source || r.sources.includes(f.source)))
        .filter((r) => f.active === 'all' || Number(r.active) === (f.active === 'true' ? 1 : 0))
        .map(({ optOut: _o, version: _v, ...row }) => row);
    },
    // The next stretch starts after its last agent that is not hidden (a cursor must not show a
    // hidden agent's key), or after its end when every agent in it is hidden.
    resumeAfter: (keys) => lastShown || keys[keys.length - 1]!.agent_key,
    cursorOf: (row) => row.key,
  });
}

/**
 * One agent by its short id, unless hidden: the id's key from agent_search_rows (keyed by id),
 * then the agents row by its key, so both reads are by primary key.
 */
export async function agentById(wh: ReadOnlyWarehouse, id: string): Promise<AgentApiRow | null> {
  const [row] = await wh.query<AgentApiRow>(
    `SELECT ${AGENT_COLUMNS} FROM agents FINAL
     WHERE agent_key IN (SELECT agent_key FROM agent_search_rows WHERE agent_id = {id:String})
       AND agent_id = {id:String} AND opt_out != 'hidden' LIMIT 1`,
    { id },
  );
  return row ?? null;
}

export interface AgentListingApiRow {
  source: string;
  itemId: string;
  name: string;
  version: string;
  endpointUrl: string;
  cardUrl: string;
  tombstoned: Flag;
  firstSeen: DateTimeText;
  lastSeen: DateTimeText;
}

/** Every listing item (tombstoned ones too) of an agent key. */
export async function listingsOfAgent(wh: ReadOnlyWarehouse, key: string): Promise<AgentListingApiRow[]> {
  return wh.query<AgentListingApiRow>(
    `SELECT source, item_id AS itemId, name, version_label AS version, endpoint_url AS endpointUrl,
            card_url AS cardUrl, tombstoned = 1 AS tombstoned, first_seen AS firstSeen, last_seen AS lastSeen
     FROM listings FINAL WHERE agent_key = {key:String} ORDER BY source, item_id`,
    { key },
  );
}

/** Agent names by key (keys without an agent row are absent). */
export async function agentNames(wh: ReadOnlyWarehouse, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await wh.query<{ agent_key: string; name: string }>(
    'SELECT agent_key, name FROM agents FINAL WHERE agent_key IN {keys:Array(String)}',
    { keys: [...keys] },
  );
  return new Map(rows.map((r) => [r.agent_key, r.name]));
}
