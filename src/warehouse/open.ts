import type { WarehouseConfig } from '../config.js';
import { EmbeddedWarehouse } from './embedded.js';
import { ServerWarehouse } from './server.js';
import type { ConnectionOptions } from './read-only.js';
import type { ReadOnlyWarehouse, Warehouse } from './warehouse.js';

export interface OpenOptions extends ConnectionOptions {
  /** Server only: create the configured database first when it is missing (what `migrate` wants). */
  createDatabase?: boolean;
}

/**
 * Opens the warehouse the configuration names: chdb in a local directory, or a
 * ClickHouse server over HTTP. With `readOnly`, the connection refuses every
 * write (see read-only.ts); its exec and insert reject with kind 'refused'.
 */
export async function openWarehouse(config: WarehouseConfig, options: OpenOptions = {}): Promise<Warehouse> {
  if (config.kind === 'embedded') {
    return new EmbeddedWarehouse(config.path, {
      ...(options.readOnly ? { readOnly: true } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxBlockRows === undefined ? {} : { maxBlockRows: options.maxBlockRows }),
    });
  }
  const server = new ServerWarehouse({
    url: config.url,
    database: config.database,
    ...(config.username === undefined ? {} : { username: config.username }),
    ...(config.password === undefined ? {} : { password: config.password }),
    ...(options.timeoutMs === undefined ? {} : { requestTimeoutMs: options.timeoutMs }),
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.maxBlockRows === undefined ? {} : { maxBlockRows: options.maxBlockRows }),
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

/** A connection that only reads: what the API, the dashboard and `sql` get. */
export function openReadOnlyWarehouse(
  config: WarehouseConfig,
  options: Omit<OpenOptions, 'readOnly' | 'createDatabase'> = {},
): Promise<ReadOnlyWarehouse> {
  return openWarehouse(config, { ...options, readOnly: true });
}

export { EmbeddedWarehouse } from './embedded.js';
export { ServerWarehouse } from './server.js';
export { WarehouseError, isWarehouseError, type WarehouseErrorKind } from './errors.js';
export type { Warehouse, ReadOnlyWarehouse, QueryParams, QueryParamValue } from './warehouse.js';
