import type { Flag, Protocol, SearchDocumentRow } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { matchRanges, oneEditTerms, queryWords, terms as textTerms, type QueryWord } from '../search/analyze.js';
import { IMPACT_SCALE, idf, phraseBoost, recordBoosts, termPart, type AgentRecord, type ExpansionKind } from '../search/bm25f.js';
import {
  countMatches,
  emptyFacets,
  filterParams,
  MATCH_POSTINGS_MAX,
  postingFilter,
  type FacetName,
  type Facets,
  type SearchFilters,
} from './search-facets.js';

export type { SearchAuth, SearchFilters, SearchState } from './search-facets.js';

/**
 * The ranked search (docs/SEARCH.md) over search_documents, search_term_postings, search_terms and
 * search_term_facets (clickhouse/0035, 0037, 0038). A query's words are analysed as the index was;
 * the last word also matches as a prefix, a word of five letters or more with no term of its own
 * matches its one-edit neighbours. Each term's best POSTINGS_PER_TERM postings that pass the
 * filters are read (impact order, the index's filters applied in the engine, so one never hides a
 * match behind others), the best candidates by those postings (candidatesFor) are scored exactly
 * from their documents, checked against their agents row (hidden and inactive agents are never
 * returned) and boosted by their own record. The total and the facets are counted over every match
 * in the engine (search-facets.ts): for one term always, for more when their postings are at most
 * MATCH_POSTINGS_MAX, so every read is bounded by the query, not by the index.
 */

export const POSTINGS_PER_TERM = 1000;
/**
 * Candidates scored exactly for a page: twice as many as the page reaches (offset + limit), at
 * least CANDIDATES_MIN, at most RESULT_WINDOW_MAX. Boosts multiply relevance by at most 1.44, so
 * a candidate far down the postings' order rarely climbs into the page; the relevance benchmark
 * scores the same from 20 candidates to 100, and the reads of the candidates are most of a
 * query's cost.
 */
export const CANDIDATES_MIN = 40;
/** Hits a query can page through (offset + limit), at most. */
export const RESULT_WINDOW_MAX = 200;
export const PREFIX_EXPANSIONS = 6;
export const PREFIX_SCAN = 2000;
export const TYPO_EXPANSIONS = 3;
/** Words (not the last) of this many letters or more also match their longer forms, at most this many. */
export const COMPLETION_MIN_LETTERS = 4;
export const COMPLETION_EXPANSIONS = 2;
export const SEARCH_LIMIT_MAX = 50;

export interface SearchQuery {
  q: string;
  filters?: SearchFilters;
  limit: number;
  offset?: number;
  /**
   * The checker version whose record boosts and the state facet read; null: no record. A caller
   * still reading it may pass the read: it is needed only once the candidates are known.
   */
  checkerVersion: string | null | Promise<string | null>;
}

export interface ScorePart {
  word: string;
  term: string;
  kind: ExpansionKind;
  idf: number;
  impact: number;
  part: number;
}

export interface SearchExplain {
  relevance: number;
  terms: ScorePart[];
  phrase: number;
  boosts: { upNow: number; uptime30: number; conformance: number };
  score: number;
}

export interface SearchHit {
  id: string;
  key: string;
  name: string;
  title: string;
  description: string;
  protocol: Protocol;
  sources: string[];
  transports: string[];
  authRequired: boolean;
  uptime: string | null;
  result: string | null;
  uptime30: number | null;
  score: number;
  /** The index terms the hit matched (a page highlights the words that have them). */
  matched: string[];
  /** Where the matched words stand in the name, title and description ([start, end) in UTF-16 code units). */
  highlights: { name: Array<[number, number]>; title: Array<[number, number]>; description: Array<[number, number]> };
  explain: SearchExplain;
}

export type FacetCounts = Record<string, number>;

export interface SearchResult {
  hits: SearchHit[];
  /** Matches after the filters: every match when `complete`, else among the candidates scored. */
  total: number;
  /**
   * Whether the total and the protocol, source, transport and auth facets count every match (the
   * terms' postings were at most MATCH_POSTINGS_MAX and no state filter was given); the state
   * facet and the state filter always apply to the candidates.
   */
  complete: boolean;
  facets: Facets;
}

interface Expansion {
  term: string;
  kind: ExpansionKind;
}

const EMPTY: SearchResult = { hits: [], total: 0, complete: true, facets: emptyFacets() };

type TermCount = { term: string; n: string };

/**
 * The expansions of each query word: its own term, its completions (the last word as a prefix;
 * other words of COMPLETION_MIN_LETTERS letters or more to their longer forms, weighed less), and,
 * for a word of five letters or more with neither a term of its own nor a completion, its one-edit
 * neighbours (the likeliest kind of edit that finds any). Also N, the documents indexed. One
 * statement reads the terms and completions; a second, only when a word needs it, the neighbours.
 */
async function expand(wh: ReadOnlyWarehouse, words: readonly QueryWord[]): Promise<{ groups: Expansion[][]; df: Map<string, number> }> {
  const params: Record<string, unknown> = { exact: ['', ...words.map((w) => w.term)], scan: PREFIX_SCAN };
  const parts = [
    "SELECT 'exact' AS what, term, toString(sum(df)) AS n FROM search_terms WHERE term IN {exact:Array(String)} GROUP BY term",
  ];
  const last = words.findIndex((w) => w.prefix);
  if (last >= 0) {
    params.p = words[last]!.word;
    parts.push(
      `SELECT 'prefix' AS what, term, toString(sum(df)) AS n FROM
       (SELECT term, df FROM search_terms WHERE startsWith(term, {p:String}) ORDER BY term LIMIT {scan:UInt32})
       GROUP BY term HAVING sum(df) > 0 ORDER BY sum(df) DESC, term LIMIT ${PREFIX_EXPANSIONS + 1}`,
    );
  }
  // The other words' completions in one ordered scan of their ranges, shared out below by prefix.
  const completing = words.filter((w) => !w.prefix && [...w.word].length >= COMPLETION_MIN_LETTERS);
  if (completing.length > 0) {
    completing.forEach((w, i) => (params[`c${i}`] = w.word));
    params.cscan = PREFIX_SCAN * completing.length;
    parts.push(
      `SELECT 'completion' AS what, term, toString(sum(df)) AS n FROM
       (SELECT term, df FROM search_terms WHERE ${completing.map((_, i) => `startsWith(term, {c${i}:String})`).join(' OR ')}
        ORDER BY term LIMIT {cscan:UInt32})
       GROUP BY term HAVING sum(df) > 0`,
    );
  }
  const rows = await wh.query<TermCount & { what: string }>(parts.map((x) => `(${x})`).join(' UNION ALL '), params as never);
  const df = new Map<string, number>();
  for (const r of rows) if (r.what === 'exact') df.set(r.term, Math.max(0, Number(r.n)));
  const groups: Expansion[][] = words.map((w) => ((df.get(w.term) ?? 0) > 0 ? [{ term: w.term, kind: 'exact' as const }] : []));
  const add = (i: number, kind: ExpansionKind, found: readonly TermCount[]) => {
    const g = groups[i]!;
    for (const r of found) {
      if (g.some((x) => x.term === r.term)) continue;
      g.push({ term: r.term, kind });
      df.set(r.term, Number(r.n));
    }
  };
  const byCount = (a: TermCount, b: TermCount) => Number(b.n) - Number(a.n) || (a.term < b.term ? -1 : 1);
  for (const [i, w] of words.entries()) {
    const found = w.prefix
      ? rows.filter((r) => r.what === 'prefix')
      : rows.filter((r) => r.what === 'completion' && r.term.startsWith(w.word)).sort(byCount);
    add(
      i,
      w.prefix ? 'prefix' : 'completion',
      found.filter((r) => r.term !== w.term).slice(0, w.prefix ? PREFIX_EXPANSIONS : COMPLETION_EXPANSIONS),
    );
  }
  const typos = words.flatMap((w, i) => (w.typo && groups[i]!.length === 0 ? [{ i, kinds: oneEditTerms(w.word) }] : []));
  if (typos.length > 0) {
    const found = await wh.query<TermCount>(
      'SELECT term, toString(sum(df)) AS n FROM search_terms WHERE term IN {v:Array(String)} GROUP BY term HAVING sum(df) > 0',
      { v: [...new Set(typos.flatMap((t) => t.kinds.flat()))] },
    );
    for (const { i, kinds } of typos) {
      const best = kinds.find((k) => found.some((r) => k.includes(r.term))) ?? [];
      add(
        i,
        'typo',
        found
          .filter((r) => best.includes(r.term))
          .sort(byCount)
          .slice(0, TYPO_EXPANSIONS),
      );
    }
  }
  return { groups, df };
}

type Posting = { term: string; rank: number; agent_id: string };

/** Each term's best postings that pass the filters, impact first (the engine stops at k per term). */
async function readPostings(wh: ReadOnlyWarehouse, terms: readonly string[], filters: SearchFilters): Promise<Posting[]> {
  if (terms.length === 0) return [];
  const params: Record<string, unknown> = { k: POSTINGS_PER_TERM, ...filterParams(filters) };
  const where = postingFilter(filters);
  const parts = terms.map((t, i) => {
    params[`t${i}`] = t;
    return `(SELECT term, rank, agent_id FROM search_term_postings WHERE term = {t${i}:String}${where} ORDER BY term, rank, agent_id LIMIT {k:UInt32})`;
  });
  return wh.query<Posting>(parts.join(' UNION ALL '), params as never);
}

type DocRow = Omit<SearchDocumentRow, 'version' | 'content' | 'card_sha256'> & {
  content: string;
  /** From the agent's newest agents row (agent_search_rows): whether it may be shown now. */
  shown: Flag;
  u: string;
  r: string;
  up: number;
  judged: number;
};

/**
 * The candidates' newest documents (with the impacts of the query's terms only), what may be shown
 * of them (their newest agents row by id: active and not hidden, so an agent hidden since its
 * document was written is still left out) and their own record under the checker version
 * (agent_status: latest check and verdict, up and judged checks of the 30 days up to the row's
 * computation), in one statement: each table is read by key, its keys named by the ids (the
 * record's through the documents' keys), so the join meets only the candidates' rows; three
 * statements one after another cost more, most of all in the slowest queries.
 */
async function readDocuments(
  wh: ReadOnlyWarehouse,
  ids: readonly string[],
  terms: readonly string[],
  checkerVersion: string | null,
): Promise<DocRow[]> {
  if (ids.length === 0) return [];
  return wh.query<DocRow>(
    `SELECT d.*, d.agent_id IN
              (SELECT agent_id FROM agent_search_rows WHERE agent_id IN {ids:Array(String)} GROUP BY agent_id
               HAVING argMax(active, version) = 1 AND argMax(opt_out, version) != 'hidden') AS shown,
            s.u AS u, s.r AS r, s.up AS up, s.judged AS judged
     FROM
       (SELECT agent_id, agent_key, listable, toString(content) AS content, protocol, sources, transports, auth_required, name,
               title, description, mapFilter((t, x) -> has({terms:Array(String)}, t), impacts) AS impacts
        FROM search_documents WHERE agent_id IN {ids:Array(String)} ORDER BY agent_id, version DESC LIMIT 1 BY agent_id) AS d
     LEFT JOIN
       (SELECT agent_key, argMax(latest_uptime, computed_at) AS u, argMax(latest_result, computed_at) AS r,
               argMax(up_30d, computed_at) AS up, argMax(judged_30d, computed_at) AS judged
        FROM agent_status
        WHERE checker_version = {cv:String}
          AND agent_key IN (SELECT agent_key FROM search_documents WHERE agent_id IN {ids:Array(String)})
        GROUP BY agent_key) AS s
     ON s.agent_key = d.agent_key`,
    { ids: [...ids], terms: [...terms], cv: checkerVersion ?? '' },
  );
}

const recordOf = (d: DocRow): AgentRecord | null =>
  d.u ? { latestUptime: d.u, latestResult: d.r, uptime30: Number(d.judged) > 0 ? Number(d.up) / Number(d.judged) : null } : null;

const round = (x: number) => Math.round(x * 10000) / 10000;

/** What a hit says for each facet (its values), to filter and to count. */
function facetValues(h: SearchHit): Record<FacetName, string[]> {
  const state: string[] = [];
  if (h.uptime === 'up' || h.uptime === 'down' || h.uptime === 'unknown') state.push(h.uptime);
  if (h.result === 'pass' || h.result === 'fail') state.push(h.result);
  return { protocol: [h.protocol], source: h.sources, state, transport: h.transports, auth: [h.authRequired ? 'required' : 'none'] };
}

/**
 * Candidates scored for a page (see CANDIDATES_MIN); with a state filter, which applies to the
 * candidates' records only, the whole result window.
 */
const candidatesFor = (q: SearchQuery) =>
  q.filters?.state
    ? RESULT_WINDOW_MAX
    : Math.min(RESULT_WINDOW_MAX, Math.max(CANDIDATES_MIN, 2 * ((q.offset ?? 0) + Math.min(q.limit, SEARCH_LIMIT_MAX))));

/** The ranked search: a page of hits, the number of matches and the facet counts (each facet counted under the other filters). */
export async function rankedSearch(wh: ReadOnlyWarehouse, query: SearchQuery): Promise<SearchResult> {
  const words = queryWords(query.q);
  if (words.length === 0) return EMPTY;
  const { groups, df } = await expand(wh, words);
  const n = Math.max(1, df.get('') ?? 1);
  const allTerms = [...new Set(groups.flat().map((e) => e.term))];
  const filters = query.filters ?? {};
  // Every match is counted when the terms' postings are few enough to read them all, and no state
  // filter (the record, not in the index) narrows them.
  const countAll = !filters.state && (allTerms.length === 1 || allTerms.reduce((a, t) => a + (df.get(t) ?? 0), 0) <= MATCH_POSTINGS_MAX);
  const [postings, counted] = await Promise.all([
    readPostings(wh, allTerms, filters),
    countAll && allTerms.length > 0 ? countMatches(wh, allTerms, filters) : null,
  ]);

  // Phase 1: the candidates by the postings read.
  const weightOf = new Map<string, Array<{ word: number; kind: ExpansionKind }>>();
  groups.forEach((g, i) => g.forEach((e) => weightOf.set(e.term, [...(weightOf.get(e.term) ?? []), { word: i, kind: e.kind }])));
  const rough = new Map<string, { byWord: number[] }>();
  for (const p of postings) {
    const c = rough.get(p.agent_id) ?? { byWord: new Array<number>(groups.length).fill(0) };
    rough.set(p.agent_id, c);
    for (const w of weightOf.get(p.term) ?? []) {
      const part = termPart(w.kind, idf(df.get(p.term) ?? 0, n), IMPACT_SCALE - p.rank);
      c.byWord[w.word] = Math.max(c.byWord[w.word]!, part);
    }
  }
  const candidates = [...rough]
    .map(([id, c]) => ({ id, score: c.byWord.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, candidatesFor(query));

  // Phase 2: exact scores from the documents, the agents rows' say on who may be shown, the record.
  const docs = await readDocuments(
    wh,
    candidates.map((c) => c.id),
    allTerms,
    await query.checkerVersion,
  );
  const hits: SearchHit[] = [];
  for (const d of docs) {
    if (Number(d.listable) !== 1 || d.content === '0' || Number(d.shown) !== 1) continue;
    const parts: ScorePart[] = [];
    const matchedByWord: Array<Set<string>> = [];
    let relevance = 0;
    groups.forEach((g, i) => {
      let best: ScorePart | null = null;
      const matched = new Set<string>();
      for (const e of g) {
        const impact = d.impacts[e.term];
        if (impact === undefined) continue;
        matched.add(e.term);
        const part = termPart(e.kind, idf(df.get(e.term) ?? 0, n), impact);
        if (!best || part > best.part)
          best = { word: words[i]!.word, term: e.term, kind: e.kind, idf: round(idf(df.get(e.term) ?? 0, n)), impact, part };
      }
      matchedByWord.push(matched);
      if (best) {
        relevance += best.part;
        parts.push({ ...best, part: round(best.part) });
      }
    });
    if (relevance <= 0) continue;
    const phrase = phraseBoost(matchedByWord, [textTerms(d.name), textTerms(d.title), textTerms(d.description)]);
    const rec = recordOf(d);
    const boosts = recordBoosts(rec);
    const score = relevance * (1 + phrase) * (1 + boosts.upNow + boosts.uptime30 + boosts.conformance);
    const matched = new Set(matchedByWord.flatMap((m) => [...m]));
    hits.push({
      id: d.agent_id,
      key: d.agent_key,
      name: d.name,
      title: d.title,
      description: d.description,
      protocol: d.protocol,
      sources: d.sources,
      transports: d.transports,
      authRequired: Number(d.auth_required) === 1,
      uptime: rec?.latestUptime || null,
      result: rec?.latestResult || null,
      uptime30: rec?.uptime30 ?? null,
      score: round(score),
      matched: [...matched],
      highlights: {
        name: matchRanges(d.name, matched),
        title: matchRanges(d.title, matched),
        description: matchRanges(d.description, matched),
      },
      explain: {
        relevance: round(relevance),
        terms: parts,
        phrase: round(phrase),
        boosts: { upNow: boosts.upNow, uptime30: round(boosts.uptime30), conformance: boosts.conformance },
        score: round(score),
      },
    });
  }
  hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));

  const f = filters;
  const wanted: Record<FacetName, string | null | undefined> = {
    protocol: f.protocol,
    source: f.source,
    state: f.state,
    transport: f.transport?.toLowerCase(),
    auth: f.auth,
  };
  const names = Object.keys(wanted) as FacetName[];
  const passes = (h: SearchHit, except: string | null) => {
    const v = facetValues(h);
    return names.every((k) => k === except || !wanted[k] || v[k].includes(wanted[k]!));
  };
  // Counted over the candidates: the state facet always, the others when not every match was counted.
  const facets = counted ? { ...counted.facets, state: {} } : emptyFacets();
  for (const k of counted ? (['state'] as const) : names) {
    for (const h of hits) {
      if (!passes(h, k)) continue;
      for (const v of facetValues(h)[k]) facets[k][v] = (facets[k][v] ?? 0) + 1;
    }
  }
  const kept = hits.filter((h) => passes(h, null));
  const offset = query.offset ?? 0;
  const page = kept.slice(offset, offset + Math.min(query.limit, SEARCH_LIMIT_MAX));
  return { hits: page, total: counted ? counted.total : kept.length, complete: counted !== null || allTerms.length === 0, facets };
}
