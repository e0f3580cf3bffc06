import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';

/** The client logs every error it meets; these are expected. */
const quiet = { log: { level: ClickHouseLogLevel.OFF } };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseHttp, describeError, type ClickHouseHttp } from '../../src/api/clickhouse-http.js';
import { EmbeddedRawReader } from '../../src/warehouse/raw-reader.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { AGENTS, openFilledWarehouse } from './fixture.js';

// The ClickHouse-compatible interface read by the official client, as Grafana or DBeaver would:
// formats, parameters, database, query id, errors in ClickHouse's shape, and every write refused.

describe('ClickHouse HTTP interface', () => {
  let wh: EmbeddedWarehouse;
  let closeWh: () => Promise<void>;
  let reader: EmbeddedRawReader;
  let iface: ClickHouseHttp;
  let small: ClickHouseHttp;
  let guarded: ClickHouseHttp;
  let url: string;
  let client: ClickHouseClient;

  beforeAll(async () => {
    ({ wh, close: closeWh } = await openFilledWarehouse('ch-http'));
    reader = new EmbeddedRawReader(wh.path, { timeoutMs: 5_000 });
    iface = createClickHouseHttp({ reader, credentials: null, databaseAliases: ['veronikai'] });
    url = `http://127.0.0.1:${await iface.listen('127.0.0.1', 0)}`;
    small = createClickHouseHttp({ reader, credentials: null, limits: { maxResultBytes: 4_096, deadlineMs: 700 } });
    await small.listen('127.0.0.1', 0);
    guarded = createClickHouseHttp({ reader, credentials: { user: 'default', password: 'sekret' } });
    await guarded.listen('127.0.0.1', 0);
    client = createClient({ url, database: 'veronikai', ...quiet });
  });

  afterAll(async () => {
    await client?.close();
    await iface?.close();
    await small?.close();
    await guarded?.close();
    await reader?.close();
    await closeWh?.();
  });

  const portOf = (h: ClickHouseHttp) => (h.server.address() as { port: number }).port;

  it('answers ping and reads rows as JSONEachRow and JSON (with meta) through @clickhouse/client', async () => {
    expect((await client.ping()).success).toBe(true);
    const rs = await client.query({ query: 'SELECT agent_key, name FROM agents FINAL ORDER BY agent_key', format: 'JSONEachRow' });
    const rows = await rs.json<{ agent_key: string; name: string }>();
    expect(rows.map((r) => r.agent_key)).toEqual(
      Object.values(AGENTS)
        .map((a) => a.key)
        .sort(),
    );
    const json = await (
      await client.query({ query: 'SELECT toUInt32(count()) AS n, count() AS big FROM agents FINAL', format: 'JSON' })
    ).json<{ n: number; big: string }>();
    expect(json.meta).toEqual([
      { name: 'n', type: 'UInt32' },
      { name: 'big', type: 'UInt64' },
    ]);
    expect(json.data).toEqual([{ n: Object.keys(AGENTS).length, big: String(Object.keys(AGENTS).length) }]);
  });

  it('binds query_params, echoes query_id and streams rows', async () => {
    const rs = await client.query({
      query: 'SELECT name FROM agents FINAL WHERE protocol = {p:String} AND has(sources, {s:String}) ORDER BY name',
      query_params: { p: 'mcp', s: 'smithery' },
      query_id: 'analyst-query-1',
      format: 'JSONEachRow',
    });
    expect(rs.query_id).toBe('analyst-query-1');
    expect(await rs.json()).toEqual([AGENTS.alpha.name, AGENTS.hostile.name].sort().map((name) => ({ name })));
    let n = 0;
    const stream = (await client.query({ query: 'SELECT number FROM numbers(100000)', format: 'JSONCompactEachRow' })).stream();
    for await (const batch of stream) n += (batch as unknown[]).length;
    expect(n).toBe(100_000);
  });

  it('refuses a write, a second statement, a setting and file() with ClickHouse errors', async () => {
    await expect(client.command({ query: "INSERT INTO agents (agent_key) VALUES ('x')" })).rejects.toMatchObject({
      code: '164',
      type: 'READONLY',
    });
    await expect(client.command({ query: 'DROP TABLE agents' })).rejects.toMatchObject({ code: '164' });
    await expect(client.query({ query: 'SELECT 1; DROP TABLE agents', format: 'JSONEachRow' })).rejects.toMatchObject({
      code: '62',
      message: expect.stringContaining('Multi-statements are not allowed'),
    });
    await expect(
      client.query({ query: 'SELECT 1', clickhouse_settings: { max_execution_time: 1000 }, format: 'JSONEachRow' }),
    ).rejects.toMatchObject({ code: '164', message: expect.stringContaining("Cannot modify 'max_execution_time'") });
    await expect(client.query({ query: 'SELECT 1 SETTINGS max_execution_time = 1000', format: 'JSONEachRow' })).rejects.toMatchObject({
      code: '164',
    });
    await expect(
      client.query({ query: "SELECT * FROM file('/etc/hostname', 'LineAsString')", format: 'JSONEachRow' }),
    ).rejects.toMatchObject({ code: '164' });
    const [row] = await (
      await client.query({ query: 'SELECT toUInt32(count()) AS n FROM agents FINAL', format: 'JSONEachRow' })
    ).json<{ n: number }>();
    expect(row!.n).toBe(Object.keys(AGENTS).length);
  });

  it('sends errors as a ClickHouse server does: status, code header and text body', async () => {
    const r = await fetch(`${url}/?query=${encodeURIComponent('SELECT * FROM no_such_table')}`);
    expect(r.status).toBe(404);
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await r.text()).toMatch(/^Code: 60\. DB::Exception: .*no_such_table.*\(UNKNOWN_TABLE\) \(version \d+\.\d+/);
    const syntax = await fetch(url, { method: 'POST', body: 'SELECT (1' });
    expect(syntax.status).toBe(400);
    expect(await syntax.text()).toMatch(/^Code: 62\. DB::Exception: .*\(SYNTAX_ERROR\)/);
    const db = await fetch(`${url}/?database=other&query=SELECT+1`);
    expect(db.status).toBe(404);
    expect(await db.text()).toMatch(/^Code: 81\. DB::Exception: Database other does not exist\. \(UNKNOWN_DATABASE\)/);
    const write = await fetch(url, { method: 'POST', body: 'CREATE TABLE t (a UInt8) ENGINE = Memory' });
    expect(write.status).toBe(403);
    expect(write.headers.get('x-clickhouse-exception-code')).toBe('164');
    expect(describeError(new Error('boom'))).toMatchObject({ code: 1001, type: 'STD_EXCEPTION' });
  });

  it('serves GET /?query= in default_format, a query-param prefix to a POST body, and a FORMAT clause', async () => {
    expect(await (await fetch(`${url}/?query=SELECT+1+AS+a,+'x'+AS+b`)).text()).toBe('1\tx\n');
    const csv = await fetch(`${url}/?default_format=CSVWithNames&query=${encodeURIComponent('SELECT 1 AS a')}`);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(csv.headers.get('x-clickhouse-format')).toBe('CSVWithNames');
    expect(await csv.text()).toBe('"a"\n1\n');
    const prefixed = await fetch(`${url}/?query=${encodeURIComponent('SELECT number FROM numbers(3)')}`, {
      method: 'POST',
      body: 'FORMAT JSONEachRow',
    });
    expect(await prefixed.text()).toBe('{"number":"0"}\n{"number":"1"}\n{"number":"2"}\n');
    const quotedFormat = await fetch(`${url}/?default_format=JSONEachRow&query=${encodeURIComponent("SELECT 'FORMAT CSV' AS a")}`);
    expect([quotedFormat.headers.get('x-clickhouse-format'), await quotedFormat.text()]).toEqual(['JSONEachRow', '{"a":"FORMAT CSV"}\n']);
    const parquet = await fetch(`${url}/?query=${encodeURIComponent('SELECT 1 AS a FORMAT Parquet')}`);
    expect(parquet.headers.get('content-type')).toBe('application/octet-stream');
    expect(
      Buffer.from(await parquet.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('PAR1');
  });

  it('caps the result size and the time, and reports both to the client', async () => {
    const c = createClient({ url: `http://127.0.0.1:${portOf(small)}`, ...quiet });
    try {
      await expect((await c.query({ query: 'SELECT number FROM numbers(1000000)', format: 'JSONEachRow' })).json()).rejects.toMatchObject({
        code: '396',
      });
      await expect(c.query({ query: 'SELECT sleepEachRow(0.5) FROM numbers(3)', format: 'JSONEachRow' })).rejects.toMatchObject({
        code: '159',
      });
      // The interface is still serving afterwards, once the engine has let go of the slow query
      // (chdb cannot interrupt it; its max_execution_time ends it).
      await expect
        .poll(async () => (await (await c.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json().catch(() => null)) ?? null, {
          timeout: 5_000,
          interval: 200,
        })
        .toEqual([{ one: 1 }]);
    } finally {
      await c.close();
    }
  });

  it("serves without a deadline or a result cap when told to (the owner's private endpoint)", async () => {
    // The results `small` refuses (past 4 KiB; past 700 ms), and a one-piece Parquet result past its cap.
    const owner = createClickHouseHttp({ reader, credentials: null, limits: { maxResultBytes: Infinity, deadlineMs: Infinity } });
    const c = createClient({ url: `http://127.0.0.1:${await owner.listen('127.0.0.1', 0)}`, ...quiet });
    try {
      const rows = await (
        await c.query({ query: 'SELECT number FROM numbers(1000000)', format: 'JSONEachRow' })
      ).json<{ number: string }>();
      expect(rows).toHaveLength(1_000_000);
      expect(rows[999_999]).toEqual({ number: '999999' });
      expect(await (await c.query({ query: 'SELECT sleepEachRow(0.5) AS s FROM numbers(3)', format: 'JSONEachRow' })).json()).toEqual([
        { s: 0 },
        { s: 0 },
        { s: 0 },
      ]);
      const parquet = await fetch(
        `http://127.0.0.1:${portOf(owner)}/?query=${encodeURIComponent('SELECT number FROM numbers(100000) FORMAT Parquet')}`,
      );
      const bytes = Buffer.from(await parquet.arrayBuffer());
      expect({ status: parquet.status, magic: bytes.subarray(0, 4).toString(), large: bytes.length > 4_096 }).toEqual({
        status: 200,
        magic: 'PAR1',
        large: true,
      });
      expect(bytes.includes('__exception__')).toBe(false);
    } finally {
      await c.close();
      await owner.close();
    }
  });

  it('asks for the password when it has a token', async () => {
    const base = `http://127.0.0.1:${portOf(guarded)}`;
    const anonymous = createClient({ url: base, ...quiet });
    const owner = createClient({ url: base, password: 'sekret', ...quiet });
    try {
      await expect(anonymous.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toMatchObject({ code: '516' });
      expect(await (await owner.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
    } finally {
      await anonymous.close();
      await owner.close();
    }
  });
});
