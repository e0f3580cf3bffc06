import { createHash } from 'node:crypto';
import type { Flag, Protocol } from '../rows.js';
import type { InsertRow } from '../tables.js';
import type { ReadOnlyWarehouse, Warehouse } from '../warehouse.js';
import { documentImpacts } from './bm25f.js';
import { searchDocument, type SearchSource } from './fields.js';

/**
 * The search index writer (docs/SEARCH.md): recomputes the search documents of some agents from
 * what the warehouse holds (agents, live listings, the card named by their last judged probe) and
 * writes the rows that changed. A function of the warehouse state: a batch written twice writes
 * nothing the second time, and a rebuild from the topics writes the same rows.
 */

/** Characters of the description a search document keeps for display. */
export const DISPLAY_DESCRIPTION_MAX = 500;
/** Agents read per round, at most. */
const ROUND = 500;

/** What one agent's index rows are, computed from its source (pure). */
export interface IndexedAgent {
  document: InsertRow<'search_documents'>;
  impacts: Map<string, number>;
}

/** The content id of an indexed text: the first 8 bytes of its SHA-256, as a decimal UInt64. */
export function contentId(impacts: ReadonlyMap<string, number>, extra: string): string {
  const h = createHash('sha256')
    .update(JSON.stringify([...impacts].sort((a, b) => (a[0] < b[0] ? -1 : 1))))
    .update(extra)
    .digest();
  return h.readBigUInt64BE(0).toString();
}

export interface AgentForIndex {
  agentId: string;
  agentKey: string;
  protocol: Protocol;
  sources: string[];
  version: number | string;
  listable: boolean;
  cardSha256: string;
}

/** An agent's search document row and term impacts (pure: the benchmark and the writer share it). */
export function indexAgent(a: AgentForIndex, src: SearchSource): IndexedAgent {
  const doc = searchDocument(src);
  const impacts = a.listable ? documentImpacts(doc.fields) : new Map<string, number>();
  // The postings carry the facets, so a change of facets is a change of content (new postings).
  const content = a.listable
    ? contentId(impacts, JSON.stringify([doc.title, doc.transports, doc.authRequired, a.protocol, a.sources]))
    : '0';
  return {
    impacts,
    document: {
      agent_id: a.agentId,
      agent_key: a.agentKey,
      version: a.version,
      listable: (a.listable ? 1 : 0) as Flag,
      content,
      card_sha256: a.cardSha256,
      protocol: a.protocol,
      sources: a.sources,
      transports: doc.transports,
      auth_required: (doc.authRequired ? 1 : 0) as Flag,
      name: src.name,
      title: doc.title,
      description: src.description.slice(0, DISPLAY_DESCRIPTION_MAX),
      impacts: Object.fromEntries(impacts),
    },
  };
}

/** What a document's postings carry besides their term: the facets a query filters and counts by. */
export type FacetValues = Pick<InsertRow<'search_documents'>, 'protocol' | 'sources' | 'transports' | 'auth_required'>;

const postingFacets = (x: FacetValues): FacetValues => ({
  protocol: x.protocol,
  sources: x.sources,
  transports: x.transports,
  auth_required: (Number(x.auth_required) === 1 ? 1 : 0) as Flag,
});

export interface IndexChanges {
  postings: InsertRow<'search_term_postings'>[];
  terms: InsertRow<'search_terms'>[];
  facets: InsertRow<'search_term_facets'>[];
}

/**
 * The postings, dictionary deltas and facet deltas that move a document from `before` (its stored
 * terms and facets, or none) to `after`. The facet deltas move each term the document has from its
 * old facets to its new ones: only the terms gained and lost when the facets stay, every term when
 * they change.
 */
export function indexChanges(
  after: IndexedAgent,
  before: ({ content: string; terms: readonly string[] } & FacetValues) | null,
): IndexChanges {
  const d = after.document;
  if (before && before.content === String(d.content)) return { postings: [], terms: [], facets: [] };
  const postings = [...after.impacts].map(([term, impact]) => ({
    term,
    rank: 65535 - impact,
    agent_id: d.agent_id,
    content: d.content,
    ...postingFacets(d),
  }));
  const now = new Set(after.impacts.keys());
  const old = new Set(before?.terms ?? []);
  const sameFacets = before !== null && JSON.stringify(postingFacets(before)) === JSON.stringify(postingFacets(d));
  const facets: InsertRow<'search_term_facets'>[] = [];
  for (const t of now) if (!sameFacets || !old.has(t)) facets.push({ term: t, ...postingFacets(d), agents: 1 });
  if (before) for (const t of old) if (!sameFacets || !now.has(t)) facets.push({ term: t, ...postingFacets(before), agents: -1 });
  // The empty term counts the documents with terms.
  if (now.size > 0) now.add('');
  if (old.size > 0) old.add('');
  const terms: InsertRow<'search_terms'>[] = [];
  for (const t of now) if (!old.has(t)) terms.push({ term: t, df: 1 });
  for (const t of old) if (!now.has(t)) terms.push({ term: t, df: -1 });
  return { postings, terms, facets };
}

/** Card hashes seen by the probes (agent key → document SHA-256 of its card, newest known). */
export type CardsSeen = ReadonlyMap<string, string>;

/**
 * Recomputes and writes the search documents of these agents (by key). `cards` names a newer card
 * for some of them (the verdict processor passes what its batch judged); the others keep the card
 * their document names. Postings go first, then the dictionary's and facets' deltas, then the document that makes
 * them current: a reader never sees a document whose postings are not written.
 */
export async function indexAgents(wh: Warehouse, keys: readonly string[], cards: CardsSeen = new Map()): Promise<number> {
  let written = 0;
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += ROUND) written += await indexRound(wh, unique.slice(i, i + ROUND), cards);
  return written;
}

async function indexRound(wh: Warehouse, keys: string[], cards: CardsSeen): Promise<number> {
  const agents = await wh.query<{
    agent_id: string;
    agent_key: string;
    protocol: Protocol;
    name: string;
    description: string;
    sources: string[];
    active: Flag;
    opt_out: string;
    version: string;
  }>(
    `SELECT agent_id, agent_key, protocol, name, description, sources, active, opt_out, version
     FROM agents FINAL WHERE agent_key IN {keys:Array(String)}`,
    { keys },
  );
  if (agents.length === 0) return 0;
  const ids = agents.map((a) => a.agent_id);
  const [listings, stored] = await Promise.all([
    wh.query<{ agent_key: string; source: string; server_json: string; raw: string; endpoint_transport: string }>(
      `SELECT agent_key, source, server_json, raw, endpoint_transport FROM listings FINAL
       WHERE agent_key IN {keys:Array(String)} AND tombstoned = 0 ORDER BY source, item_id`,
      { keys },
    ),
    storedDocuments(wh, ids),
  ]);
  const cardOf = (a: { agent_id: string; agent_key: string }) => cards.get(a.agent_key) ?? stored.get(a.agent_id)?.card_sha256 ?? '';
  const shas = [...new Set(agents.map(cardOf).filter((s) => s !== ''))];
  const cardTexts = new Map<string, string>();
  if (shas.length > 0) {
    for (const r of await wh.query<{ sha256: string; text: string }>(
      'SELECT sha256, any(text) AS text FROM documents WHERE sha256 IN {shas:Array(String)} GROUP BY sha256',
      { shas },
    )) {
      cardTexts.set(r.sha256, r.text);
    }
  }
  const postings: InsertRow<'search_term_postings'>[] = [];
  const terms: InsertRow<'search_terms'>[] = [];
  const facets: InsertRow<'search_term_facets'>[] = [];
  const documents: InsertRow<'search_documents'>[] = [];
  const replaced: Replaced[] = [];
  for (const a of agents) {
    const sha = cardOf(a);
    const before = stored.get(a.agent_id) ?? null;
    const indexed = indexAgent(
      {
        agentId: a.agent_id,
        agentKey: a.agent_key,
        protocol: a.protocol,
        sources: a.sources,
        cardSha256: sha,
        // A newer card with the same agents row still makes a newer document.
        version: String(
          BigInt(a.version) > BigInt(before?.version ?? 0)
            ? BigInt(a.version)
            : BigInt(before?.version ?? 0) + (sha !== (before?.card_sha256 ?? '') ? 1n : 0n),
        ),
        listable: Number(a.active) === 1 && a.opt_out !== 'hidden',
      },
      {
        agentKey: a.agent_key,
        protocol: a.protocol,
        name: a.name,
        description: a.description,
        card: cardTexts.get(sha) ?? null,
        listings: listings
          .filter((l) => l.agent_key === a.agent_key)
          .map((l) => ({ source: l.source, serverJson: l.server_json, raw: l.raw, transport: l.endpoint_transport })),
      },
    );
    const d = indexed.document;
    if (before && sameDocument(before, d)) continue;
    const change = indexChanges(indexed, before ? { ...before, terms: Object.keys(before.impacts) } : null);
    postings.push(...change.postings);
    terms.push(...change.terms);
    facets.push(...change.facets);
    documents.push(d);
    if (before && before.content !== String(d.content) && before.content !== '0')
      replaced.push({ agentId: a.agent_id, content: before.content, terms: Object.keys(before.impacts) });
  }
  if (postings.length > 0) await wh.insert('search_term_postings', postings);
  if (terms.length > 0) await wh.insert('search_terms', terms);
  if (facets.length > 0) await wh.insert('search_term_facets', facets);
  if (documents.length > 0) await wh.insert('search_documents', documents);
  await deletePostings(wh, replaced);
  return documents.length;
}

/** An agent's postings that a new document replaced: its id, their content and terms. */
type Replaced = { agentId: string; content: string; terms: readonly string[] };

/**
 * Deletes the postings the documents just written replaced, once those documents are current (a
 * reader meanwhile finds the new ones too and scores from the document). One lightweight DELETE
 * for the round, written as a patch part (a cost like an insert's, where the default mode rewrites
 * a mask over every part the condition touches); the terms and agents narrow it through the
 * primary key to the granules that hold those postings (a condition on the ranks too was slower).
 */
async function deletePostings(wh: Warehouse, replaced: readonly Replaced[]): Promise<void> {
  if (replaced.length === 0) return;
  await wh.exec(
    `DELETE FROM search_term_postings
     WHERE term IN {terms:Array(String)} AND agent_id IN {ids:Array(String)}
       AND concat(agent_id, ':', toString(content)) IN {pairs:Array(String)}
     SETTINGS lightweight_delete_mode = 'lightweight_update_force'`,
    {
      terms: [...new Set(replaced.flatMap((r) => r.terms))],
      ids: replaced.map((r) => r.agentId),
      pairs: replaced.map((r) => `${r.agentId}:${r.content}`),
    },
  );
}

type StoredDocument = {
  agent_id: string;
  version: string;
  content: string;
  card_sha256: string;
  listable: Flag;
  impacts: Record<string, number>;
  sources: string[];
  protocol: Protocol;
  transports: string[];
  auth_required: Flag;
  name: string;
  description: string;
};

/** The newest stored document of each of these agents. */
export async function storedDocuments(wh: ReadOnlyWarehouse, ids: readonly string[]): Promise<Map<string, StoredDocument>> {
  const out = new Map<string, StoredDocument>();
  if (ids.length === 0) return out;
  const rows = await wh.query<StoredDocument>(
    `SELECT agent_id, toString(version) AS version, toString(content) AS content, card_sha256, listable, impacts, sources, protocol,
            transports, auth_required, name, description
     FROM search_documents WHERE agent_id IN {ids:Array(String)}`,
    { ids: [...ids] },
  );
  for (const r of rows) {
    const cur = out.get(r.agent_id);
    if (!cur || BigInt(r.version) > BigInt(cur.version)) out.set(r.agent_id, r);
  }
  return out;
}

const sameDocument = (s: StoredDocument, d: InsertRow<'search_documents'>) =>
  s.content === String(d.content) &&
  Number(s.listable) === Number(d.listable) &&
  s.card_sha256 === d.card_sha256 &&
  s.protocol === d.protocol &&
  s.name === d.name &&
  s.description === d.description &&
  JSON.stringify(s.sources) === JSON.stringify(d.sources);
