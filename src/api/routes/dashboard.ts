import { dashboardData, DASHBOARD_CSP, renderDashboard } from '../dashboard.js';
import { sendError } from '../errors.js';
import { decodeListCursor } from '../format.js';
import { dashboardQuerySchema } from '../schemas.js';
import type { ApiRoutes } from './types.js';

/** GET /: the dashboard page, searchable on the server with ?q= (it works without JavaScript). */
export const dashboardRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get('/', { schema: { querystring: dashboardQuerySchema } }, async (req, reply) => {
    const cursor = req.query.cursor ? decodeListCursor(req.query.cursor) : null;
    if (req.query.cursor && !cursor) return sendError(reply, 400, 'invalid_cursor', 'invalid cursor');
    const html = renderDashboard(await dashboardData(warehouse, req.query.q?.trim() ?? '', cursor));
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(html);
  });
};
