import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Starts a throwaway ClickHouse server for adapter tests: Debian's
 * `clickhouse-server` package (18.16 on these machines), HTTP interface only,
 * on a free loopback port, with its data in a fresh temporary directory that
 * is removed on stop. Runs as the current user.
 */

export const CLICKHOUSE_SERVER_INSTALL = 'apt-get update && apt-get install -y clickhouse-server';

/** The clickhouse-server binary on PATH (or in /usr/sbin, where Debian puts it), or null. */
export function findClickHouseServer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, 'clickhouse-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ClickHouseServer {
  url: string;
  port: number;
  dir: string;
  /** Server output so far (bounded), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Writes a server's config.xml and users.xml into `dir` (its data stays in `dir` too). */
export function writeServerConfig(dir: string, port: number): void {
  writeFileSync(join(dir, 'config.xml'), configXml(dir, port));
  writeFileSync(join(dir, 'users.xml'), USERS_XML);
}

function configXml(dir: string, port: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${port}</http_port>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <timezone>UTC</timezone>
  <keep_alive_timeout>1</keep_alive_timeout>
  <shutdown_wait_unfinished>1</shutdown_wait_unfinished>
</yandex>
`;
}

/** A second user of the test server, with a password: the configured credentials must reach it. */
export const READER_USER = 'reader';
export const READER_PASSWORD = 'reader-test-password';

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <reader>
      <password>${READER_PASSWORD}</password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </reader>
  </users>
  <quotas><default></default></quotas>
</yandex>
`;

/** GET /ping on a fresh connection that is closed afterwards (a kept-alive socket would delay the server's shutdown). */
function pingOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet(`${url}/ping`, { agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.startsWith('Ok')));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function startOnce(binary: string, startTimeoutMs: number): Promise<ClickHouseServer> {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-clickhouse-'));
  const port = await freePort();
  writeServerConfig(dir, port);

  let out = '';
  const child = spawn(binary, [`--config-file=${join(dir, 'config.xml')}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk: Buffer): void => {
    out = (out + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await waitExit(child, 10_000))) {
        child.kill('SIGKILL');
        await waitExit(child, 5_000);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (await pingOk(url)) break;
    const failed = await Promise.race([spawnError, new Promise<null>((r) => setTimeout(() => r(null), 100))]);
    if (failed || child.exitCode !== null || Date.now() > deadline) {
      await stop();
      const why = failed
        ? failed.message
        : child.exitCode !== null
          ? `exited with code ${child.exitCode}`
          : `no /ping answer in ${startTimeoutMs} ms`;
      throw new Error(`clickhouse-server did not start on port ${port}: ${why}\n${out}`);
    }
  }
  return { url, port, dir, output: () => out, stop };
}

/** Starts a server and waits until GET /ping answers "Ok." (retries on a port taken in between). */
export async function startClickHouseServer(options: { binary?: string; startTimeoutMs?: number } = {}): Promise<ClickHouseServer> {
  const binary = options.binary ?? findClickHouseServer();
  if (!binary) throw new Error(`clickhouse-server not found; install it with: ${CLICKHOUSE_SERVER_INSTALL}`);
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, options.startTimeoutMs ?? 30_000);
    } catch (err) {
      last = err;
    }
  }
  throw last;
}
