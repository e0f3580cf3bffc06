import type { ReadOnlyWarehouse } from '../warehouse.js';

/**
 * The ranked search's filters and exact counts (docs/SEARCH.md), in the engine, over the postings
 * of search_term_postings (clickhouse/0037), which carry each agent's facets: no join to the
 * documents. The state facet is the agent's record (agent_status), not part of the index.
 */

/**
 * Postings of a query's terms (the sum of their document frequencies) up to which the total and
 * the facets of a query of several terms are counted over every match; above it such a query would
 * cost in proportion to the index (a word every agent has), so they are counted over the best
 * candidates only. A query of one term is always counted whole, from its facet counts.
 */
export const MATCH_POSTINGS_MAX = 200_000;

export type SearchState = 'up' | 'down' | 'unknown' | 'pass' | 'fail';
export type SearchAuth = 'required' | 'none';

export interface SearchFilters {
  protocol?: string | null;
  source?: string | null;
  state?: SearchState | null;
  transport?: string | null;
  auth?: SearchAuth | null;
}

/** The facets a query counts: protocol, source, transport and auth from the index, state from the record. */
export type FacetName = 'protocol' | 'source' | 'state' | 'transport' | 'auth';
export type Facets = Record<FacetName, Record<string, number>>;

export const emptyFacets = (): Facets => ({ protocol: {}, source: {}, state: {}, transport: {}, auth: {} });

/** The filters as statement parameters (an empty string: no filter). */
export function filterParams(f: SearchFilters): Record<string, string> {
  return { fp: f.protocol ?? '', fs: f.source ?? '', ft: f.transport?.toLowerCase() ?? '', fa: f.auth ?? '' };
}

/**
 * A condition on a posting (its columns) that keeps the agents passing the index's filters. The
 * state filter is not one: the record is not in the index, and reading every agent's record would
 * cost in proportion to the index, so it applies to the candidates.
 */
export function postingFilter(f: SearchFilters): string {
  const parts: string[] = [];
  if (f.protocol) parts.push('protocol = {fp:String}');
  if (f.source) parts.push('has(sources, {fs:String})');
  if (f.transport) parts.push('has(arrayMap(x -> lower(toString(x)), transports), {ft:String})');
  if (f.auth) parts.push("auth_required = if({fa:String} = 'required', 1, 0)");
  return parts.length === 0 ? '' : ` AND ${parts.join(' AND ')}`;
}

/** Agents with one combination of facet values, and how many. */
type Combination = { p: string; s: string[]; t: string[]; a: number; n: string };

/**
 * The total and the protocol, source, transport and auth facets over every agent with a posting of
 * these terms, each facet counted under the other filters, the total under all. The engine returns
 * the agents by combination of facet values (a handful of rows): for one term from its facet
 * counts (search_term_facets, clickhouse/0038), whatever the number of its agents; for more, from
 * their postings (an agent's postings all carry its one combination), counting each agent once, its
 * distinct ids as numbers (their 16 hex digits), which hash faster than text.
 */
export async function countMatches(
  wh: ReadOnlyWarehouse,
  terms: readonly string[],
  f: Omit<SearchFilters, 'state'>,
): Promise<{ total: number; facets: Facets }> {
  const rows =
    terms.length === 1
      ? await wh.query<Combination>(
          `SELECT protocol AS p, sources AS s, transports AS t, auth_required AS a, toString(sum(agents)) AS n
           FROM search_term_facets WHERE term = {term:String}
           GROUP BY p, s, t, a HAVING sum(agents) > 0`,
          { term: terms[0]! },
        )
      : await wh.query<Combination>(
          `SELECT protocol AS p, sources AS s, transports AS t, auth_required AS a, toString(uniqExact(reinterpretAsUInt64(unhex(agent_id)))) AS n
           FROM search_term_postings WHERE term IN {terms:Array(String)}
           GROUP BY p, s, t, a`,
          { terms: [...terms] },
        );
  const facets = emptyFacets();
  let total = 0;
  const transport = f.transport?.toLowerCase();
  for (const r of rows) {
    const n = Number(r.n);
    const t = r.t.map((x) => x.toLowerCase());
    const auth = Number(r.a) === 1 ? 'required' : 'none';
    const ok = {
      protocol: !f.protocol || r.p === f.protocol,
      source: !f.source || r.s.includes(f.source),
      transport: !transport || t.includes(transport),
      auth: !f.auth || auth === f.auth,
    };
    const except = (k: keyof typeof ok) => (Object.keys(ok) as Array<keyof typeof ok>).every((j) => j === k || ok[j]);
    const add = (k: FacetName, v: string) => (facets[k][v] = (facets[k][v] ?? 0) + n);
    if (except('protocol')) add('protocol', r.p);
    if (except('source')) for (const v of new Set(r.s)) add('source', v);
    if (except('transport')) for (const v of new Set(t)) add('transport', v);
    if (except('auth')) add('auth', auth);
    if (ok.protocol && ok.source && ok.transport && ok.auth) total += n;
  }
  return { total, facets };
}
