import { sendError } from '../errors.js';
import { decodeListCursor } from '../format.js';
import {
  AGENT_SEARCH_DEFAULT,
  censusResponse,
  currentCheckerVersion,
  dailyResponse,
  latestDailyRuns,
  runStatsResponse,
  searchAgents,
  STATS_DAYS_DEFAULT,
} from '../responses.js';
import {
  agentSearchQuerySchema,
  agentSearchResponseSchema,
  censusResponseSchema,
  dailyQuerySchema,
  dailyResponseSchema,
  errorResponses,
  latestRunStatsResponseSchema,
  noQuerySchema,
  runParamsSchema,
  runStatsResponseSchema,
} from '../schemas.js';
import type { ApiRoutes } from './types.js';

/** GET /stats/runs/latest, /stats/runs/:runId, /stats/census, /stats/daily, /stats/agents. */
export const statsRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get(
    '/stats/runs/latest',
    { schema: { querystring: noQuerySchema, response: { 200: latestRunStatsResponseSchema, ...errorResponses(400, 404, 500) } } },
    async (_req, reply) => {
      const cv = await currentCheckerVersion(warehouse);
      const { latest, latestComplete } = await latestDailyRuns(warehouse);
      const stats = latest ? await runStatsResponse(warehouse, latest, cv) : null;
      if (!stats) return sendError(reply, 404, 'not_found', 'no daily run yet');
      return { ...stats, latestCompleteRunId: latestComplete };
    },
  );

  app.get(
    '/stats/runs/:runId',
    {
      schema: {
        params: runParamsSchema,
        querystring: noQuerySchema,
        response: { 200: runStatsResponseSchema, ...errorResponses(400, 404, 500) },
      },
    },
    async (req, reply) => {
      const stats = await runStatsResponse(warehouse, req.params.runId, await currentCheckerVersion(warehouse));
      if (!stats) return sendError(reply, 404, 'not_found', 'run not found');
      return stats;
    },
  );

  app.get(
    '/stats/census',
    { schema: { querystring: noQuerySchema, response: { 200: censusResponseSchema, ...errorResponses(400, 500) } } },
    async () => censusResponse(warehouse, await currentCheckerVersion(warehouse)),
  );

  app.get(
    '/stats/daily',
    { schema: { querystring: dailyQuerySchema, response: { 200: dailyResponseSchema, ...errorResponses(400, 500) } } },
    async (req) =>
      dailyResponse(warehouse, await currentCheckerVersion(warehouse), req.query.days ?? STATS_DAYS_DEFAULT, req.query.protocol ?? null),
  );

  app.get(
    '/stats/agents',
    { schema: { querystring: agentSearchQuerySchema, response: { 200: agentSearchResponseSchema, ...errorResponses(400, 500) } } },
    async (req, reply) => {
      const cursor = req.query.cursor ? decodeListCursor(req.query.cursor) : null;
      if (req.query.cursor && !cursor) return sendError(reply, 400, 'invalid_cursor', 'invalid cursor');
      const cv = await currentCheckerVersion(warehouse);
      const found = await searchAgents(warehouse, cv, {
        q: req.query.q?.trim() ?? '',
        protocol: req.query.protocol ?? null,
        limit: req.query.limit ?? AGENT_SEARCH_DEFAULT,
        cursor,
      });
      return { checkerVersion: cv, ...found };
    },
  );
};
