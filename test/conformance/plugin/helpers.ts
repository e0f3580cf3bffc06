import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginReport } from '../../../src/conformance/plugin/index.js';
import { checkPluginDirectory, type CheckPluginOptions } from '../../../src/runtime/usecases/plugin-package.js';

export const PLUGIN_FIXTURES = join(import.meta.dirname, '../../fixtures/plugins');

/** Checks one package directory and returns its report. */
export function checkOne(dir: string, opts: Omit<CheckPluginOptions, 'recursive'> = {}): PluginReport {
  const r = checkPluginDirectory(dir, { ...opts, recursive: false });
  if (r.recursive) throw new Error('unexpected set');
  return r.report;
}

export function outcomes(report: PluginReport, outcome: string): string[] {
  return report.rules.filter((r) => r.outcome === outcome).map((r) => r.id);
}

/** A temp copy of a fixture (or an empty temp dir), removed by the returned function. */
export function tempPackage(fixture?: string): { dir: string; base: string; done: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'veronikai-plugin-'));
  const dir = join(base, 'pkg');
  if (fixture) cpSync(join(PLUGIN_FIXTURES, fixture), dir, { recursive: true, verbatimSymlinks: true });
  return { dir, base, done: () => rmSync(base, { recursive: true, force: true }) };
}
