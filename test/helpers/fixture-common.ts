import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fault } from './fixture-mcp-registry.js';

export { faults, type Fault } from './fixture-mcp-registry.js';

/**
 * What a fixture answers for /robots.txt: a body (200 text/plain), a status code (e.g. 404:
 * no robots.txt; 503: unreachable), or a fault (slow, reset…).
 */
export type RobotsSetting = string | number | Fault;

/** State and knobs every listing fixture shares. */
export interface FixtureBase {
  url: string;
  /** Paths and queries of every request except /robots.txt, in order. */
  requests: string[];
  /** Request headers of those requests, in the same order. */
  requestHeaders: Array<Record<string, string | string[] | undefined>>;
  robots: RobotsSetting;
  robotsRequests: number;
  /** Faults answered instead of the Nth data request (1-based, counted over the fixture's life). */
  faultAt: Map<number, Fault>;
  /** A fault answered to every data request while set (a source that is down for a run). */
  fault: Fault | null;
  dataRequests: number;
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/**
 * A loopback HTTP server with the shared parts of every listing fixture: GET only, robots.txt
 * as configured, request log, fault injection; `handle` answers the source's own routes.
 */
export async function startFixture<S extends object>(
  extra: S,
  handle: (url: URL, req: IncomingMessage, res: ServerResponse, self: S & FixtureBase) => void | Promise<void>,
): Promise<S & FixtureBase> {
  const self = Object.assign(extra, {
    url: '',
    requests: [] as string[],
    requestHeaders: [] as FixtureBase['requestHeaders'],
    robots: 404 as RobotsSetting,
    robotsRequests: 0,
    faultAt: new Map<number, Fault>(),
    fault: null as Fault | null,
    dataRequests: 0,
    close: async () => undefined,
  }) as S & FixtureBase;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fixture');
      if (req.method !== 'GET') return sendJson(res, 405, { error: 'Method Not Allowed' });
      if (url.pathname === '/robots.txt') {
        self.robotsRequests += 1;
        const r = self.robots;
        if (typeof r === 'function') return void (await r(req, res));
        if (typeof r === 'number') return sendJson(res, r, { error: `HTTP ${r}` });
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end(r);
      }
      self.requests.push(`${url.pathname}${url.search}`);
      self.requestHeaders.push(req.headers);
      self.dataRequests += 1;
      const fault = self.faultAt.get(self.dataRequests) ?? self.fault;
      if (fault) return void (await fault(req, res));
      await handle(url, req, res, self);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self.url = `http://127.0.0.1:${port}`;
  self.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return self;
}

/** A robots.txt that disallows our product token everywhere and allows everyone else. */
export const ROBOTS_DISALLOW_US = 'User-agent: *\nAllow: /\n\nUser-agent: VeronikAI\nDisallow: /\n';

/** Opaque tokens as registries make them: base64url of a small JSON object. */
export const opaque = {
  encode: (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url'),
  decode: <T>(token: string): T | null => {
    try {
      return JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as T;
    } catch {
      return null;
    }
  },
};
