import { sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local Smithery registry: `GET /servers?page=&pageSize=` → `{ servers, pagination }` with
 * list items that carry no endpoint (`useCount` a string, as the docs type it), and the
 * detail `GET /servers/{qualifiedName}` with `connections[]` (`http` → `deploymentUrl`).
 * Awkward parts: `requireKey` answers 401 to an anonymous client, and `anonymousCap` cuts an
 * anonymous listing off after that many servers while `pagination` still announces them all.
 */
export interface SmitheryFixture extends FixtureBase {
  servers: SmitheryServer[];
  requireKey: boolean;
  anonymousCap: number | null;
  maxPageSize: number;
  /** Detail calls answered. */
  detailRequests: number;
}

export interface SmitheryServer {
  qualifiedName: string;
  displayName: string;
  description: string;
  /** The hosted MCP endpoint (in the detail only), or null for a local (stdio) server. */
  endpoint: string | null;
  /** Put the endpoint into the list item too (some API variants do). */
  endpointInList?: boolean;
}

export function smitheryServer(qualifiedName: string, endpoint: string | null, extra: Partial<SmitheryServer> = {}): SmitheryServer {
  return { qualifiedName, displayName: `Smithery ${qualifiedName}`, description: `Fixture server ${qualifiedName}`, endpoint, ...extra };
}

function listItem(s: SmitheryServer): Record<string, unknown> {
  return {
    qualifiedName: s.qualifiedName,
    displayName: s.displayName,
    description: s.description,
    homepage: `https://smithery.ai/server/${s.qualifiedName}`,
    useCount: '1532',
    isDeployed: s.endpoint !== null,
    createdAt: '2025-05-04T11:00:00.000Z',
    ...(s.endpointInList && s.endpoint ? { deploymentUrl: s.endpoint } : {}),
  };
}

function detail(s: SmitheryServer): Record<string, unknown> {
  return {
    qualifiedName: s.qualifiedName,
    displayName: s.displayName,
    description: s.description,
    iconUrl: null,
    remote: s.endpoint !== null,
    ...(s.endpoint ? { deploymentUrl: s.endpoint } : {}),
    connections: s.endpoint
      ? [{ type: 'http', deploymentUrl: s.endpoint, configSchema: {} }]
      : [{ type: 'stdio', bundleUrl: 'https://example.org/b.mcpb', runtime: 'node', configSchema: {} }],
    security: { scanPassed: true },
    tools: [{ name: 'forecast', description: 'Forecasts' }],
  };
}

export function startFixtureSmithery(
  servers: SmitheryServer[] = [],
  opts: Partial<Pick<SmitheryFixture, 'requireKey' | 'anonymousCap' | 'maxPageSize'>> = {},
) {
  return startFixture<Omit<SmitheryFixture, keyof FixtureBase>>(
    { servers, requireKey: false, anonymousCap: null, maxPageSize: 100, detailRequests: 0, ...opts },
    (url, req, res, self) => {
      if (self.requireKey && !req.headers.authorization) {
        return sendJson(res, 401, { error: 'Unauthorized', message: 'An API key is required' }, { 'www-authenticate': 'Bearer' });
      }
      if (url.pathname === '/servers') {
        const page = Number(url.searchParams.get('page') ?? 1);
        const pageSize = Math.min(Number(url.searchParams.get('pageSize') ?? 10) || 10, self.maxPageSize);
        if (!Number.isInteger(page) || page < 1) return sendJson(res, 400, { error: 'invalid page' });
        const visible = self.anonymousCap === null ? self.servers : self.servers.slice(0, self.anonymousCap);
        const items = visible.slice((page - 1) * pageSize, page * pageSize).map(listItem);
        return sendJson(res, 200, {
          servers: items,
          pagination: {
            currentPage: page,
            pageSize,
            totalPages: Math.ceil(self.servers.length / pageSize),
            totalCount: self.servers.length,
          },
        });
      }
      const m = /^\/servers\/(.+)$/.exec(url.pathname);
      if (m) {
        self.detailRequests += 1;
        const name = decodeURIComponent(m[1]!);
        const s = self.servers.find((x) => x.qualifiedName === name);
        return s ? sendJson(res, 200, detail(s)) : sendJson(res, 404, { error: 'Server not found' });
      }
      sendJson(res, 404, { error: 'Not Found' });
    },
  );
}
