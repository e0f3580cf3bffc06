import { sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local api.a2a-registry.org ("Global A2A Registry"), shaped after its public clients:
 * `GET /public/agents?page=N` (1-based, a page size the server chooses and the client cannot
 * set), `{ agents: [...], total }` (or `results` in one variant), `x-ratelimit-*` headers.
 * Awkward parts: past the last page some deployments repeat the last page instead of an
 * empty one; `total` may be missing; field spellings vary (`verification_level`).
 */
export interface A2aRegistryFixture extends FixtureBase {
  agents: Array<Record<string, unknown>>;
  pageSize: number;
  /** The key the list is under. */
  listKey: 'agents' | 'results';
  /** What a page past the end answers. */
  beyondEnd: 'empty' | 'repeat-last';
  /** Leave `total` out of the response. */
  omitTotal: boolean;
}

export function a2aAgent(id: string, manifestUrl: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    packageName: `acme.${id}`,
    displayName: `Agent ${id}`,
    description: `Fixture A2A agent ${id}`,
    category: 'Travel',
    tags: ['fixture'],
    targetAudience: 'Business',
    visibility: 'public',
    ...(manifestUrl ? { manifestUrl } : {}),
    verification_level: 'unclaimed',
    isVerified: false,
    ratingAvg: 4.5,
    ratingCount: 2,
    ...extra,
  };
}

export function startFixtureA2aRegistry(
  agents: Array<Record<string, unknown>> = [],
  opts: Partial<Pick<A2aRegistryFixture, 'pageSize' | 'listKey' | 'beyondEnd' | 'omitTotal'>> = {},
) {
  return startFixture<Omit<A2aRegistryFixture, keyof FixtureBase>>(
    { agents, pageSize: 20, listKey: 'agents', beyondEnd: 'repeat-last', omitTotal: false, ...opts },
    (url, _req, res, self) => {
      const headers = { 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '60' };
      const one = /^\/public\/agents\/([^/]+)$/.exec(url.pathname);
      if (one) {
        const a = self.agents.find((x) => x.id === decodeURIComponent(one[1]!));
        return a ? sendJson(res, 200, a, headers) : sendJson(res, 404, { error: 'Agent not found' }, headers);
      }
      if (url.pathname !== '/public/agents') return sendJson(res, 404, { error: 'Not Found' });
      const pageRaw = url.searchParams.get('page') ?? '1';
      const page = Number(pageRaw);
      if (!Number.isInteger(page) || page < 1) return sendJson(res, 422, { error: 'page must be a positive integer' }, headers);
      const visible = self.agents;
      const lastPage = Math.max(1, Math.ceil(visible.length / self.pageSize));
      const effective = page > lastPage && self.beyondEnd === 'repeat-last' ? lastPage : page;
      const slice = visible.slice((effective - 1) * self.pageSize, effective * self.pageSize);
      const body: Record<string, unknown> = { [self.listKey]: slice };
      if (!self.omitTotal) body.total = visible.length;
      sendJson(res, 200, body, headers);
    },
  );
}
