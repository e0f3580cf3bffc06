import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerWarehouse } from '../../src/warehouse/server.js';
import { loadConfig } from '../../src/config.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { WarehouseError } from '../../src/warehouse/errors.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import {
  CLICKHOUSE_SERVER_INSTALL,
  findClickHouseServer,
  freePort,
  READER_PASSWORD,
  READER_USER,
  startClickHouseServer,
  type ClickHouseServer,
} from '../helpers/clickhouse-server.js';
import { insertScratch } from '../helpers/scratch-table.js';

// The server adapter against a real ClickHouse HTTP server: Debian's clickhouse-server
// (18.16 here). That version is too old for the schema (no TTL, no DateTime64), so these
// tests exercise the transport and the error mapping only, with SQL 18.16 understands.

const binary = findClickHouseServer();
const missingMessage = `clickhouse-server is not installed; install it with: ${CLICKHOUSE_SERVER_INSTALL}`;

if (!binary && process.env.CI) {
  describe('server warehouse adapter', () => {
    it('needs clickhouse-server', () => {
      throw new Error(missingMessage);
    });
  });
}

async function caught(p: Promise<unknown>): Promise<WarehouseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WarehouseError);
    return err as WarehouseError;
  }
  throw new Error('expected a WarehouseError, got success');
}

describe.skipIf(!binary)(
  binary ? 'server warehouse adapter (clickhouse-server)' : `server warehouse adapter: skipped, ${missingMessage}`,
  () => {
    let server: ClickHouseServer;
    let wh: Warehouse;

    beforeAll(async () => {
      server = await startClickHouseServer({ binary: binary ?? undefined });
      wh = await openWarehouse({ kind: 'server', url: server.url, database: 'veronikai_test' }, { createDatabase: true });
    });

    afterAll(async () => {
      await wh?.close();
      await server?.stop();
    });

    it('creates its database and reports the server kind', async () => {
      expect(wh.kind).toBe('server');
      const rows = await wh.query<{ db: string }>('SELECT currentDatabase() AS db');
      expect(rows).toEqual([{ db: 'veronikai_test' }]);
      // Creating it again is harmless.
      await (wh as ServerWarehouse).ensureDatabase();
    });

    it('queries rows as JSON, with 64-bit integers as strings', async () => {
      const rows = await wh.query('SELECT 1 AS one, toUInt64(18446744073709551615) AS big, [1, 2] AS arr, NULL AS nothing;');
      expect(rows).toEqual([{ one: 1, big: '18446744073709551615', arr: [1, 2], nothing: null }]);
    });

    // Each test that needs the table creates it afresh: none reads rows another wrote.
    const freshItems = async (): Promise<void> => {
      await wh.exec('DROP TABLE IF EXISTS items');
      await wh.exec(
        'CREATE TABLE items (id String, n UInt32, at DateTime, tags Array(String), note Nullable(String)) ENGINE = MergeTree ORDER BY id',
      );
    };

    it('inserts rows (Dates as UTC text) and reads them back', async () => {
      await freshItems();
      await insertScratch(wh, 'items', [
        { id: 'a', n: 1, at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), tags: ['x', 'y'], note: null },
        { id: 'b', n: 2, at: '2024-01-02 03:04:06', tags: [], note: 'it\'s "quoted"\n' },
      ]);
      await insertScratch(wh, 'items', []);
      const rows = await wh.query('SELECT id, n, toString(at) AS at, tags, note FROM items ORDER BY id');
      expect(rows).toEqual([
        { id: 'a', n: 1, at: '2024-01-02 03:04:05', tags: ['x', 'y'], note: null },
        { id: 'b', n: 2, at: '2024-01-02 03:04:06', tags: [], note: 'it\'s "quoted"\n' },
      ]);
    });

    it('rejects a field that is not a column instead of dropping it', async () => {
      await freshItems();
      const err = await caught(insertScratch(wh, 'items', [{ id: 'c', n: 3, at: '2024-01-01 00:00:00', tags: [], note: null, typo: 1 }]));
      expect(err.kind).toBe('bad_data');
      expect(err.code).toBeTypeOf('number');
    });

    it('refuses a table name that is not a plain identifier', async () => {
      const err = await caught(insertScratch(wh, 'items; DROP TABLE items', [{ id: 'x' }]));
      expect(err.kind).toBe('syntax');
      expect(err.code).toBeUndefined();
    });

    it('maps a syntax error to kind "syntax" with code 62', async () => {
      const err = await caught(wh.query('SELEC 1'));
      expect(err.kind).toBe('syntax');
      expect(err.code).toBe(62);
      expect(err.message).toMatch(/Syntax error/);
    });

    it('maps an unknown table to kind "unknown_table" with code 60', async () => {
      const err = await caught(wh.query('SELECT * FROM no_such_table'));
      expect(err.kind).toBe('unknown_table');
      expect(err.code).toBe(60);
      const err2 = await caught(wh.exec('INSERT INTO no_such_table SELECT 1'));
      expect(err2.kind).toBe('unknown_table');
    });

    it('reports query parameters as unsupported by this old server (they need ClickHouse 19+)', async () => {
      const err = await caught(wh.query('SELECT {x:String} AS x', { x: 'hi' }));
      expect(err.kind).toBe('server');
      expect(err.code).toBe(115); // UNKNOWN_SETTING param_x
    });

    it('maps a request that outlives its deadline to kind "timeout"', async () => {
      const slow = new ServerWarehouse({ url: server.url, database: 'veronikai_test', requestTimeoutMs: 1000 });
      try {
        const started = Date.now();
        const err = await caught(slow.query('SELECT sleep(3)'));
        const elapsed = Date.now() - started;
        expect(err.kind).toBe('timeout');
        expect(elapsed).toBeGreaterThanOrEqual(900);
        expect(elapsed).toBeLessThan(2900);
        // The same client still works afterwards.
        expect(await slow.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
      } finally {
        await slow.close();
      }
    });

    it('maps a refused connection to kind "connection"', async () => {
      const port = await freePort(); // nothing listens there any more
      const nowhere = new ServerWarehouse({ url: `http://127.0.0.1:${port}`, database: 'default', requestTimeoutMs: 2000 });
      try {
        const err = await caught(nowhere.query('SELECT 1'));
        expect(err.kind).toBe('connection');
        expect(err.message).toMatch(/ECONNREFUSED/);
        const err2 = await caught(nowhere.ensureDatabase());
        expect(err2.kind).toBe('connection');
      } finally {
        await nowhere.close();
      }
    });

    it('signs in with the configured user and password, and is refused with a wrong one', async () => {
      const config = loadConfig(
        { warehouse: server.url, clickhouseUser: READER_USER, clickhouseDatabase: 'default' },
        { VERONIKAI_CLICKHOUSE_PASSWORD: READER_PASSWORD },
      );
      const reader = await openWarehouse(config.warehouse);
      try {
        // 18.16 has no currentUser(): the running query itself says who runs it.
        expect(
          await reader.query<{ u: string }>("SELECT user AS u FROM system.processes WHERE query LIKE '%whoami-probe%' LIMIT 1"),
        ).toEqual([{ u: READER_USER }]);
      } finally {
        await reader.close();
      }
      const wrong = await openWarehouse({ ...config.warehouse, password: 'not-it' } as typeof config.warehouse);
      try {
        await expect(wrong.query('SELECT 1')).rejects.toThrow();
      } finally {
        await wrong.close();
      }
    });

    it('opens a read-only connection: readonly=1 on every request, the statement checks, a streamed read', async () => {
      await wh.exec('DROP TABLE IF EXISTS kept');
      await wh.exec('CREATE TABLE kept (id String) ENGINE = Memory');
      await insertScratch(wh, 'kept', [{ id: 'a' }, { id: 'b;c' }]);
      const reader = await openWarehouse(
        { kind: 'server', url: server.url, database: 'veronikai_test' },
        { readOnly: true, timeoutMs: 5_000 },
      );
      try {
        expect(reader.readOnly).toBe(true);
        expect(await reader.query("SELECT id FROM kept WHERE id = 'b;c';")).toEqual([{ id: 'b;c' }]);
        const streamed: unknown[] = [];
        for await (const batch of reader.stream('SELECT toUInt64(number) AS n FROM system.numbers LIMIT 3')) streamed.push(...batch);
        expect(streamed).toEqual([{ n: '0' }, { n: '1' }, { n: '2' }]);
        // Passes the statement checks; the server's readonly=1 refuses it.
        const lifted = await caught(reader.query('SELECT 1 SETTINGS readonly = 0'));
        expect(lifted.kind).toBe('refused');
        expect(lifted.code).toBe(164);
        // The server judges these itself (one statement a request, readonly=1, no INTO OUTFILE over HTTP).
        for (const sql of [
          'SELECT 1; DROP TABLE kept',
          'DROP TABLE kept',
          "SELECT * FROM url('http://127.0.0.1:1/', 'TSV', 'a String')",
          "SELECT 1 INTO OUTFILE '/tmp/x'",
        ]) {
          await caught(reader.query(sql));
        }
        expect((await caught(reader.exec('DROP TABLE kept'))).kind).toBe('refused');
        expect((await caught(insertScratch(reader, 'kept', [{ id: 'z' }]))).kind).toBe('refused');
        expect(await wh.query('SELECT count() AS n FROM kept')).toEqual([{ n: '2' }]);
      } finally {
        await reader.close();
      }
    });

    it('refuses calls after close', async () => {
      const w = new ServerWarehouse({ url: server.url, database: 'veronikai_test' });
      await w.close();
      await w.close();
      expect((await caught(w.query('SELECT 1'))).kind).toBe('closed');
    });
  },
);
