import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentById } from '../../warehouse/read/agents.js';
import { agentUptime, latestOfAgent } from '../../warehouse/read/status.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';
import {
  conformanceBadge,
  CONFORMANCE_LABEL,
  etagMatches,
  renderBadge,
  strongEtag,
  unknownBadge,
  uptimeBadge,
  UPTIME_LABEL,
  type Badge,
} from '../badge.js';
import { finiteOrNull } from '../format.js';
import { currentCheckerVersion } from '../responses.js';
import { agentParamsSchema, errorResponses, noQuerySchema } from '../schemas.js';
import type { ApiRoutes } from './types.js';

/**
 * GET /badge/:id/uptime.svg and GET /badge/:id/conformance.svg: shields-style badges for an
 * agent's README (src/api/badge.ts draws them). An unknown, hidden, never-checked agent or a
 * string that is no agent id gets a grey "unknown" badge with status 200, never an error page,
 * so an embedded image never breaks (and says nothing about whether a hidden agent exists).
 *
 * Cached for five minutes by browsers and shared caches (GitHub's camo proxy among them), as
 * shields and Gatus do: the figures move at most once per check (daily, or a re-probe), so five
 * minutes costs a README reader little freshness and saves the warehouse a query per view; the
 * strong ETag lets a cache revalidate with a 304 and no body.
 */

export const BADGE_MAX_AGE_S = 300;
/** No script, no fetch, no style sheet: the SVG draws with its own attributes only, and is sandboxed when opened directly. */
export const BADGE_CSP = "default-src 'none'; sandbox";

const AGENT_ID = /^[0-9a-f]{16}$/;

export const svgResponse = {
  description: 'An SVG badge (image/svg+xml); unknown or hidden agents get a grey "unknown" badge',
  content: { 'image/svg+xml': { schema: { type: 'string' } } },
} as const;
export const notModifiedResponse = { description: 'Not Modified: If-None-Match named the current ETag', type: 'null' } as const;

/**
 * Sends a body with a strong ETag of its bytes, or 304 with no body when the request's
 * If-None-Match names it. The ETag, cache-control and nosniff ride on both.
 */
export function sendCached(
  req: FastifyRequest,
  reply: FastifyReply,
  body: string,
  headers: { contentType: string; cacheControl: string; csp?: string },
): FastifyReply {
  const etag = strongEtag(body);
  void reply.header('etag', etag).header('cache-control', headers.cacheControl).header('x-content-type-options', 'nosniff');
  if (headers.csp) void reply.header('content-security-policy', headers.csp);
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.header('content-type', headers.contentType).send(body);
}

/** The agent's key, or null for anything that is not a visible agent (agentById leaves hidden ones out). */
async function agentKey(warehouse: ReadOnlyWarehouse, id: string): Promise<string | null> {
  if (!AGENT_ID.test(id)) return null;
  return (await agentById(warehouse, id))?.key ?? null;
}

export const badgeRoutes: ApiRoutes = async (app, { warehouse }) => {
  const send = (req: FastifyRequest, reply: FastifyReply, badge: Badge) =>
    sendCached(req, reply, renderBadge(badge), {
      contentType: 'image/svg+xml; charset=utf-8',
      cacheControl: `public, max-age=${BADGE_MAX_AGE_S}`,
      csp: BADGE_CSP,
    });
  const schema = {
    params: agentParamsSchema,
    querystring: noQuerySchema,
    response: { 200: svgResponse, 304: notModifiedResponse, ...errorResponses(400, 500) },
  } as const;

  app.get('/badge/:id/uptime.svg', { schema }, async (req, reply) => {
    const key = await agentKey(warehouse, req.params.id);
    if (!key) return send(req, reply, unknownBadge(UPTIME_LABEL));
    // The 30-day window of the agent page (agent_status, read by key), under the served checker version.
    const u = await agentUptime(warehouse, await currentCheckerVersion(warehouse), key);
    return send(req, reply, uptimeBadge(finiteOrNull(u?.uptime_30d)));
  });

  app.get('/badge/:id/conformance.svg', { schema }, async (req, reply) => {
    const key = await agentKey(warehouse, req.params.id);
    if (!key) return send(req, reply, unknownBadge(CONFORMANCE_LABEL));
    // The latest verdict under the served checker version; never judged under it is unknown.
    const latest = await latestOfAgent(warehouse, await currentCheckerVersion(warehouse), key);
    return send(req, reply, conformanceBadge(latest?.result || null));
  });
};
