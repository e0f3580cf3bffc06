import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { WarehouseError } from '../../src/warehouse/errors.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { insertScratch } from '../helpers/scratch-table.js';

// chdb binds ONE data directory per process, and vitest runs each test file in its own
// worker, so each warehouse test file uses its own fresh temporary directory.

async function caught(p: Promise<unknown>): Promise<WarehouseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WarehouseError);
    return err as WarehouseError;
  }
  throw new Error('expected a WarehouseError, got success');
}

describe('embedded warehouse adapter (chdb)', () => {
  // A fresh directory per test, so no test reads rows another wrote (chdb holds one at a time).
  let dir: string;
  let wh: Warehouse;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-wh-embedded-'));
    wh = await openWarehouse({ kind: 'embedded', path: join(dir, 'warehouse') });
    await wh.exec(`CREATE TABLE IF NOT EXISTS things (
      id String, n UInt64, at DateTime64(3, 'UTC'), seen Map(String, DateTime64(3, 'UTC')),
      tags Array(LowCardinality(String)), status Nullable(UInt16)
    ) ENGINE = ReplacingMergeTree ORDER BY id`);
  });

  afterEach(async () => {
    await wh?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the embedded kind', () => {
    expect(wh.kind).toBe('embedded');
  });

  it('round-trips DateTime64, Map, Array, Nullable and UInt64 through JSONEachRow', async () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    await insertScratch(wh, 'things', [
      { id: 'a', n: 18446744073709551615n, at, seen: { reg: at, other: '2026-01-01T00:00:00.5Z' }, tags: ['x', 'y'], status: null },
      { id: 'b', n: 7, at: '2026-01-02 03:04:05.001', seen: {}, tags: [], status: 404 },
    ]);
    const rows = await wh.query('SELECT * FROM things FINAL ORDER BY id;');
    expect(rows).toEqual([
      {
        id: 'a',
        n: '18446744073709551615',
        at: '2026-01-02 03:04:05.678',
        seen: { reg: '2026-01-02 03:04:05.678', other: '2026-01-01 00:00:00.500' },
        tags: ['x', 'y'],
        status: null,
      },
      { id: 'b', n: '7', at: '2026-01-02 03:04:05.001', seen: {}, tags: [], status: 404 },
    ]);
  });

  it('binds {name:Type} parameters without splicing them into the SQL', async () => {
    const hostile = "a' OR 1=1 --\\\t\n";
    const rows = await wh.query<{ s: string; d: string; xs: string[]; big: string; none: null }>(
      "SELECT {s:String} AS s, {d:DateTime64(3, 'UTC')} AS d, {xs:Array(String)} AS xs, {big:UInt64} AS big, {none:Nullable(String)} AS none",
      { s: hostile, d: new Date(Date.UTC(2026, 5, 1, 0, 0, 0, 250)), xs: ['p', "q'r"], big: 9007199254740993n, none: null },
    );
    expect(rows).toEqual([{ s: hostile, d: '2026-06-01 00:00:00.250', xs: ['p', "q'r"], big: '9007199254740993', none: null }]);
    await insertScratch(wh, 'things', [{ id: 'a', n: 1, at: new Date() }]);
    const found = await wh.query('SELECT id FROM things FINAL WHERE id = {id:String}', { id: "a' OR '1'='1" });
    expect(found).toEqual([]);
  });

  it('exec runs statements without a result; an empty insert is a no-op', async () => {
    await wh.exec('INSERT INTO things (id, n, at) SELECT {id:String}, 1, now64(3)', { id: 'c' });
    await insertScratch(wh, 'things', []);
    expect(await wh.query('SELECT id, n FROM things FINAL')).toEqual([{ id: 'c', n: '1' }]);
  });

  it('maps a syntax error to kind "syntax" with code 62', async () => {
    const err = await caught(wh.query('SELEC 1'));
    expect(err.kind).toBe('syntax');
    expect(err.code).toBe(62);
  });

  it('maps an unknown table to kind "unknown_table" with code 60, for queries and inserts', async () => {
    const err = await caught(wh.query('SELECT * FROM no_such_table'));
    expect(err.kind).toBe('unknown_table');
    expect(err.code).toBe(60);
    const err2 = await caught(insertScratch(wh, 'no_such_table', [{ id: 'x' }]));
    expect(err2.kind).toBe('unknown_table');
    expect(err2.code).toBe(60);
  });

  it('maps missing or malformed parameters to kind "bad_params"', async () => {
    expect((await caught(wh.query('SELECT {x:UInt8} AS x', { y: 1 }))).kind).toBe('bad_params');
    const bad = await caught(wh.query('SELECT {x:UInt8} AS x', { x: 'not a number' }));
    expect(bad.kind).toBe('bad_params');
    expect(bad.code).toBe(457);
    expect((await caught(wh.query('SELECT 1', { 'bad name': 1 }))).kind).toBe('bad_params');
  });

  it('rejects a field that is not a column, and unparsable values, as "bad_data"', async () => {
    const err = await caught(insertScratch(wh, 'things', [{ id: 'd', n: 1, at: new Date(), typo: true }]));
    expect(err.kind).toBe('bad_data');
    expect(err.code).toBe(117);
    const err2 = await caught(insertScratch(wh, 'things', [{ id: 'e', n: 'many', at: new Date() }]));
    expect(err2.kind).toBe('bad_data');
  });

  it('refuses a table name that is not a plain identifier', async () => {
    const err = await caught(insertScratch(wh, 'things; DROP TABLE things', [{ id: 'x' }]));
    expect(err.kind).toBe('syntax');
    expect(await wh.query('EXISTS TABLE things')).toEqual([{ result: 1 }]);
  });

  it('cannot open a second data directory in the same process (chdb binds one per process)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'veronikai-wh-other-'));
    try {
      let err: unknown;
      try {
        new EmbeddedWarehouse(other);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(WarehouseError);
      expect((err as WarehouseError).kind).toBe('connection');
      // The first warehouse is unaffected.
      expect(await wh.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('a second warehouse on the same directory shares the data; close is idempotent', async () => {
    await insertScratch(wh, 'things', [
      { id: 'a', n: 1, at: new Date() },
      { id: 'b', n: 2, at: new Date() },
    ]);
    const second = new EmbeddedWarehouse(join(dir, 'warehouse'));
    expect(await second.query('SELECT toUInt32(count()) AS c FROM things FINAL')).toEqual([{ c: 2 }]);
    await second.close();
    await second.close();
    expect((await caught(second.query('SELECT 1'))).kind).toBe('closed');
    expect((await caught(insertScratch(second, 'things', [{ id: 'z' }]))).kind).toBe('closed');
    expect(await wh.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('a deadline rejects with kind "timeout" (the engine finishes the work in the background)', async () => {
    const w = new EmbeddedWarehouse(join(dir, 'warehouse'), { timeoutMs: 200 });
    try {
      const err = await caught(w.query('SELECT sleep(1)'));
      expect(err.kind).toBe('timeout');
    } finally {
      await w.close(); // waits for the sleeping query to drain
    }
  });
});
