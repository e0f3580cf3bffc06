import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';

/**
 * A fresh embedded warehouse in its own temporary directory, migrated unless asked not
 * to be, and a close() that frees the engine and removes the directory. Migrated means a copy
 * of the run's migrated template (test/setup/warehouse-template.ts) where there is one, on
 * which `migrate` then must find nothing to apply.
 *
 * chdb binds ONE data directory per process (vitest runs each file in its own worker):
 * close the previous warehouse before opening the next, e.g. open in beforeEach and
 * close in afterEach, which also keeps every test on rows it wrote itself.
 */
export interface TestWarehouse {
  wh: EmbeddedWarehouse;
  /** The temporary directory (the warehouse is in its `warehouse/` subdirectory). */
  dir: string;
  close(): Promise<void>;
}

export async function withWarehouse(label = 'wh', options: { migrate?: boolean } = {}): Promise<TestWarehouse> {
  const dir = mkdtempSync(join(tmpdir(), `veronikai-${label}-`));
  const template = options.migrate !== false ? inject('warehouseTemplate') : undefined;
  if (template) cpSync(template, join(dir, 'warehouse'), { recursive: true });
  const wh = new EmbeddedWarehouse(join(dir, 'warehouse'));
  const close = async (): Promise<void> => {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (options.migrate !== false) {
      const { applied } = await migrate(wh);
      if (template && applied.length > 0)
        throw new Error(`the warehouse template lacked migrations: ${applied.map((m) => m.name).join(', ')}`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { wh, dir, close };
}

/** `wh` with every statement its `query` runs recorded in `reads` (to hold a code path to the reads it makes). */
export function countingQueries<W extends object>(wh: W): { proxy: W; reads: string[] } {
  const reads: string[] = [];
  const proxy = new Proxy(wh, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const bound = (v as (...a: unknown[]) => unknown).bind(target);
      return prop === 'query' ? (sql: string, ...rest: unknown[]) => (reads.push(sql), bound(sql, ...rest)) : bound;
    },
  });
  return { proxy, reads };
}
