import { errorBody } from '../errors.js';
import { ping } from '../../warehouse/queries.js';
import type { ApiRoutes } from './types.js';

/** GET /healthz: 200 while the warehouse answers, else 503 with why. */
export const healthRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get('/healthz', async (_req, reply) => {
    try {
      await ping(warehouse);
      return { status: 'ok', warehouse: warehouse.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', ...errorBody('unavailable', (err as Error).message) });
    }
  });
};
