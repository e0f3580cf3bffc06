import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/warehouse/migrate.js';
import { openReadOnlyWarehouse } from '../../src/warehouse/open.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import type { ReadOnlyWarehouse } from '../../src/warehouse/warehouse.js';
import { AGENTS, OLD_CHECKER, openFilledWarehouse } from '../api/fixture.js';
import { fillCensus } from '../stats/census-fixture.js';

// The "Worked queries" of clickhouse/SCHEMA.md, taken from the guide itself and run on a fixture
// warehouse through a read-only connection (as `sql` runs them), so they never rot.

const guide = readFileSync(join(DEFAULT_MIGRATIONS_DIR, 'SCHEMA.md'), 'utf8');
const start = guide.indexOf('\n## Worked queries\n');
const section = guide.slice(start, guide.indexOf('\n## ', start + 1));
const queries = [...section.matchAll(/\n### (.+)\n[\s\S]*?```sql\n([\s\S]*?)```/g)].map((m) => ({ title: m[1]!, sql: m[2]! }));

/** Values for the placeholders the queries use. */
const PARAMS: Record<string, string> = { key: AGENTS.alpha.key, old: OLD_CHECKER, new: CHECKER_VERSION };

describe('worked queries in SCHEMA.md', () => {
  let wh: EmbeddedWarehouse;
  let close: () => Promise<void>;
  let reader: ReadOnlyWarehouse;
  beforeAll(async () => {
    ({ wh, close } = await openFilledWarehouse('worked'));
    // A2A cards with routes, versions and violations, judged under the current checker.
    await fillCensus(wh, CHECKER_VERSION);
    reader = await openReadOnlyWarehouse({ kind: 'embedded', path: wh.path });
  });
  afterAll(async () => {
    await reader?.close();
    await close?.();
  });

  it('has ten worked queries', () => {
    expect(start).toBeGreaterThan(0);
    expect(queries).toHaveLength(10);
  });

  it.each(queries.map((q) => [q.title, q.sql] as const))('%s', async (_title, sql) => {
    const names = [...sql.matchAll(/\{(\w+):/g)].map((m) => m[1]!);
    const params = Object.fromEntries(names.map((n) => [n, PARAMS[n]!]));
    const rows = await reader.query(sql, params);
    // Every query finds something in the fixture, so a wrong column or join would show.
    expect(rows.length).toBeGreaterThan(0);
  });
});
