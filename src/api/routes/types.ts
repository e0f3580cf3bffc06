import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';

/** A group of routes over the warehouse, with request types derived from the routes' JSON schemas. */
export type ApiRoutes = FastifyPluginAsyncJsonSchemaToTs<{ Options: { warehouse: ReadOnlyWarehouse } }>;
