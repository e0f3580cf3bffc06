import { errorBody, GENERIC_MESSAGES } from '../errors.js';
import { ping } from '../../warehouse/read/health.js';
import { errorResponses, healthResponseSchema, healthUnavailableSchema, noQuerySchema } from '../schemas.js';
import type { ApiRoutes } from './types.js';

/** GET /healthz: 200 while the warehouse answers, else 503 (why is logged under the request id, never answered). */
export const healthRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get(
    '/healthz',
    {
      schema: {
        querystring: noQuerySchema,
        response: { 200: healthResponseSchema, 503: healthUnavailableSchema, ...errorResponses(400, 500) },
      },
    },
    async (req, reply) => {
      try {
        await ping(warehouse);
        return { status: 'ok' as const, warehouse: warehouse.kind };
      } catch (err) {
        req.log.error({ err }, 'health check: the warehouse did not answer');
        return reply.code(503).send({ status: 'unavailable', ...errorBody('unavailable', GENERIC_MESSAGES.unavailable, req.id) });
      }
    },
  );
};
