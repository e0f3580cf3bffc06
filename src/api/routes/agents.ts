import { sendError } from '../errors.js';
import { agentPageData, renderAgentPage } from '../pages/agent.js';
import { notFoundPage, PAGE_CSP, prefersHtml, sendPage } from '../pages/html.js';
import { decodeCursor } from '../format.js';
import { linkBase } from '../links.js';
import { agentResponse, agentsPageResponse, PAGE_DEFAULT } from '../responses.js';
import {
  agentParamsSchema,
  agentResponses,
  agentsPageResponseSchema,
  agentsQuerySchema,
  errorResponses,
  noQuerySchema,
} from '../schemas.js';
import type { ApiRoutes } from './types.js';

const AGENT_ID = /^[0-9a-f]{16}$/;

/**
 * GET /agents (paged by an opaque cursor) and GET /agents/:id, as JSON or, for a client that
 * prefers HTML (a browser), as the agent page. Hidden agents are never served (Methods §9).
 */
export const agentRoutes: ApiRoutes = async (app, { warehouse, publicUrl }) => {
  app.get(
    '/agents',
    { schema: { querystring: agentsQuerySchema, response: { 200: agentsPageResponseSchema, ...errorResponses(400, 500) } } },
    async (req, reply) => {
      const after = req.query.cursor ? decodeCursor(req.query.cursor) : '';
      if (after === null) return sendError(reply, 400, 'invalid_cursor', 'invalid cursor');
      return agentsPageResponse(warehouse, {
        after,
        limit: req.query.limit ?? PAGE_DEFAULT,
        protocol: req.query.protocol,
        source: req.query.source,
        active: req.query.active ?? 'true',
      });
    },
  );

  // Two content types: JSON (the default, unchanged) and, when the Accept header prefers it, the
  // agent page (text/html, pages/agent.ts). A response schema for this route describes the JSON;
  // the HTML is a string Fastify sends as it is.
  app.get(
    '/agents/:id',
    { schema: { params: agentParamsSchema, querystring: noQuerySchema, response: agentResponses } },
    async (req, reply) => {
      const html = prefersHtml(req.headers.accept);
      void reply.header('vary', 'Accept');
      const agent = AGENT_ID.test(req.params.id) ? await agentResponse(warehouse, req.params.id, req.log) : null;
      if (!agent) {
        if (html)
          return sendPage(reply, notFoundPage('No agent has this id, or its owner asked for it to be hidden.', req.id), PAGE_CSP, 404);
        return sendError(reply, 404, 'not_found', 'agent not found');
      }
      // The page's badge snippet holds absolute links (links.ts); pages are never stored (no-store).
      if (html)
        return sendPage(reply, renderAgentPage(await agentPageData(warehouse, agent, linkBase(req, reply, publicUrl).url)), PAGE_CSP);
      return agent;
    },
  );
};
