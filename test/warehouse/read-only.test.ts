import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardData } from '../../src/api/dashboard.js';
import { WarehouseError } from '../../src/warehouse/errors.js';
import { agentListPage } from '../../src/warehouse/read/search.js';
import { agentStatusRows } from '../../src/warehouse/read/status.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { insertScratch } from '../helpers/scratch-table.js';

// A read-only connection beside a writing one on the same data directory, as the API
// runs beside the processors: the engine's own read-only mode and deadline.

async function caught(p: Promise<unknown>): Promise<WarehouseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WarehouseError);
    return err as WarehouseError;
  }
  throw new Error('expected a WarehouseError, got success');
}

async function all<T>(it: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of it) out.push(...batch);
  return out;
}

describe('read-only warehouse connection (embedded)', () => {
  let t: TestWarehouse;
  let dir: string;
  let writer: Warehouse;
  let reader: Warehouse;

  beforeAll(async () => {
    t = await withWarehouse('wh-readonly');
    dir = t.dir;
    writer = t.wh;
    await writer.exec('CREATE TABLE items (id String) ENGINE = MergeTree ORDER BY id');
    await insertScratch(writer, 'items', [{ id: 'a' }, { id: 'b;c' }]);
    reader = await openWarehouse({ kind: 'embedded', path: join(dir, 'warehouse') }, { readOnly: true, timeoutMs: 2_000 });
  });

  afterAll(async () => {
    await reader?.close();
    await t?.close();
  });

  const count = async () => (await writer.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM items'))[0]!.n;

  it('reads and streams', async () => {
    expect(reader.readOnly).toBe(true);
    expect(await reader.query('SELECT {id:String} AS v', { id: "x'; DROP TABLE items; --" })).toEqual([{ v: "x'; DROP TABLE items; --" }]);
    expect(await all(reader.stream<{ id: string }>('SELECT id FROM items ORDER BY id'))).toEqual([{ id: 'a' }, { id: 'b;c' }]);
  });

  it('serves every read the API and the dashboard make (none changes a setting, which readonly=1 refuses)', async () => {
    const data = await dashboardData(reader);
    expect(data.census).toBeDefined();
    expect(await agentListPage(reader, { words: ['alpha'], protocol: null, after: null, limit: 5 })).toEqual({ rows: [], next: null });
    expect(await agentStatusRows(reader, ['https://a.example/mcp'])).toEqual([]);
  });

  it('runs with readonly=1 and the deadline as max_execution_time in the engine', async () => {
    expect(await reader.query("SELECT toUInt8(getSetting('readonly')) AS r, toUInt32(getSetting('max_execution_time')) AS m")).toEqual([
      { r: 1, m: 2 },
    ]);
    // The writer on the same directory keeps its own settings.
    expect(await writer.query("SELECT toUInt8(getSetting('readonly')) AS r")).toEqual([{ r: 0 }]);
    // A statement cannot lift them.
    expect((await caught(reader.query('SELECT 1 SETTINGS readonly = 0'))).kind).toBe('refused');
  });

  // Only our own SQL runs here (someone's goes through the guard, guard.test.ts); the engine's
  // readonly=1 still refuses every write, and introspection is off.
  it.each([
    ['DROP', 'DROP TABLE items'],
    ['INSERT', "INSERT INTO items VALUES ('z')"],
    ['ALTER … DELETE', 'ALTER TABLE items DELETE WHERE 1'],
    ['TRUNCATE', 'TRUNCATE TABLE items'],
    ['SET', 'SET readonly = 0'],
    ['the table function file()', "SELECT * FROM file('/etc/hostname', 'LineAsString')"],
    ['an introspection function', 'SELECT addressToSymbol(toUInt64(1))'],
  ])('the engine refuses %s and nothing changes', async (_what, sql) => {
    await caught(reader.query(sql));
    expect(await count()).toBe(2);
  });

  it('refuses exec and insert', async () => {
    expect((await caught(reader.exec('OPTIMIZE TABLE items'))).kind).toBe('refused');
    expect((await caught(insertScratch(reader, 'items', [{ id: 'z' }]))).kind).toBe('refused');
    expect(await count()).toBe(2);
  });

  it('stops a query at its deadline', async () => {
    const started = Date.now();
    const err = await caught(reader.query('SELECT count() FROM numbers(100000000000)'));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
