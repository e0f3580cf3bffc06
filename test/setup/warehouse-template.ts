/**
 * vitest globalSetup: one embedded warehouse with every migration applied, made once per run.
 * test/helpers/warehouse.ts copies it for each fresh warehouse a test asks for, instead of
 * applying the migrations again each time (about a second each, dozens of times a run). The
 * helper still runs `migrate` on the copy, which must find nothing left to apply.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-warehouse-template-'));
  const path = join(dir, 'warehouse');
  const wh = new EmbeddedWarehouse(path);
  try {
    await migrate(wh);
  } finally {
    await wh.close();
  }
  project.provide('warehouseTemplate', path);
  return () => rmSync(dir, { recursive: true, force: true });
}
