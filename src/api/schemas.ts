import { AGENT_SEARCH_MAX, PAGE_MAX, STATS_DAYS_MAX } from './responses.js';

/**
 * The JSON schemas of the routes' inputs. Fastify validates requests with them (and
 * coerces querystring numbers), and the route handlers' types are derived from them
 * (json-schema-to-ts through @fastify/type-provider-json-schema-to-ts), so a handler's
 * idea of its input cannot disagree with what is validated. Every route has a querystring
 * schema and every object is closed (`additionalProperties: false`; the server's ajv keeps
 * unknown properties instead of removing them), so an unknown parameter is a 400 naming it.
 */

const PROTOCOL = { type: 'string', enum: ['a2a', 'mcp'] } as const;

export const agentsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_MAX },
    cursor: { type: 'string', maxLength: 4096 },
    protocol: PROTOCOL,
    source: { type: 'string', maxLength: 100 },
    active: { type: 'string', enum: ['true', 'false', 'all'] },
  },
} as const;

/** A route that takes no query parameters. */
export const noQuerySchema = { type: 'object', additionalProperties: false, properties: {} } as const;

/** Any id string: one that is not an agent id is answered 404, like an unknown one. */
export const agentParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

export const runParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['runId'],
  properties: { runId: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' } },
} as const;

export const dailyQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: STATS_DAYS_MAX }, protocol: PROTOCOL },
} as const;

export const agentSearchQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    protocol: PROTOCOL,
    limit: { type: 'integer', minimum: 1, maximum: AGENT_SEARCH_MAX },
    cursor: { type: 'string', maxLength: 4096 },
  },
} as const;

export const dashboardQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { q: { type: 'string', maxLength: 200 }, cursor: { type: 'string', maxLength: 4096 } },
} as const;
