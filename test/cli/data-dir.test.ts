import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instancePath } from '../../src/runtime/instance.js';
import { SIGNING_KEY_FILE, SIGNING_PUBLIC_KEY_FILE } from '../../src/signing/keys.js';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';

/**
 * The data directory as the commands leave it: owner-only (0700) whether they create it or find
 * it open to other users (then said on stderr), and the secrets the project writes in it 0600.
 * `api --public-url` shows the flag reaches the API: a forged Host is in no feed link.
 */

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Files in the data directory that hold secrets, where a command has written them. */
function secretFiles(dir: string): string[] {
  const candidates = [
    instancePath(dir),
    join(dir, SIGNING_KEY_FILE),
    join(dir, SIGNING_PUBLIC_KEY_FILE),
    ...readdirSync(dir)
      .filter((f) => /password/.test(f))
      .map((f) => join(dir, f)),
  ];
  return candidates.filter((f) => existsSync(f));
}

/** GET over plain HTTP with the Host header we choose (fetch would not send a forged one). */
function get(port: number, path: string, host: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(process.platform === 'win32')('the data directory of the commands', () => {
  let root: string;
  let api: SpawnedCli | null = null;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'veronikai-cli-data-dir-'));
  });
  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGKILL');
      await api.exited;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('migrate creates a new data directory 0700', async () => {
    const dir = join(root, 'fresh');
    const r = await runCli(['migrate', '--data-dir', dir], {}, 120_000);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(modeOf(dir)).toBe(0o700);
  }, 150_000);

  it('sql sets a data directory other users can open to 0700, and says so on stderr', async () => {
    const dir = join(root, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const r = await runCli(['sql', 'SELECT 1 AS one', '--data-dir', dir], { LOG_LEVEL: 'warn' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ one: 1 }]);
    expect(modeOf(dir)).toBe(0o700);
    const said = r.stderr.split('\n').filter((l) => l.includes('was open to other users'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({
      level: 40,
      dataDir: dir,
      mode: '0755',
      msg: `data directory ${dir} was open to other users (mode 0755): set to 0700`,
    });
  }, 60_000);

  it('api keeps the directory 0700 and its instance file 0600; with --public-url a forged Host is in no feed link', async () => {
    const dir = join(root, 'served');
    expect(await runCli(['migrate', '--data-dir', dir], {}, 120_000)).toMatchObject({ code: 0 });
    // As a deployment may find it: opened up by hand since the last start.
    chmodSync(dir, 0o755);
    api = spawnCli(['api', '--data-dir', dir, '--port', '0', '--public-url', 'https://index.example']);
    await api.waitForStdout(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(api.stdout)![1]);
    expect(modeOf(dir)).toBe(0o700);
    expect(existsSync(instancePath(dir))).toBe(true);
    for (const f of secretFiles(dir)) expect(modeOf(f), f).toBe(0o600);

    for (const path of ['/feed.atom', '/feed.json']) {
      const res = await get(port, path, 'evil.example');
      expect(res.status, path).toBe(200);
      expect(res.body, path).not.toContain('evil.example');
      expect(res.body, path).toContain('https://index.example/');
      expect(res.headers['cache-control'], path).toMatch(/^public, /);
    }
    api.child.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
  }, 180_000);
});
