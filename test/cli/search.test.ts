import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';
import { runCli } from '../helpers/cli.js';
import { corpusAgents, corpusMissing, loadCorpus } from '../helpers/search-corpus.js';

/** `veronikai search` on a data directory holding the corpus's real agents, as a user runs it. */
describe.skipIf(corpusMissing() !== null)('veronikai search', () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'veronikai-cli-search-'));
    const wh = new EmbeddedWarehouse(join(root, 'warehouse'));
    try {
      await migrate(wh);
      await loadCorpus(wh, corpusAgents());
    } finally {
      await wh.close();
    }
  }, 120_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('prints the ranked hits with the matched words marked, and their score parts with --explain', async () => {
    const r = await runCli(['search', '--data-dir', root, '--explain', 'an', 'MCP', 'server', 'to', 'query', 'a', 'Postgres', 'database']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const first = r.stdout.split('\n')[0]!;
    expect(first).toMatch(/^ 1\. .*Postgres/);
    expect(r.stdout).toMatch(/relevance [\d.]+ = .*postgres→postgr \(exact\)/);
    expect(r.stdout).toMatch(/matches \(checker /);
  });

  it('prints JSON with --json, filters, and says when nothing matches', async () => {
    const json = await runCli(['search', '--data-dir', root, '--json', '--protocol', 'a2a', 'data']);
    const body = JSON.parse(json.stdout) as { hits: Array<{ protocol: string }>; facets: Record<string, unknown> };
    expect(body.hits.length).toBeGreaterThan(0);
    expect(body.hits.every((h) => h.protocol === 'a2a')).toBe(true);
    const none = await runCli(['search', '--data-dir', root, 'zzqqxxyy']);
    expect(none.stdout).toBe('No agents match.\n');
    const bad = await runCli(['search', '--data-dir', root, '--limit', '0', 'data']);
    expect(bad.code).toBe(2);
  });
});
