import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';

/**
 * A fresh embedded warehouse in its own temporary directory, migrated unless asked not
 * to be, and a close() that frees the engine and removes the directory.
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
  const wh = new EmbeddedWarehouse(join(dir, 'warehouse'));
  const close = async (): Promise<void> => {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (options.migrate !== false) await migrate(wh);
  } catch (err) {
    await close();
    throw err;
  }
  return { wh, dir, close };
}
