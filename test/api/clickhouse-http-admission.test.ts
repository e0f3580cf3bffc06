import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseHttp, type ClickHouseHttp } from '../../src/api/clickhouse-http.js';
import { CHALLENGE_PATH, challengeProof } from '../../src/api/clickhouse-http-admission.js';
import { EmbeddedRawReader, type RawReader } from '../../src/warehouse/raw-reader.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

// Who may use the ClickHouse HTTP interface, as a ClickHouse server decides it: a user and a
// password (three ways of sending them, one at a time), /ping open; and no request from a browser
// page of another site or for a Host that is not one of the interface's names. A refused request
// never reaches the engine.

const quiet = { log: { level: ClickHouseLogLevel.OFF } };
const PASSWORD = 'pa55-word';

interface Answer {
  status: number;
  code: string | undefined;
  body: string;
}

/** One request with exactly these headers (fetch would not let a test set Host). */
function send(port: number, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, code: res.headers['x-clickhouse-exception-code'] as string | undefined, body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const q = (sql: string) => `/?query=${encodeURIComponent(sql)}`;

describe('ClickHouse HTTP interface admission', () => {
  let t: TestWarehouse;
  let engine: EmbeddedRawReader;
  /** Every statement that reached the engine. */
  const seen: string[] = [];
  let iface: ClickHouseHttp;
  let named: ClickHouseHttp;
  let port: number;
  let namedPort: number;

  beforeAll(async () => {
    t = await withWarehouse('ch-admission');
    engine = new EmbeddedRawReader(t.wh.path, { timeoutMs: 5_000 });
    const reader: RawReader = {
      database: engine.database,
      stream: (sql, opts) => {
        seen.push(sql);
        return engine.stream(sql, opts);
      },
      close: () => engine.close(),
    };
    iface = createClickHouseHttp({ reader, credentials: { user: 'default', password: PASSWORD }, allowedHosts: ['Index.Example'] });
    port = await iface.listen('127.0.0.1', 0);
    named = createClickHouseHttp({ reader, credentials: { user: 'grafana', password: PASSWORD } });
    namedPort = await named.listen('127.0.0.1', 0);
  });

  afterAll(async () => {
    await iface?.close();
    await named?.close();
    await engine?.close();
    await t?.close();
  });

  it('reads through @clickhouse/client with the password, and refuses it without one or with a wrong one (516)', async () => {
    const url = `http://127.0.0.1:${port}`;
    const owner = createClient({ url, password: PASSWORD, ...quiet });
    const anonymous = createClient({ url, ...quiet });
    const wrong = createClient({ url, password: `${PASSWORD}x`, ...quiet });
    const stranger = createClient({ url, username: 'admin', password: PASSWORD, ...quiet });
    try {
      expect(await (await owner.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
      for (const c of [anonymous, wrong, stranger]) {
        await expect(c.query({ query: "SELECT 'refused' AS r", format: 'JSONEachRow' })).rejects.toMatchObject({
          code: '516',
          type: 'AUTHENTICATION_FAILED',
        });
      }
      // Ping needs no password (a health check), as on a server.
      expect((await anonymous.ping()).success).toBe(true);
    } finally {
      await Promise.all([owner, anonymous, wrong, stranger].map((c) => c.close()));
    }
    expect(seen.filter((s) => s.includes('refused'))).toEqual([]);
  });

  it('takes Basic auth, X-ClickHouse-User/Key or user/password parameters, one way at a time; 403 otherwise', async () => {
    expect(await send(port, q('SELECT 1'), basic('default', PASSWORD))).toMatchObject({ status: 200, body: '1\n' });
    expect(await send(port, q('SELECT 2'), { 'x-clickhouse-user': 'default', 'x-clickhouse-key': PASSWORD })).toMatchObject({
      status: 200,
      body: '2\n',
    });
    // What a CLI client sends: a plain GET, credentials in the URL, no Origin, no Sec-Fetch-Site.
    expect(await send(port, `${q('SELECT 3')}&user=default&password=${PASSWORD}`)).toMatchObject({ status: 200, body: '3\n' });
    // No user named: `default`.
    expect(await send(port, `${q('SELECT 4')}&password=${PASSWORD}`)).toMatchObject({ status: 200, body: '4\n' });
    expect(await send(port, q('SELECT 5'), { 'x-clickhouse-key': PASSWORD })).toMatchObject({ status: 200, body: '5\n' });

    const refused = [
      await send(port, q("SELECT 'refused'")),
      await send(port, q("SELECT 'refused'"), basic('default', 'nope')),
      await send(port, q("SELECT 'refused'"), { 'x-clickhouse-user': 'admin', 'x-clickhouse-key': PASSWORD }),
      await send(port, `${q("SELECT 'refused'")}&user=default&password=nope`),
      await send(port, q("SELECT 'refused'"), { authorization: `Bearer ${PASSWORD}` }),
      await send(port, '/', basic('default', 'nope'), 'POST', "SELECT 'refused'"),
      // Two ways at once: refused, as a server does, even when both are right.
      await send(port, `${q("SELECT 'refused'")}&password=${PASSWORD}`, basic('default', PASSWORD)),
      await send(port, q("SELECT 'refused'"), { ...basic('default', PASSWORD), 'x-clickhouse-key': PASSWORD }),
    ];
    for (const r of refused) {
      expect(r).toMatchObject({ status: 403, code: '516' });
      expect(r.body).toMatch(/^Code: 516\. DB::Exception: .*\(AUTHENTICATION_FAILED\) \(version /);
      expect(r.body).not.toContain(PASSWORD);
    }
    expect(seen.filter((s) => s.includes('refused'))).toEqual([]);
  });

  it('asks for the configured user, not default', async () => {
    expect(await send(namedPort, q('SELECT 6'), basic('grafana', PASSWORD))).toMatchObject({ status: 200, body: '6\n' });
    expect(await send(namedPort, `${q("SELECT 'refused'")}&password=${PASSWORD}`)).toMatchObject({ status: 403, code: '516' });
    expect(await send(namedPort, q("SELECT 'refused'"), basic('default', PASSWORD))).toMatchObject({ status: 403, code: '516' });
  });

  it('answers only for its own names in Host: listen address, localhost, [::1] and the configured ones', async () => {
    const auth = basic('default', PASSWORD);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'index.example', `INDEX.example.:${port}`]) {
      expect(await send(port, q('SELECT 7'), { ...auth, host }), host).toMatchObject({ status: 200, body: '7\n' });
    }
    // A name rebound to loopback by an attacker's DNS is still the attacker's name.
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'user@127.0.0.1']) {
      const r = await send(port, q("SELECT 'refused'"), { ...auth, host });
      expect({ host, status: r.status, code: r.code }).toEqual({ host, status: 403, code: '497' });
      expect(r.body).toMatch(
        /^Code: 497\. DB::Exception: Host '.*' is not a name of this interface .*VERONIKAI_CLICKHOUSE_HTTP_HOSTS.*\(ACCESS_DENIED\)/,
      );
    }
    // Even /ping's neighbours are refused for a foreign Host; /ping itself stays open to health checks.
    expect(await send(port, '/ping', { host: 'evil.example' })).toMatchObject({ status: 200, body: 'Ok.\n' });
    expect(await send(namedPort, q("SELECT 'refused'"), { ...basic('grafana', PASSWORD), host: 'index.example' })).toMatchObject({
      status: 403,
      code: '497',
    });
    expect(seen.filter((s) => s.includes('refused'))).toEqual([]);
  });

  it('refuses what a browser marks as coming from another site or origin, even with the right password', async () => {
    const auth = basic('default', PASSWORD);
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1.evil.example:${port}` },
    ];
    for (const headers of foreign) {
      const r = await send(port, `${q("SELECT 'refused'")}&user=default&password=${PASSWORD}`, headers);
      expect({ headers, status: r.status, code: r.code }).toEqual({ headers, status: 403, code: '497' });
      expect(r.body).toMatch(/^Code: 497\. DB::Exception: A request from .* is refused.*\(ACCESS_DENIED\)/);
      expect((await send(port, '/', { ...auth, ...headers }, 'POST', "SELECT 'refused'")).code).toBe('497');
    }
    // Same origin, a navigation the user typed, or an origin among the interface's names: served.
    const own: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { origin: `http://127.0.0.1:${port}` },
      { origin: 'https://index.example' },
    ];
    for (const headers of own) {
      expect(await send(port, q('SELECT 8'), { ...auth, ...headers })).toMatchObject({ status: 200, body: '8\n' });
    }
    expect(seen.filter((s) => s.includes('refused'))).toEqual([]);
  });

  it('answers the challenge only where asked to (the private endpoint), without credentials, and nothing else without them', async () => {
    const nonce = 'ab'.repeat(32);
    // The public interface has no challenge route: it asks for the password like any other path.
    expect(await send(port, `${CHALLENGE_PATH}?nonce=${nonce}`)).toMatchObject({ status: 403, code: '516' });
    const priv = createClickHouseHttp({ reader: engine, credentials: { user: 'default', password: 'tok' }, challenge: true });
    const privPort = await priv.listen('127.0.0.1', 0);
    try {
      expect(await send(privPort, `${CHALLENGE_PATH}?nonce=${nonce}`)).toMatchObject({
        status: 200,
        body: `${challengeProof('tok', nonce, process.pid)}\n`,
      });
      expect(await send(privPort, `${CHALLENGE_PATH}?nonce=short`)).toMatchObject({ status: 400, code: '457' });
      expect(await send(privPort, `${CHALLENGE_PATH}?nonce=${nonce}`, { host: 'evil.example' })).toMatchObject({
        status: 403,
        code: '497',
      });
      expect(await send(privPort, q('SELECT 9'))).toMatchObject({ status: 403, code: '516' });
      expect(await send(privPort, q('SELECT 9'), { 'x-clickhouse-user': 'default', 'x-clickhouse-key': 'tok' })).toMatchObject({
        status: 200,
        body: '9\n',
      });
    } finally {
      await priv.close();
    }
  });
});
