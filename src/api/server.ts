import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import Fastify from 'fastify';
import { silentLogger, type Logger } from '../log.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { installErrorHandlers, requestIdOf } from './errors.js';
import { agentRoutes } from './routes/agents.js';
import { badgeRoutes } from './routes/badges.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { feedRoutes } from './routes/feeds.js';
import { healthRoutes } from './routes/health.js';
import { registerOpenApi } from './openapi.js';
import { searchRoutes } from './routes/search.js';
import { statsRoutes } from './routes/stats.js';

/**
 * The read API. It reads ClickHouse only (through src/warehouse/read/), never
 * Kafka, and never writes. Every error it answers is `{ error: { code, message, requestId } }`.
 */

export { PAGE_DEFAULT, PAGE_MAX } from './responses.js';

export interface ApiOptions {
  warehouse: ReadOnlyWarehouse;
  logger?: Logger;
  /** The API's public base URL (absolute links: feeds, the agent page); absent: each request's protocol and Host. */
  publicUrl?: string | null;
}

export function buildApi({ warehouse, logger, publicUrl }: ApiOptions) {
  const base = Fastify({
    loggerInstance: logger ?? silentLogger,
    // Every request gets an id (a safe incoming x-request-id, else a UUID) for its log lines, its error body and its header.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Fastify's ajv removes unknown properties by default, so `additionalProperties: false` would
    // silently drop an unknown query parameter; with this it fails validation (400).
    ajv: { customOptions: { removeAdditional: false } },
  });
  installErrorHandlers(base);
  // The OpenAPI description (/openapi.json, /docs) is generated from the routes registered after it.
  registerOpenApi(base);
  const app = base.withTypeProvider<JsonSchemaToTsProvider>();
  void app.register(healthRoutes, { warehouse });
  void app.register(agentRoutes, { warehouse, publicUrl });
  void app.register(statsRoutes, { warehouse });
  void app.register(searchRoutes, { warehouse });
  void app.register(dashboardRoutes, { warehouse });
  void app.register(badgeRoutes, { warehouse });
  void app.register(feedRoutes, { warehouse, publicUrl });
  return app;
}
