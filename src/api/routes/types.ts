import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';

export interface ApiRouteOptions {
  warehouse: ReadOnlyWarehouse;
  /** The API's public base URL for absolute links; absent: each request's own (see links.ts). */
  publicUrl?: string | null;
}

/** A group of routes over the warehouse, with request types derived from the routes' JSON schemas. */
export type ApiRoutes = FastifyPluginAsyncJsonSchemaToTs<{ Options: ApiRouteOptions }>;
