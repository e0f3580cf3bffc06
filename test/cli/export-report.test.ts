import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { CENSUS_DAY, fillCensus } from '../stats/census-fixture.js';

// `export` and `report census` as a user runs them on a data directory.

describe('veronikai export and report census', () => {
  let t: TestWarehouse;
  let dir: string;
  beforeAll(async () => {
    t = await withWarehouse('cli-export');
    dir = t.dir;
    await fillCensus(t.wh);
    // The commands run in child processes on this data directory: free it for them.
    await t.wh.close();
  });
  afterAll(() => t?.close());

  it('exports a snapshot whose checksums repeat and reports the census', async () => {
    const a = await runCli(['export', '--data-dir', dir, '--out', join(dir, 'a'), '--format', 'jsonl']);
    expect(a).toMatchObject({ code: 0, stderr: '' });
    expect(a.stdout).toMatch(/^verdicts\.jsonl: 63 row\(s\)/m);
    const b = await runCli(['export', '--data-dir', dir, '--out', join(dir, 'b'), '--format', 'jsonl']);
    expect(readFileSync(join(dir, 'b', 'SHA256SUMS'), 'utf8')).toBe(readFileSync(join(dir, 'a', 'SHA256SUMS'), 'utf8'));
    expect(b.code).toBe(0);

    const r = await runCli(['report', 'census', '--data-dir', dir, '--date', CENSUS_DAY, '--format', 'json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(r.stdout) as { byRoute: Array<{ key: string; cards: number; sampleInvalid: { share: number } }> };
    expect(report.byRoute.find((g) => g.key === 'declared')).toMatchObject({ cards: 30, sampleInvalid: { share: 0.25 } });
    const bad = await runCli(['report', 'census', '--data-dir', dir, '--date', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--date expects a date/);
  });
});
