import type { BigIntText, Flag, Protocol } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { LIST_CHUNK_MAX, readInRounds } from './rounds.js';

/** Agent lists and search (agent_search_terms, agent_search_rows, clickhouse/0023). */

/** Where a list page starts: after this (natural sort key, agent id). */
export interface AgentListCursor {
  sortKey: string;
  id: string;
}

/** A listed agent as agent_search_rows has it. */
export interface AgentListRow {
  id: string;
  key: string;
  name: string;
  protocol: Protocol;
  sources: string[];
  optOut: string;
  sortKey: string;
}

export interface AgentListQuery {
  /** Lowercased words of the query (see searchWords); [] lists every agent. */
  words: readonly string[];
  protocol: string | null;
  after: AgentListCursor | null;
  limit: number;
  /** Only agents listed by this source. */
  source?: string | null;
  /** Only agents whose latest check (up, down, unknown) or verdict (pass, fail) under `checkerVersion` is this. */
  state?: AgentListState | null;
  checkerVersion?: string;
}

export type AgentListState = 'up' | 'down' | 'unknown' | 'pass' | 'fail';

/** Terms are word prefixes up to this many characters (clickhouse/0023). */
export const SEARCH_TERM_MAX = 24;

/** The words of a search as the index cuts them: lowercased runs of letters and digits. */
export function searchWords(q: string): string[] {
  return [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

const wordMatches = (w: string, nameWords: readonly string[], descWords: readonly string[]) =>
  nameWords.some((n) => n.startsWith(w)) || descWords.includes(w.slice(0, SEARCH_TERM_MAX));

/**
 * A page of active, unhidden agents in natural name order (then id), after a cursor: the postings
 * of one term (the query's longest word, or every agent), read in sort-key order a chunk at a time,
 * each checked against the agent's newest row (stale postings of renamed or delisted agents are
 * skipped; the other words of the query must match too). Reads at most LIST_ROUNDS chunks, so a
 * page costs the same on any index; `next` is where the following page starts (null at the end).
 */
export async function agentListPage(
  wh: ReadOnlyWarehouse,
  q: AgentListQuery,
): Promise<{ rows: AgentListRow[]; next: AgentListCursor | null }> {
  const words = [...q.words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const term = words[0] !== undefined ? words[0].slice(0, SEARCH_TERM_MAX) : q.protocol ? `protocol:${q.protocol}` : '';
  const seen = new Set<string>();
  type Posting = { sort_key: string; agent_id: string; version: BigIntText };
  return readInRounds<AgentListCursor, Posting, AgentListRow>({
    after: q.after,
    limit: q.limit,
    chunk: Math.min(LIST_CHUNK_MAX, 2 * q.limit + 10),
    // `term` leads the ORDER BY although it is fixed: without it the engine sorts the term's whole range instead of reading it in order.
    read: (after, chunk) =>
      wh.query<Posting>(
        `SELECT sort_key, agent_id, version FROM agent_search_terms
         WHERE term = {term:String} AND sort_key >= {sk:String} AND (sort_key > {sk:String} OR agent_id > {id:String})
         ORDER BY term, sort_key, agent_id LIMIT {chunk:UInt32}`,
        { term, sk: after?.sortKey ?? '', id: after?.id ?? '', chunk },
      ),
    keep: async (postings) => {
      const ids = [...new Set(postings.map((p) => p.agent_id))];
      // Every stored version of these agents (no FINAL: cheaper on a page of ids), the newest kept
      // below; the words only when the query has more than the one its postings matched.
      const rows =
        ids.length === 0
          ? []
          : await wh.query<{
              agent_id: string;
              agent_key: string;
              name: string;
              protocol: Protocol;
              sources: string[];
              active: Flag;
              opt_out: string;
              sort_key: string;
              name_words?: string[];
              desc_words?: string[];
              version: BigIntText;
            }>(
              `SELECT agent_id, agent_key, name, protocol, sources, active, opt_out, sort_key, ${words.length > 1 ? 'name_words, desc_words, ' : ''}version
         FROM agent_search_rows WHERE agent_id IN {ids:Array(String)}`,
              { ids },
            );
      const current = new Map<string, (typeof rows)[number]>();
      for (const r of rows) {
        const cur = current.get(r.agent_id);
        if (!cur || BigInt(r.version) > BigInt(cur.version)) current.set(r.agent_id, r);
      }
      // The state filter reads these agents' agent_status rows by key (a chunk at most).
      const inState = q.state
        ? await agentKeysInState(
            wh,
            q.checkerVersion ?? '',
            q.state,
            [...current.values()].map((r) => r.agent_key),
          )
        : null;
      const found: AgentListRow[] = [];
      for (const p of postings) {
        const r = current.get(p.agent_id);
        if (!r || seen.has(p.agent_id) || String(r.version) !== String(p.version) || r.sort_key !== p.sort_key) continue;
        if (Number(r.active) !== 1 || r.opt_out === 'hidden' || (q.protocol && r.protocol !== q.protocol)) continue;
        if ((q.source && !r.sources.includes(q.source)) || (inState && !inState.has(r.agent_key))) continue;
        if (!words.slice(1).every((w) => wordMatches(w, r.name_words ?? [], r.desc_words ?? []))) continue;
        seen.add(p.agent_id);
        found.push({
          id: r.agent_id,
          key: r.agent_key,
          name: r.name,
          protocol: r.protocol,
          sources: r.sources,
          optOut: r.opt_out,
          sortKey: r.sort_key,
        });
      }
      return found;
    },
    resumeAfter: (postings) => {
      const tail = postings[postings.length - 1]!;
      return { sortKey: tail.sort_key, id: tail.agent_id };
    },
    cursorOf: (r) => ({ sortKey: r.sortKey, id: r.id }),
  });
}

/** Which of these agents' latest check or verdict under a checker version is `state` (agent_status by key). */
async function agentKeysInState(
  wh: ReadOnlyWarehouse,
  checkerVersion: string,
  state: AgentListState,
  keys: readonly string[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const column = state === 'pass' || state === 'fail' ? 'latest_result' : 'latest_uptime';
  const rows = await wh.query<{ agent_key: string }>(
    `SELECT agent_key FROM agent_status FINAL
     WHERE checker_version = {cv:String} AND agent_key IN {keys:Array(String)} AND ${column} = {state:String}`,
    { cv: checkerVersion, keys: [...new Set(keys)], state },
  );
  return new Set(rows.map((r) => r.agent_key));
}
