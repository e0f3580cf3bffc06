import type { WarehouseConfig } from '../config.js';
import { EmbeddedWarehouse } from './embedded.js';
import { ServerWarehouse } from './server.js';
import type { Warehouse } from './warehouse.js';

export interface OpenOptions {
  /** Per-call deadline in milliseconds (see the adapters for what a deadline can and cannot stop). */
  timeoutMs?: number;
  /** Server only: create the configured database first when it is missing (what `migrate` wants). */
  createDatabase?: boolean;
}

/** Opens the warehouse the configuration names: chdb in a local directory, or a ClickHouse server over HTTP. */
export async function openWarehouse(config: WarehouseConfig, options: OpenOptions = {}): Promise<Warehouse> {
  if (config.kind === 'embedded') {
    return new EmbeddedWarehouse(config.path, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  }
  const server = new ServerWarehouse({
    url: config.url,
    database: config.database,
    ...(config.username === undefined ? {} : { username: config.username }),
    ...(config.password === undefined ? {} : { password: config.password }),
    ...(options.timeoutMs === undefined ? {} : { requestTimeoutMs: options.timeoutMs }),
  });
  if (options.createDatabase) {
    try {
      await server.ensureDatabase();
    } catch (err) {
      await server.close();
      throw err;
    }
  }
  return server;
}

export { EmbeddedWarehouse } from './embedded.js';
export { ServerWarehouse } from './server.js';
export { WarehouseError, isWarehouseError, type WarehouseErrorKind } from './errors.js';
export type { Warehouse, QueryParams, QueryParamValue } from './warehouse.js';
