import type { ReadOnlyWarehouse } from '../warehouse.js';

/** Whether the warehouse answers at all: one constant row (the API's health check). */
export async function ping(wh: ReadOnlyWarehouse): Promise<void> {
  await wh.query('SELECT 1 AS ok');
}
