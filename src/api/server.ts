import Fastify from 'fastify';
import { silentLogger, type Logger } from '../log.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { dashboardRoutes } from './dashboard.js';
import { agentStatus, isoTime, statsRoutes } from './stats.js';

/**
 * The read API. It reads ClickHouse only, never Kafka, and never writes.
 * Latest-state tables are ReplacingMergeTree, so every read uses FINAL.
 */

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 500;

const AGENT_COLUMNS = `agent_id AS id, agent_key AS key, protocol, name, description, endpoint_url AS endpointUrl,
  card_url AS cardUrl, sources, source_first_seen AS sourceFirstSeen, first_seen AS firstSeen,
  last_seen AS lastSeen, active = 1 AS active, inactive_since AS inactiveSince, has_server_json = 1 AS hasServerJson`;

export interface ApiOptions {
  warehouse: Warehouse;
  logger?: Logger;
}

const TIME_FIELDS = ['firstSeen', 'lastSeen', 'inactiveSince'] as const;

/** Every time the API serves is ISO 8601 UTC, whatever the warehouse's text form. */
function withIsoTimes<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const f of TIME_FIELDS) if (typeof out[f] === 'string') out[f] = isoTime(out[f] as string);
  if (out.sourceFirstSeen && typeof out.sourceFirstSeen === 'object') {
    out.sourceFirstSeen = Object.fromEntries(Object.entries(out.sourceFirstSeen as Record<string, string>).map(([k, v]) => [k, isoTime(v)]));
  }
  return out as T;
}

function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}
function decodeCursor(cursor: string): string | null {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return key.length > 0 && encodeCursor(key) === cursor ? key : null;
}

export function buildApi({ warehouse, logger }: ApiOptions) {
  const app = Fastify({ loggerInstance: logger ?? silentLogger });
  void app.register(statsRoutes, { warehouse });
  void app.register(dashboardRoutes, { warehouse });

  app.get('/healthz', async (_req, reply) => {
    try {
      await warehouse.query('SELECT 1 AS ok');
      return { status: 'ok', warehouse: warehouse.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', error: (err as Error).message });
    }
  });

  app.get<{ Querystring: { limit?: string; cursor?: string; protocol?: string; source?: string; active?: string } }>(
    '/agents',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: PAGE_MAX },
            cursor: { type: 'string', maxLength: 4096 },
            protocol: { type: 'string', enum: ['a2a', 'mcp'] },
            source: { type: 'string', maxLength: 100 },
            active: { type: 'string', enum: ['true', 'false', 'all'] },
          },
        },
      },
    },
    async (req, reply) => {
      const limit = Number(req.query.limit ?? PAGE_DEFAULT);
      const after = req.query.cursor ? decodeCursor(req.query.cursor) : '';
      if (after === null) return reply.code(400).send({ error: 'invalid cursor' });
      // Agents whose owners asked to be hidden are never served (Methods §9).
      const where = ['agent_key > {after:String}', "opt_out != 'hidden'"];
      const params: Record<string, string | number> = { after, limit: limit + 1 };
      if (req.query.protocol) {
        where.push('protocol = {protocol:String}');
        params.protocol = req.query.protocol;
      }
      if (req.query.source) {
        where.push('has(sources, {source:String})');
        params.source = req.query.source;
      }
      const active = req.query.active ?? 'true';
      if (active !== 'all') where.push(`active = ${active === 'true' ? 1 : 0}`);
      const rows = await warehouse.query<Record<string, unknown> & { key: string }>(
        `SELECT ${AGENT_COLUMNS} FROM agents FINAL WHERE ${where.join(' AND ')} ORDER BY agent_key LIMIT {limit:UInt32}`,
        params,
      );
      const page = rows.slice(0, limit);
      const nextCursor = rows.length > limit ? encodeCursor(page[page.length - 1]!.key) : null;
      return { agents: page.map(withIsoTimes), nextCursor };
    },
  );

  app.get<{ Params: { id: string } }>('/agents/:id', async (req, reply) => {
    const id = req.params.id;
    if (!/^[0-9a-f]{16}$/.test(id)) return reply.code(404).send({ error: 'agent not found' });
    const [agent] = await warehouse.query<Record<string, unknown> & { key: string }>(
      `SELECT ${AGENT_COLUMNS} FROM agents FINAL WHERE agent_id = {id:String} AND opt_out != 'hidden' LIMIT 1`,
      { id },
    );
    if (!agent) return reply.code(404).send({ error: 'agent not found' });
    const listings = await warehouse.query<Record<string, unknown>>(
      `SELECT source, item_id AS itemId, name, version_label AS version, endpoint_url AS endpointUrl,
              card_url AS cardUrl, tombstoned = 1 AS tombstoned, first_seen AS firstSeen, last_seen AS lastSeen
       FROM listings FINAL WHERE agent_key = {key:String} ORDER BY source, item_id`,
      { key: agent.key },
    );
    // Latest check and verdict (current checker), last check time and uptime windows (Methods §4).
    return { ...withIsoTimes(agent), listings: listings.map(withIsoTimes), ...(await agentStatus(warehouse, agent.key)) };
  });

  return app;
}
