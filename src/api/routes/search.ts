import { currentCheckerVersion } from '../responses.js';
import { errorResponses } from '../schemas.js';
import { searchQuerySchema, searchResponseSchema } from '../search-schemas.js';
import { SEARCH_DEFAULT } from '../limits.js';
import { rankedSearch } from '../../warehouse/read/ranked-search.js';
import type { ApiRoutes } from './types.js';

/**
 * GET /search: the ranked full-text search over everything an agent publishes (docs/SEARCH.md),
 * with filters, facet counts and, with explain=1, each hit's score parts. Hidden agents are never
 * returned.
 */
export const searchRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get(
    '/search',
    {
      schema: {
        summary: 'Search agents by what they do',
        description:
          'Relevance-ranked (BM25F over name, title, description, card skills, tags, provider, server.json packages and listing ' +
          'categories; the last word as a prefix, one typo forgiven in words of five letters or more), then bounded boosts from ' +
          'our own measurements only (up now, 30-day uptime, conformance passing). Nobody can pay to rank higher.',
        querystring: searchQuerySchema,
        response: { 200: searchResponseSchema, ...errorResponses(400, 500) },
      },
    },
    async (req) => {
      // The version is read beside the query's first statements: the search needs it only for its candidates.
      const version = currentCheckerVersion(warehouse);
      version.catch(() => undefined);
      const q = req.query;
      const found = await rankedSearch(warehouse, {
        q: q.q,
        checkerVersion: version,
        limit: q.limit ?? SEARCH_DEFAULT,
        offset: q.offset ?? 0,
        filters: { protocol: q.protocol, source: q.source, state: q.state, transport: q.transport, auth: q.auth },
      });
      const cv = await version;
      const explain = q.explain === '1';
      return {
        checkerVersion: cv,
        q: q.q,
        total: found.total,
        complete: found.complete,
        facets: found.facets,
        hits: found.hits.map(({ explain: parts, uptime30, ...h }) => ({ ...h, uptime30d: uptime30, explain: explain ? parts : null })),
      };
    },
  );
};
