import { dashboardData, DASHBOARD_CSP, renderDashboard } from '../dashboard.js';
import { sendError } from '../errors.js';
import { decodeListCursor } from '../format.js';
import { sendPage } from '../pages/html.js';
import { dashboardQuerySchema, errorResponses, htmlResponse } from '../schemas.js';
import type { ApiRoutes } from './types.js';

/**
 * GET /: the dashboard page, searchable and filterable on the server with ?q= (the ranked search,
 * with ?transport=, ?auth= and ?offset= from its facets and pages), ?protocol=, ?source= and
 * ?state= (a plain GET form and links: it works without JavaScript).
 */
export const dashboardRoutes: ApiRoutes = async (app, { warehouse }) => {
  app.get(
    '/',
    { schema: { querystring: dashboardQuerySchema, response: { 200: htmlResponse, ...errorResponses(400, 500) } } },
    async (req, reply) => {
      const cursor = req.query.cursor ? decodeListCursor(req.query.cursor) : null;
      if (req.query.cursor && !cursor) return sendError(reply, 400, 'invalid_cursor', 'invalid cursor');
      const filters = {
        protocol: req.query.protocol ?? '',
        source: req.query.source ?? '',
        state: req.query.state ?? '',
        transport: req.query.transport ?? '',
        auth: req.query.auth ?? '',
        offset: req.query.offset ?? 0,
      };
      const html = renderDashboard(await dashboardData(warehouse, req.query.q?.trim() ?? '', cursor, filters));
      return sendPage(reply, html, DASHBOARD_CSP);
    },
  );
};
