import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Logger } from '../../src/log.js';
import { CLICKHOUSE_PASSWORD_FILE, publicCredentials } from '../../src/runtime/clickhouse-password.js';
import { findInstance, startInstance } from '../../src/runtime/instance.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

// The public ClickHouse interface `run` and `api` serve with --clickhouse-port: never without a
// password (the configured one, or one generated once into the data directory, owner-only, kept
// across restarts so dashboards keep working), its user configurable, the start message naming
// the user and where the password is but never the password, and the Host names it answers to.

const quiet = { log: { level: ClickHouseLogLevel.OFF } };

/** A logger whose lines the test reads. */
function recordingLogger(): { log: Logger; text: () => string; lines: () => Array<Record<string, unknown>> } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const log: Logger = pino({ level: 'info' }, stream);
  return {
    log,
    text: () => out,
    lines: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

function status(url: string, headers: Record<string, string>): Promise<{ status: number; code: string | undefined; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: `/?query=${encodeURIComponent('SELECT 1')}`, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, code: res.headers['x-clickhouse-exception-code'] as string | undefined, body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the public ClickHouse interface asks for a password', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('ch-public');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('generates the password once, owner-only, reuses it, and refuses a file others can read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'veronikai-ch-password-'));
    try {
      const config = loadConfig({ dataDir: dir, clickhousePort: '0' }, {});
      const first = publicCredentials(config);
      const file = join(dir, CLICKHOUSE_PASSWORD_FILE);
      expect(first).toMatchObject({ user: 'default', file });
      expect(first.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(publicCredentials(config)).toEqual(first);
      // The variable wins, and then no file is read.
      expect(
        publicCredentials(
          loadConfig({ dataDir: dir }, { VERONIKAI_CLICKHOUSE_HTTP_PASSWORD: 'from-env', VERONIKAI_CLICKHOUSE_HTTP_USER: 'grafana' }),
        ),
      ).toEqual({ user: 'grafana', password: 'from-env', file: null });
      chmodSync(file, 0o644);
      expect(() => publicCredentials(config)).toThrow(/can be read or written by group or others.*chmod 600/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes its user, password and host names from the settings and refuses bad ones', () => {
    expect(loadConfig({}, {}).clickhouseInterface).toEqual({
      host: '127.0.0.1',
      port: null,
      user: 'default',
      password: null,
      allowedHosts: [],
    });
    const env = {
      VERONIKAI_CLICKHOUSE_HTTP_USER: 'grafana',
      VERONIKAI_CLICKHOUSE_HTTP_PASSWORD: 's3cret',
      VERONIKAI_CLICKHOUSE_HTTP_HOSTS: 'CH.example, 10.0.0.5,[::1]',
    };
    expect(loadConfig({}, env).clickhouseInterface).toMatchObject({
      user: 'grafana',
      password: 's3cret',
      allowedHosts: ['ch.example', '10.0.0.5', '[::1]'],
    });
    expect(loadConfig({ clickhouseHttpHosts: ['a.example', 'b.example'] }, {}).clickhouseInterface.allowedHosts).toEqual([
      'a.example',
      'b.example',
    ]);
    expect(() => loadConfig({}, { VERONIKAI_CLICKHOUSE_HTTP_USER: 'a:b' })).toThrow(/VERONIKAI_CLICKHOUSE_HTTP_USER/);
    expect(() => loadConfig({}, { VERONIKAI_CLICKHOUSE_HTTP_HOSTS: 'https://ch.example' })).toThrow(/VERONIKAI_CLICKHOUSE_HTTP_HOSTS/);
    expect(() => loadConfig({}, { VERONIKAI_CLICKHOUSE_HTTP_HOSTS: 'ch.example:8123' })).toThrow(/no scheme, port or path/);
  });

  it('serves @clickhouse/client with the generated password, refuses it without (516), and keeps the password across restarts', async () => {
    const config = loadConfig({ dataDir: t.dir, clickhousePort: '0' }, {});
    const file = join(t.dir, CLICKHOUSE_PASSWORD_FILE);
    expect(existsSync(file)).toBe(false);
    const rec = recordingLogger();
    let instance = await startInstance(config, rec.log, null);
    try {
      const url = instance!.clickhouseUrl!;
      const password = readFileSync(file, 'utf8').trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const line = rec.lines().find((l) => String(l.msg).startsWith('ClickHouse HTTP interface listening'));
      expect(line).toMatchObject({ url, msg: `ClickHouse HTTP interface listening (read-only): user default, password in ${file}` });
      expect(instance!.clickhouseLogin).toBe(`user default, password in ${file}`);
      expect(rec.text()).not.toContain(password);

      const analyst = createClient({ url, database: 'veronikai', password, ...quiet });
      const anonymous = createClient({ url, database: 'veronikai', ...quiet });
      try {
        expect(
          await (await analyst.query({ query: 'SELECT toUInt32(count()) AS n FROM agents FINAL', format: 'JSONEachRow' })).json(),
        ).toEqual([{ n: 0 }]);
        await expect(anonymous.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toMatchObject({
          code: '516',
          type: 'AUTHENTICATION_FAILED',
        });
        expect((await anonymous.ping()).success).toBe(true);
      } finally {
        await analyst.close();
        await anonymous.close();
      }
      expect(await status(url, { authorization: `Basic ${Buffer.from('default:wrong').toString('base64')}` })).toMatchObject({
        status: 403,
        code: '516',
      });
      // The owner's `sql` still reaches the private endpoint, which proved itself.
      expect(await findInstance(t.dir)).toMatchObject({ state: 'running', info: { pid: process.pid } });

      // A restart: the same password, so a dashboard configured with it keeps working.
      await instance!.close();
      instance = await startInstance(config, rec.log, null);
      const again = createClient({ url: instance!.clickhouseUrl!, password, ...quiet });
      try {
        expect(await (await again.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
      } finally {
        await again.close();
      }
      expect(readFileSync(file, 'utf8').trim()).toBe(password);
    } finally {
      await instance?.close();
    }
  });

  it('asks for the configured user and the password from the environment, and answers to the configured names', async () => {
    const env = {
      VERONIKAI_CLICKHOUSE_HTTP_USER: 'grafana',
      VERONIKAI_CLICKHOUSE_HTTP_PASSWORD: 'env-pa55',
      VERONIKAI_CLICKHOUSE_HTTP_HOSTS: 'ch.example',
    };
    const rec = recordingLogger();
    const instance = await startInstance(loadConfig({ dataDir: t.dir, clickhousePort: '0' }, env), rec.log, null);
    try {
      const url = instance!.clickhouseUrl!;
      expect(instance!.clickhouseLogin).toBe('user grafana, password from VERONIKAI_CLICKHOUSE_HTTP_PASSWORD');
      expect(rec.text()).toMatch(
        /ClickHouse HTTP interface listening \(read-only\): user grafana, password from VERONIKAI_CLICKHOUSE_HTTP_PASSWORD/,
      );
      expect(rec.text()).not.toContain('env-pa55');
      const grafana = createClient({ url, username: 'grafana', password: 'env-pa55', ...quiet });
      const asDefault = createClient({ url, password: 'env-pa55', ...quiet });
      try {
        expect(await (await grafana.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
        await expect(asDefault.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toMatchObject({ code: '516' });
      } finally {
        await grafana.close();
        await asDefault.close();
      }
      const auth = { authorization: `Basic ${Buffer.from('grafana:env-pa55').toString('base64')}` };
      expect(await status(url, { ...auth, host: 'ch.example:8123' })).toMatchObject({ status: 200, body: '1\n' });
      expect(await status(url, { ...auth, host: 'elsewhere.example' })).toMatchObject({ status: 403, code: '497' });
      expect(await status(url, { ...auth, origin: 'https://elsewhere.example' })).toMatchObject({ status: 403, code: '497' });
    } finally {
      await instance?.close();
    }
  });
});
