import { sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local a2aregistry.org (open source: backend/app/main.py `list_agents`): the router is
 * mounted at `/` and `/api`; `GET /agents?limit=&offset=` → `PaginatedAgents`
 * `{ agents, total, limit, offset }`. Awkward parts: `limit` is silently capped (100 there;
 * configurable here, so a client that advances by what it asked for skips agents), and
 * `onPage` can add or remove agents between two pages, shifting every later offset.
 */
export interface A2aRegistryOrgFixture extends FixtureBase {
  agents: Array<Record<string, unknown>>;
  maxLimit: number;
  /** Called before each list page is answered, with its offset (mutate `agents` here). */
  onPage: ((offset: number, self: A2aRegistryOrgFixture) => void) | null;
}

export function orgAgent(id: string, wellKnownURI: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const origin = wellKnownURI ? new URL(wellKnownURI).origin : 'https://nowhere.example';
  return {
    id,
    protocolVersion: '0.3.0',
    name: `Org agent ${id}`,
    description: `Fixture agent ${id} from a2aregistry.org`,
    author: 'fixture',
    ...(wellKnownURI ? { wellKnownURI } : {}),
    url: `${origin}/a2a/v1`,
    version: '1.0.0',
    provider: { organization: 'Fixture', url: origin },
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'] }],
    conformance: 'standard',
    hidden: false,
    is_healthy: true,
    uptime_percentage: 99.1,
    created_at: '2025-09-01T00:00:00Z',
    updated_at: '2025-10-01T00:00:00Z',
    ...extra,
  };
}

export function startFixtureA2aRegistryOrg(agents: Array<Record<string, unknown>> = [], opts: { maxLimit?: number } = {}) {
  return startFixture<Omit<A2aRegistryOrgFixture, keyof FixtureBase>>(
    { agents, maxLimit: opts.maxLimit ?? 100, onPage: null },
    (url, _req, res, self) => {
      const path = url.pathname.replace(/^\/api(?=\/)/, '');
      if (path !== '/agents') return sendJson(res, 404, { detail: 'Not Found' });
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) {
        return sendJson(res, 422, { detail: [{ loc: ['query', 'limit'], msg: 'invalid', type: 'value_error' }] });
      }
      self.onPage?.(offset, self);
      const effective = Math.min(limit, self.maxLimit);
      const visible = self.agents.filter((a) => a.hidden !== true);
      sendJson(res, 200, { agents: visible.slice(offset, offset + effective), total: visible.length, limit: effective, offset });
    },
  );
}
