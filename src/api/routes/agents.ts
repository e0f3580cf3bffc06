import { sendError } from '../errors.js';
import { decodeCursor } from '../format.js';
import { agentResponse, agentsPageResponse, PAGE_DEFAULT } from '../responses.js';
import { agentParamsSchema, agentsQuerySchema, noQuerySchema } from '../schemas.js';
import type { ApiRoutes } from './types.js';

const AGENT_ID = /^[0-9a-f]{16}$/;

/** GET /agents (paged by an opaque cursor) and GET /agents/:id. Hidden agents are never served (Methods §9). */
export const agentRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get('/agents', { schema: { querystring: agentsQuerySchema } }, async (req, reply) => {
    const after = req.query.cursor ? decodeCursor(req.query.cursor) : '';
    if (after === null) return sendError(reply, 400, 'invalid_cursor', 'invalid cursor');
    return agentsPageResponse(warehouse, {
      after,
      limit: req.query.limit ?? PAGE_DEFAULT,
      protocol: req.query.protocol,
      source: req.query.source,
      active: req.query.active ?? 'true',
    });
  });

  app.get('/agents/:id', { schema: { params: agentParamsSchema, querystring: noQuerySchema } }, async (req, reply) => {
    const agent = AGENT_ID.test(req.params.id) ? await agentResponse(warehouse, req.params.id) : null;
    if (!agent) return sendError(reply, 404, 'not_found', 'agent not found');
    return agent;
  });
};
