import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { CLICKHOUSE_HTTP_LIMITS, createClickHouseHttp, type ClickHouseHttp, type ClickHouseHttpOptions } from '../api/clickhouse-http.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { EmbeddedRawReader } from '../warehouse/raw-reader.js';

/**
 * The running-instance file: `<data dir>/instance.json`, written by `run` and `api` once they
 * serve, removed when they shut down. The embedded engine is one process per data directory, so
 * `sql` and `export` read this file to send their queries to the process that holds the
 * directory instead of failing on its lock. It names the process (pid) and a private ClickHouse
 * HTTP interface on 127.0.0.1 whose password (`token`) is only in this file, written 0600, with
 * the owner's limits (OWNER_LIMITS); the public one `--clickhouse-port` asks for is served beside
 * it, with the public limits, and is not in the file.
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

/**
 * Limits of the private endpoint. Its only callers are the owner's own `sql`, `export` and
 * `report` (its password is in the 0600 instance file), and a read must not fail only because
 * `run` is up when it works with `run` stopped. An export's Parquet file is one result of one
 * query, as large as its table and as slow, and `export` opening the warehouse itself has no
 * deadline and no cap. So no result cap, and no deadline here: the endpoint cannot tell which
 * command calls, so the caller brings its own deadline and enforces it by going away, which stops
 * a streamed query (as Ctrl-C does). The query-size and concurrency limits stay.
 */
export const OWNER_LIMITS = { deadlineMs: Infinity, maxResultBytes: Infinity } as const;

export interface RunningInstance {
  /** The public ClickHouse interface's URL when --clickhouse-port asked for it, else null. */
  clickhouseUrl: string | null;
  close(): Promise<void>;
}

export interface StartInstanceOptions {
  /** Overrides of the public interface's limits (CLICKHOUSE_HTTP_LIMITS); tests make them small. */
  publicLimits?: ClickHouseHttpOptions['limits'];
}

/**
 * Serves the embedded warehouse's private ClickHouse HTTP interface (127.0.0.1, a token, the
 * owner's limits) and, when --clickhouse-port asks, the public one (--clickhouse-host, no
 * password, CLICKHOUSE_HTTP_LIMITS), then writes the instance file naming the private one;
 * close() removes the file first, then stops serving. Each interface has its own read-only
 * session: the public one's engine deadline (max_execution_time, which readonly=1 keeps a query
 * from lifting) must not bind the owner, and a slow public client must not queue the owner's
 * export behind it. A server warehouse needs none of this: it takes many clients itself.
 */
export async function startInstance(config: Config, log: Logger, apiUrl: string | null, opts: StartInstanceOptions = {}): Promise<RunningInstance | null> {
  if (config.warehouse.kind !== 'embedded') return null;
  const path = config.warehouse.path;
  const served: Array<{ iface: ClickHouseHttp; reader: EmbeddedRawReader }> = [];
  const stop = async () => {
    for (const { iface, reader } of [...served].reverse()) {
      await iface.close();
      await reader.close();
    }
  };
  const serve = (host: string, port: number, options: { token: string | null; limits: NonNullable<ClickHouseHttpOptions['limits']> }): Promise<number> => {
    const deadline = options.limits.deadlineMs;
    const reader = new EmbeddedRawReader(path, deadline !== undefined && Number.isFinite(deadline) ? { timeoutMs: deadline } : {});
    const iface = createClickHouseHttp({ reader, logger: log, token: options.token, databaseAliases: [EMBEDDED_DATABASE_ALIAS], limits: options.limits });
    served.push({ iface, reader });
    return iface.listen(host, port);
  };

  const token = randomBytes(24).toString('base64url');
  const { host, port } = config.clickhouseInterface;
  let privatePort: number;
  let url: string | null = null;
  try {
    privatePort = await serve('127.0.0.1', 0, { token, limits: OWNER_LIMITS });
    if (port !== null) {
      const bound = await serve(host, port, { token: null, limits: { ...CLICKHOUSE_HTTP_LIMITS, ...opts.publicLimits } });
      url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  writeInstanceFile(config.dataDir, { v: 1, pid: process.pid, startedAt: new Date().toISOString(), apiUrl, clickhouse: { host: '127.0.0.1', port: privatePort, token } });
  if (url) log.info({ url }, 'ClickHouse HTTP interface listening (read-only)');
  return {
    clickhouseUrl: url,
    async close() {
      removeInstanceFile(config.dataDir);
      await stop();
    },
  };
}
