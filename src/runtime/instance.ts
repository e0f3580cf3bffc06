import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { CLICKHOUSE_HTTP_LIMITS, createClickHouseHttp, type ClickHouseHttp, type ClickHouseHttpOptions } from '../api/clickhouse-http.js';
import { CHALLENGE_PATH, challengeProof, sameSecret } from '../api/clickhouse-http-admission.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { EmbeddedRawReader } from '../warehouse/raw-reader.js';
import { ownerSchema, publicSchema, type ServedSchema } from '../warehouse/guard/schema.js';
import { OWNER_QUERY_LIMITS, PUBLIC_QUERY_LIMITS, type QuerySessionLimits } from '../warehouse/limits.js';
import { passwordSource, publicCredentials } from './clickhouse-password.js';

/**
 * The running-instance file: `<data dir>/instance.json`, written by `run` and `api` once they
 * serve, removed when they shut down. The embedded engine is one process per data directory, so
 * `sql` and `export` read this file to send their queries to the process that holds the
 * directory instead of failing on its lock. It names the process (pid) and a private ClickHouse
 * HTTP interface on 127.0.0.1 whose password (`token`) is only in this file, written 0600, with
 * the owner's limits (OWNER_LIMITS); the public one `--clickhouse-port` asks for is served beside
 * it, with the public limits and its own password, and is not in the file.
 *
 * A file whose process is gone (killed, crashed) is stale: readers say so, remove it and open
 * the warehouse themselves. A file whose pid lives on is trusted only once the endpoint proves it
 * holds the file's token and runs as that pid (a challenge, see proveInstance): the pid may have
 * been reused and the port taken by anything, which must receive neither the token nor a query.
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

/**
 * The real user id of a process, where the system says (Linux's process status files); null
 * elsewhere or when it cannot be read. Best effort: a pid of another user cannot be our instance.
 */
export function processUid(pid: number): number | null {
  try {
    const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Bytes of a challenge answer read at most (an answer is 65). */
const MAX_PROOF_BYTES = 1_024;

/**
 * Asks the endpoint the file names to prove, before it receives anything secret, that it holds
 * the file's token and runs as the file's pid: it gets a fresh random nonce and must answer
 * HMAC-SHA256(token, nonce:pid) (clickhouse-http-admission.ts). Null when it did; else why not.
 */
export function proveInstance(info: InstanceInfo, timeoutMs = 2_000): Promise<string | null> {
  const { host, port, token } = info.clickhouse;
  if (!token) return Promise.resolve(`the instance file names no token for port ${port}`);
  const nonce = randomBytes(32).toString('hex');
  const expected = challengeProof(token, nonce, info.pid);
  const noAnswer = `process ${info.pid} does not answer on port ${port}`;
  return new Promise((resolve) => {
    const req = request(
      { host: connectHost(host), port, path: `${CHALLENGE_PATH}?nonce=${nonce}`, method: 'GET', timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
          if (body.length > MAX_PROOF_BYTES) req.destroy();
        });
        res.on('end', () => {
          const proven = res.statusCode === 200 && sameSecret(body.trim(), expected);
          resolve(
            proven ? null : `what answers on port ${port} does not prove it is process ${info.pid} holding the instance file's token`,
          );
        });
        res.on('error', () => resolve(noAnswer));
        res.on('aborted', () => resolve(noAnswer));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(noAnswer));
    req.end();
  });
}

export type InstanceLookup =
  | { state: 'none' }
  /**
   * The file names a process that is gone (the file is removed, when asked), or one that lives
   * but is not a proven instance of ours (the file is kept: that process may still be starting).
   */
  | { state: 'stale'; info: InstanceInfo; reason: string; removed: boolean }
  | { state: 'running'; info: InstanceInfo };

/**
 * The instance that serves this data directory, if one does. A file whose pid is gone is stale;
 * so is one whose process lives but runs as another user, does not answer, or does not prove it
 * holds the file's token (the pid was reused and something else took the port, or the process
 * hangs): the caller then opens the warehouse itself, and the engine's lock says whether the
 * directory is really free. Nothing secret is sent before the proof.
 */
export async function findInstance(dataDir: string, opts: { removeStale?: boolean } = {}): Promise<InstanceLookup> {
  const info = readInstanceFile(dataDir);
  if (!info) return { state: 'none' };
  let reason: string | null;
  const uid = processUid(info.pid);
  if (!processAlive(info.pid)) reason = `process ${info.pid} is gone`;
  else if (uid !== null && process.getuid && uid !== process.getuid()) reason = `process ${info.pid} belongs to another user (uid ${uid})`;
  else reason = await proveInstance(info);
  if (reason === null) return { state: 'running', info };
  const removed = opts.removeStale !== false && !processAlive(info.pid);
  if (removed) rmSync(instancePath(dataDir), { force: true });
  return { state: 'stale', info, reason, removed };
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
  /** Its user and where its password is (never the password), e.g. `user default, password in <file>`. */
  clickhouseLogin: string | null;
  close(): Promise<void>;
}

export interface StartInstanceOptions {
  /** Overrides of the public interface's limits (CLICKHOUSE_HTTP_LIMITS); tests make them small. */
  publicLimits?: ClickHouseHttpOptions['limits'];
}

/**
 * Serves the embedded warehouse's private ClickHouse HTTP interface (127.0.0.1, user `default`
 * and a token, the owner's limits, the challenge) and, when --clickhouse-port asks, the public
 * one (--clickhouse-host, the configured user and password, CLICKHOUSE_HTTP_LIMITS), then writes the instance file naming the private one;
 * close() removes the file first, then stops serving. Each interface has its own read-only
 * session: the public one's engine deadline (max_execution_time, which readonly=1 keeps a query
 * from lifting) must not bind the owner, and a slow public client must not queue the owner's
 * export behind it. A server warehouse needs none of this: it takes many clients itself.
 */
export async function startInstance(
  config: Config,
  log: Logger,
  apiUrl: string | null,
  opts: StartInstanceOptions = {},
): Promise<RunningInstance | null> {
  if (config.warehouse.kind !== 'embedded') return null;
  const path = config.warehouse.path;
  const served: Array<{ iface: ClickHouseHttp; reader: EmbeddedRawReader }> = [];
  const stop = async () => {
    for (const { iface, reader } of [...served].reverse()) {
      await iface.close();
      await reader.close();
    }
  };
  // The reader's session (what it serves, the engine's limits) and the interface's options apart.
  const serve = (
    host: string,
    port: number,
    session: { schema: ServedSchema; engine: QuerySessionLimits },
    http: Pick<ClickHouseHttpOptions, 'credentials' | 'allowedHosts' | 'challenge'> & {
      limits: NonNullable<ClickHouseHttpOptions['limits']>;
    },
  ): Promise<number> => {
    const deadline = http.limits.deadlineMs;
    const reader = new EmbeddedRawReader(path, {
      schema: session.schema,
      limits: session.engine,
      ...(deadline !== undefined && Number.isFinite(deadline) ? { timeoutMs: deadline } : {}),
    });
    const iface = createClickHouseHttp({ reader, logger: log, databaseAliases: [EMBEDDED_DATABASE_ALIAS, 'default'], ...http });
    served.push({ iface, reader });
    return iface.listen(host, port);
  };

  const token = randomBytes(24).toString('base64url');
  const { host, port, allowedHosts } = config.clickhouseInterface;
  let privatePort: number;
  let url: string | null = null;
  let login: string | null = null;
  try {
    privatePort = await serve(
      '127.0.0.1',
      0,
      { schema: ownerSchema(), engine: OWNER_QUERY_LIMITS },
      { credentials: { user: 'default', password: token }, challenge: true, limits: OWNER_LIMITS },
    );
    if (port !== null) {
      const credentials = publicCredentials(config);
      const bound = await serve(
        host,
        port,
        { schema: publicSchema(), engine: PUBLIC_QUERY_LIMITS },
        {
          credentials: { user: credentials.user, password: credentials.password },
          allowedHosts,
          limits: { ...CLICKHOUSE_HTTP_LIMITS, ...opts.publicLimits },
        },
      );
      url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      login = `user ${credentials.user}, password ${passwordSource(credentials)}`;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  writeInstanceFile(config.dataDir, {
    v: 1,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    apiUrl,
    clickhouse: { host: '127.0.0.1', port: privatePort, token },
  });
  if (url) log.info({ url, allowedHosts }, `ClickHouse HTTP interface listening (read-only): ${login}`);
  return {
    clickhouseUrl: url,
    clickhouseLogin: login,
    async close() {
      removeInstanceFile(config.dataDir);
      await stop();
    },
  };
}
