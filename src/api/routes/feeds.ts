import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentById } from '../../warehouse/read/agents.js';
import { agentChanges } from '../../warehouse/read/changes.js';
import { sendError } from '../errors.js';
import { atomFeed, FEED_LIMIT, JSON_FEED_VERSION, jsonFeed, type FeedContext } from '../feeds.js';
import { linkBase } from '../links.js';
import { currentCheckerVersion } from '../responses.js';
import { agentParamsSchema, errorResponses, noQuerySchema } from '../schemas.js';
import { notModifiedResponse, sendCached } from './badges.js';
import type { ApiRoutes } from './types.js';

/**
 * GET /feed.atom, GET /feed.json (JSON Feed 1.1): the ecosystem's newest changes; GET
 * /agents/:id/feed.atom: one agent's (404 in the one error shape when it is unknown or hidden).
 * The rows come from agent_changes through `agentChanges` only, under the served checker version
 * (a replay under a new version does not repeat the old one's verdict changes). Strong ETag of
 * the bytes and If-None-Match → 304, so a reader polling every few minutes costs a query and no
 * body; one minute of caching, since a feed is read to hear about changes soon.
 *
 * Links are absolute (links.ts): under the public URL when one is configured, and then the feed
 * is `public`; else from the request's protocol and Host, and then it varies by Host and is
 * `private`. Private rather than no-store: a reader's own cache is keyed by the URL it asked for,
 * Host included, so it may keep the feed and revalidate with the ETag (a 304, no body); only a
 * shared cache could hand one client's Host-made links to another.
 */

export const FEED_MAX_AGE_S = 60;
const cacheControl = (shared: boolean) => `${shared ? 'public' : 'private'}, max-age=${FEED_MAX_AGE_S}`;
const AGENT_ID = /^[0-9a-f]{16}$/;

export const ATOM_CONTENT_TYPE = 'application/atom+xml; charset=utf-8';
export const JSON_FEED_CONTENT_TYPE = 'application/feed+json; charset=utf-8';

const atomResponse = {
  description: 'An Atom 1.0 feed (RFC 4287), newest change first',
  content: { 'application/atom+xml': { schema: { type: 'string' } } },
} as const;

const TIME = { type: 'string', description: 'RFC 3339 (ISO 8601 UTC)' } as const;

/** JSON Feed 1.1 (https://jsonfeed.org/version/1.1) as /feed.json writes it (src/api/feeds.ts JsonFeed). */
export const jsonFeedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'title', 'home_page_url', 'feed_url', 'description', 'language', 'authors', 'items'],
  properties: {
    version: { type: 'string', const: JSON_FEED_VERSION },
    title: { type: 'string' },
    home_page_url: { type: 'string' },
    feed_url: { type: 'string' },
    description: { type: 'string' },
    language: { type: 'string' },
    authors: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'url'],
        properties: { name: { type: 'string' }, url: { type: 'string' } },
      },
    },
    items: {
      type: 'array',
      maxItems: FEED_LIMIT,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'url', 'title', 'content_html', 'date_published', 'date_modified', 'tags', '_veronikai'],
        properties: {
          id: { type: 'string', description: 'A tag URI of the change id: the same change is always the same item' },
          url: { type: 'string', description: "The agent's page" },
          title: { type: 'string' },
          content_html: { type: 'string' },
          date_published: TIME,
          date_modified: TIME,
          tags: { type: 'array', items: { type: 'string' } },
          _veronikai: {
            type: 'object',
            additionalProperties: false,
            description: 'The change as data',
            required: ['kind', 'change_id', 'agent_id', 'protocol', 'name', 'checker_version', 'from', 'to', 'reasons'],
            properties: {
              kind: { type: 'string', enum: ['down', 'up', 'verdict', 'listed', 'delisted', 'corrected'] },
              change_id: { type: 'string' },
              agent_id: { type: 'string' },
              protocol: { type: 'string' },
              name: { type: 'string' },
              checker_version: { type: ['string', 'null'] },
              from: { type: ['string', 'null'] },
              to: { type: ['string', 'null'] },
              reasons: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
} as const;

const jsonFeedResponse = {
  description: 'A JSON Feed 1.1, newest change first',
  content: { 'application/feed+json': { schema: jsonFeedSchema } },
} as const;

export const feedRoutes: ApiRoutes = async (app, { warehouse, publicUrl }) => {
  const ecosystem = async (
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ rows: Awaited<ReturnType<typeof agentChanges>>; ctx: FeedContext; shared: boolean }> => {
    const base = linkBase(req, reply, publicUrl);
    const rows = await agentChanges(warehouse, { checkerVersion: await currentCheckerVersion(warehouse), limit: FEED_LIMIT });
    return { rows, ctx: { baseUrl: base.url, scope: { kind: 'ecosystem' } }, shared: base.shared };
  };

  app.get(
    '/feed.atom',
    { schema: { querystring: noQuerySchema, response: { 200: atomResponse, 304: notModifiedResponse, ...errorResponses(400, 500) } } },
    async (req, reply) => {
      const { rows, ctx, shared } = await ecosystem(req, reply);
      return sendCached(req, reply, atomFeed(rows, ctx), { contentType: ATOM_CONTENT_TYPE, cacheControl: cacheControl(shared) });
    },
  );

  app.get(
    '/feed.json',
    { schema: { querystring: noQuerySchema, response: { 200: jsonFeedResponse, 304: notModifiedResponse, ...errorResponses(400, 500) } } },
    async (req, reply) => {
      const { rows, ctx, shared } = await ecosystem(req, reply);
      return sendCached(req, reply, JSON.stringify(jsonFeed(rows, ctx)), {
        contentType: JSON_FEED_CONTENT_TYPE,
        cacheControl: cacheControl(shared),
      });
    },
  );

  app.get(
    '/agents/:id/feed.atom',
    {
      schema: {
        params: agentParamsSchema,
        querystring: noQuerySchema,
        response: { 200: atomResponse, 304: notModifiedResponse, ...errorResponses(400, 404, 500) },
      },
    },
    async (req, reply) => {
      const agent = AGENT_ID.test(req.params.id) ? await agentById(warehouse, req.params.id) : null;
      if (!agent) return sendError(reply, 404, 'not_found', 'agent not found');
      const rows = await agentChanges(warehouse, {
        agentId: agent.id,
        checkerVersion: await currentCheckerVersion(warehouse),
        limit: FEED_LIMIT,
      });
      const base = linkBase(req, reply, publicUrl);
      const ctx: FeedContext = { baseUrl: base.url, scope: { kind: 'agent', id: agent.id, name: agent.name } };
      return sendCached(req, reply, atomFeed(rows, ctx), { contentType: ATOM_CONTENT_TYPE, cacheControl: cacheControl(base.shared) });
    },
  );
};
