import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/warehouse/migrate.js';
import { VIEWS } from '../../src/warehouse/rows.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

// clickhouse/SCHEMA.md is the analysts' guide: it must not drift from the migrations.
// Every view it names exists and every view that exists is in it; the columns it lists
// for each __v2 view are the view's columns; its TTL column and its "kept forever"
// list agree with the tables' engines.

const guide = readFileSync(join(DEFAULT_MIGRATIONS_DIR, 'SCHEMA.md'), 'utf8');
const section = (title: string): string => {
  const start = guide.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThan(-1);
  const end = guide.indexOf('\n## ', start + 1);
  return guide.slice(start, end === -1 ? undefined : end);
};
const names = (text: string, re: RegExp): string[] => [...new Set([...text.matchAll(re)].map((m) => m[1]!))].sort();

describe('the schema guide matches the migrations (embedded)', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('wh-schema');
  });
  afterAll(async () => {
    await t?.close();
  });

  const objects = (engine: 'View' | 'table') =>
    t.wh.query<{ name: string; engine_full: string }>(
      `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND engine ${engine === 'View' ? '=' : '!='} 'View' ORDER BY name`,
    );
  const columns = async (view: string) => (await t.wh.query<{ name: string }>(`DESCRIBE ${view}`)).map((c) => c.name);

  it('v_agents_current__v2 shows the owner opt-out (v1 froze its columns before it existed)', async () => {
    const v2 = await columns('v_agents_current__v2');
    expect(v2).toEqual(expect.arrayContaining(['opt_out', 'opt_out_reason', 'source_count']));
    expect(await columns('v_agents_current__v1')).not.toContain('opt_out');
  });

  it('names every view the migrations create, and no other', async () => {
    const existing = (await objects('View')).map((v) => v.name);
    expect(names(guide, /`(v_[a-z0-9_]+__v\d+)`/g)).toEqual(existing);
    // The code reads the __v2 views.
    expect(existing).toEqual(expect.arrayContaining(Object.values(VIEWS)));
  });

  it('lists the columns of every __v2 view as DESCRIBE shows them', async () => {
    const listed = new Map(
      [...section('Views').matchAll(/^- `(v_[a-z0-9_]+__v2)`: (.+)$/gm)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/`([a-z0-9_]+)`/g)].map((c) => c[1]!),
      ]),
    );
    const v2 = (await objects('View')).map((v) => v.name).filter((n) => n.endsWith('__v2'));
    expect([...listed.keys()].sort()).toEqual(v2);
    for (const view of v2) expect(listed.get(view), view).toEqual(await columns(view));
  });

  it('names every table, with the TTL its engine has, and the forever-kept list matches', async () => {
    const tables = await objects('table');
    const rows = [...section('Tables').matchAll(/^\| `([a-z_]+)` \|.*\| ([^|]+) \|$/gm)].map((m) => ({ name: m[1]!, ttl: m[2]!.trim() }));
    expect(rows.map((r) => r.name).sort()).toEqual(tables.map((x) => x.name));
    const hasTtl = new Map(tables.map((x) => [x.name, x.engine_full.includes(' TTL ')]));
    for (const r of rows) expect(hasTtl.get(r.name), r.name).toBe(r.ttl !== 'none');
    const kept = /\*\*Kept forever\*\* \(no TTL\): ([\s\S]*?)\. Only/.exec(section('Conventions'))?.[1] ?? '';
    expect(names(kept, /`([a-z_]+)`/g)).toEqual(
      tables
        .filter((x) => !hasTtl.get(x.name))
        .map((x) => x.name)
        .sort(),
    );
  });
});
