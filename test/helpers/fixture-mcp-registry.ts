import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleepUnlessAborted } from '../../src/util/time.js';

/**
 * A local MCP Registry implementing the paging of GET /v0.1/servers as the
 * official registry does (opaque cursors, limit 1..100, updated_since that
 * forces include_deleted, version=latest), with fault injection for tests.
 */

interface OfficialMeta {
  status: string;
  publishedAt: string;
  updatedAt: string;
  isLatest: boolean;
}

export interface RegistryEntry {
  server: Record<string, unknown>;
  _meta: { 'io.modelcontextprotocol.registry/official': OfficialMeta };
}

export type Fault = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface FixtureRegistry {
  url: string;
  entries: RegistryEntry[];
  /** Request paths and queries, in order. */
  requests: string[];
  /** Faults answered instead of the Nth list request (1-based, counted over the fixture's life). */
  faultAt: Map<number, Fault>;
  /** List requests answered so far. */
  listRequests: number;
  /** What /robots.txt answers: a body (200), a status code (default 404: none), or a fault. */
  robots: string | number | Fault;
  robotsRequests: number;
  close(): Promise<void>;
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';

export function entry(
  name: string,
  opts: {
    remoteUrl?: string | null;
    version?: string;
    description?: string;
    updatedAt?: string;
    status?: 'active' | 'deprecated' | 'deleted';
    isLatest?: boolean;
    type?: string;
    extra?: Record<string, unknown>;
  } = {},
): RegistryEntry {
  const server: Record<string, unknown> = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name,
    description: opts.description ?? `Fixture MCP server ${name} for tests`,
    version: opts.version ?? '1.0.0',
    repository: { url: `https://github.com/${name.split('/')[1]}/${name.split('/')[1]}`, source: 'github' },
    ...opts.extra,
  };
  if (opts.remoteUrl !== null) {
    server.remotes = [{ type: opts.type ?? 'streamable-http', url: opts.remoteUrl ?? `https://${name.split('/')[1]}.example.org/mcp` }];
  }
  return {
    server,
    _meta: {
      [OFFICIAL]: {
        status: opts.status ?? 'active',
        publishedAt: '2025-10-01T09:00:00Z',
        updatedAt: opts.updatedAt ?? '2025-11-01T00:00:00Z',
        isLatest: opts.isLatest ?? true,
      },
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFixtureRegistry(entries: RegistryEntry[] = []): Promise<FixtureRegistry> {
  const state: Omit<FixtureRegistry, 'url' | 'close'> = {
    entries,
    requests: [],
    faultAt: new Map(),
    listRequests: 0,
    robots: 404,
    robotsRequests: 0,
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fixture');
      if (url.pathname === '/robots.txt' && req.method === 'GET') {
        state.robotsRequests += 1;
        const r = state.robots;
        if (typeof r === 'function') return void (await r(req, res));
        if (typeof r === 'number') return send(res, r, { title: 'robots', status: r });
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end(r);
      }
      state.requests.push(`${url.pathname}${url.search}`);
      if (req.method !== 'GET') return send(res, 405, { title: 'Method Not Allowed', status: 405 });
      if (url.pathname === '/v0/health') return send(res, 200, { status: 'ok' });
      if (url.pathname !== '/v0.1/servers' && url.pathname !== '/v0/servers') {
        return send(res, 404, { title: 'Not Found', status: 404, detail: 'no such route' });
      }
      state.listRequests += 1;
      const fault = state.faultAt.get(state.listRequests);
      if (fault) return void (await fault(req, res));

      const q = url.searchParams;
      const limit = q.has('limit') ? Number(q.get('limit')) : 30;
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        return send(res, 422, { title: 'Unprocessable Entity', status: 422, detail: 'limit must be 1..100' });
      }
      const since = q.get('updated_since');
      if (since !== null && Number.isNaN(Date.parse(since))) {
        return send(res, 400, { title: 'Bad Request', status: 400, detail: 'invalid updated_since format' });
      }
      if (since !== null && q.get('include_deleted') === 'false') {
        return send(res, 400, { title: 'Bad Request', status: 400, detail: 'include_deleted=false conflicts with updated_since' });
      }
      const includeDeleted = since !== null || q.get('include_deleted') === 'true';
      let rows = [...state.entries]
        .filter((e) => includeDeleted || meta(e).status !== 'deleted')
        .filter((e) => q.get('version') !== 'latest' || meta(e).isLatest)
        .filter((e) => since === null || Date.parse(meta(e).updatedAt) > Date.parse(since))
        .sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
      const cursor = q.get('cursor');
      if (cursor) {
        let after: string;
        try {
          after = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')).after;
        } catch {
          return send(res, 400, { title: 'Bad Request', status: 400, detail: 'invalid cursor' });
        }
        rows = rows.filter((e) => sortKey(e) > after);
      }
      const page = rows.slice(0, limit);
      const metadata: Record<string, unknown> = { count: page.length };
      if (rows.length > limit) {
        metadata.nextCursor = Buffer.from(JSON.stringify({ after: sortKey(page[page.length - 1]!) })).toString('base64url');
      }
      send(res, 200, { servers: page, metadata });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Malformed entries (tests put some in on purpose) read as active and latest. */
function meta(e: RegistryEntry): OfficialMeta {
  return e._meta?.[OFFICIAL] ?? { status: 'active', publishedAt: '', updatedAt: '2025-01-01T00:00:00Z', isLatest: true };
}

function sortKey(e: RegistryEntry): string {
  return `${String(e.server?.name)}:${String(e.server?.version)}`;
}

/** Ready-made faults. */
export const faults = {
  notJson: (): Fault => (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>maintenance</html>');
  },
  status:
    (code: number): Fault =>
    (_req, res) =>
      send(res, code, { title: 'error', status: code }),
  slow:
    (ms: number): Fault =>
    async (_req, res) => {
      // A client that gives up closes the response: stop waiting then.
      const closed = new AbortController();
      res.on('close', () => closed.abort());
      if ((await sleepUnlessAborted(ms, closed.signal)) && !res.destroyed) send(res, 200, { servers: [], metadata: {} });
    },
  oversized:
    (bytes: number): Fault =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const filler = `{"servers":[],"metadata":{},"pad":"${'x'.repeat(bytes)}"}`;
      res.end(filler);
    },
  page:
    (body: unknown): Fault =>
    (_req, res) =>
      send(res, 200, body),
};
