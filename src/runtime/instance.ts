import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { CLICKHOUSE_HTTP_LIMITS, createClickHouseHttp } from '../api/clickhouse-http.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { EmbeddedRawReader } from '../warehouse/raw-reader.js';

/**
 * The running-instance file: `<data dir>/instance.json`, written by `run` and `api` once they
 * serve, removed when they shut down. The embedded engine is one process per data directory, so
 * `sql` and `export` read this file to send their queries to the process that holds the
 * directory instead of failing on its lock. It names the process (pid) and the ClickHouse HTTP
 * interface it serves: the one `--clickhouse-port` asked for, else a private one on 127.0.0.1
 * whose password (`token`) is only in this file, written 0600.
 *
 * A file whose process is gone (killed, crashed) is stale: readers say so, remove it and open
 * the warehouse themselves.
 */

export const INSTANCE_FILE = 'instance.json';

/** The database name clients may select besides the engine's `default` (the default of --clickhouse-database). */
const EMBEDDED_DATABASE_ALIAS = 'veronikai';

export interface InstanceInfo {
  /** Format of this file. */
  v: 1;
  pid: number;
  startedAt: string;
  /** The read API, when served. */
  apiUrl: string | null;
  /** The ClickHouse HTTP interface: host, port and the password it asks for (null: none). */
  clickhouse: { host: string; port: number; token: string | null };
}

export function instancePath(dataDir: string): string {
  return join(dataDir, INSTANCE_FILE);
}

/** Writes the file atomically (a reader never sees half of it), readable by the owner only. */
export function writeInstanceFile(dataDir: string, info: InstanceInfo): void {
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${instancePath(dataDir)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, instancePath(dataDir));
}

/** Removes the file if it still names `pid` (another instance may have replaced a stale one). */
export function removeInstanceFile(dataDir: string, pid = process.pid): void {
  const found = readInstanceFile(dataDir);
  if (found && found.pid === pid) rmSync(instancePath(dataDir), { force: true });
}

/** The file's content, or null when there is none or it is not an instance file. */
export function readInstanceFile(dataDir: string): InstanceInfo | null {
  let text: string;
  try {
    text = readFileSync(instancePath(dataDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const v = JSON.parse(text) as InstanceInfo;
    return v && v.v === 1 && Number.isInteger(v.pid) && Number.isInteger(v.clickhouse?.port) ? v : null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `GET /ping` of an interface answered `Ok.` within `timeoutMs`. */
export function pingInterface(host: string, port: number, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/ping', method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && body.startsWith('Ok.')));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export type InstanceLookup =
  | { state: 'none' }
  /** The file names a process that is gone, or one that does not answer: removed (when asked). */
  | { state: 'stale'; info: InstanceInfo; reason: string }
  | { state: 'running'; info: InstanceInfo };

/**
 * The instance that serves this data directory, if one does. A file whose pid is gone is stale;
 * so is one whose process lives but whose interface does not answer (the pid was reused, or the
 * process hangs): the caller then opens the warehouse itself, and the engine's lock says
 * whether the directory is really free.
 */
export async function findInstance(dataDir: string, opts: { removeStale?: boolean } = {}): Promise<InstanceLookup> {
  const info = readInstanceFile(dataDir);
  if (!info) return { state: 'none' };
  let reason: string | null = null;
  if (!processAlive(info.pid)) reason = `process ${info.pid} is gone`;
  else if (!(await pingInterface(connectHost(info.clickhouse.host), info.clickhouse.port))) reason = `process ${info.pid} does not answer on port ${info.clickhouse.port}`;
  if (reason === null) return { state: 'running', info };
  if (opts.removeStale !== false && !processAlive(info.pid)) rmSync(instancePath(dataDir), { force: true });
  return { state: 'stale', info, reason };
}

/** Where to connect to reach a listener on `host` (a wildcard address is reached on loopback). */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

export interface RunningInstance {
  /** The ClickHouse interface's URL when --clickhouse-port asked for it; null for the private one. */
  clickhouseUrl: string | null;
  close(): Promise<void>;
}

/**
 * Serves the embedded warehouse's ClickHouse HTTP interface (on --clickhouse-host/--clickhouse-port,
 * or privately on 127.0.0.1 with a token) and writes the instance file; close() removes the file
 * first, then stops serving. A server warehouse needs neither: it takes many clients itself.
 */
export async function startInstance(config: Config, log: Logger, apiUrl: string | null): Promise<RunningInstance | null> {
  if (config.warehouse.kind !== 'embedded') return null;
  const { host, port } = config.clickhouseInterface;
  const isPublic = port !== null;
  const token = isPublic ? null : randomBytes(24).toString('base64url');
  const reader = new EmbeddedRawReader(config.warehouse.path, { timeoutMs: CLICKHOUSE_HTTP_LIMITS.deadlineMs });
  const iface = createClickHouseHttp({ reader, logger: log, token, databaseAliases: [EMBEDDED_DATABASE_ALIAS] });
  const listenHost = isPublic ? host : '127.0.0.1';
  let bound: number;
  try {
    bound = await iface.listen(listenHost, port ?? 0);
  } catch (err) {
    await reader.close();
    throw err;
  }
  writeInstanceFile(config.dataDir, { v: 1, pid: process.pid, startedAt: new Date().toISOString(), apiUrl, clickhouse: { host: listenHost, port: bound, token } });
  const url = `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${bound}`;
  if (isPublic) log.info({ url }, 'ClickHouse HTTP interface listening (read-only)');
  return {
    clickhouseUrl: isPublic ? url : null,
    async close() {
      removeInstanceFile(config.dataDir);
      await iface.close();
      await reader.close();
    },
  };
}
