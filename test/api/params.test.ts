import { describe, expect, it } from 'vitest';
import { idOf, useFilledApi } from './fixture.js';

/**
 * The routes' schemas are closed (`additionalProperties: false`) and the API holds them to
 * it: an unknown query parameter is a 400 in the one error shape, naming the parameter, on
 * every route, never silently dropped.
 */

describe('unknown query parameters', () => {
  const api = useFilledApi('api-params');

  /** Every route, each with a request it answers 200. */
  const ROUTES = [
    '/healthz',
    '/',
    '/agents',
    `/agents/${idOf('alpha')}`,
    '/stats/runs/latest',
    '/stats/runs/run-complete',
    '/stats/census',
    '/stats/daily',
    '/stats/agents',
    '/search?q=alpha',
    '/feed.atom',
    '/feed.json',
    `/agents/${idOf('alpha')}/feed.atom`,
    `/badge/${idOf('alpha')}/uptime.svg`,
    `/badge/${idOf('alpha')}/conformance.svg`,
  ];

  it('covers every route the API has', async () => {
    // The routes of the OpenAPI description: every GET route but /openapi.json and Swagger UI's
    // under /docs (test/api/openapi.test.ts holds the description to the app's routes).
    const doc = (await api.app().inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).length).toBe(ROUTES.length);
  });

  it('answers 400 naming the parameter, on every route', async () => {
    for (const url of ROUTES) {
      const ok = await api.app().inject({ method: 'GET', url });
      expect(ok.statusCode, url).toBe(200);
      const sep = url.includes('?') ? '&' : '?';
      for (const extra of ['bogus=1', 'limit_typo=5&bogus=1']) {
        const res = await api.app().inject({ method: 'GET', url: `${url}${sep}${extra}` });
        expect(res.statusCode, `${url} ${extra}`).toBe(400);
        const name = extra.split('=')[0]!;
        expect(res.json(), url).toEqual({
          error: { code: 'bad_request', message: `unknown querystring parameter "${name}"`, requestId: res.headers['x-request-id'] },
        });
      }
      // a success carries its request id too
      expect(ok.headers['x-request-id'], url).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('still accepts every known parameter', async () => {
    for (const url of [
      '/agents?limit=1&protocol=mcp&source=smithery&active=all',
      '/stats/daily?days=7&protocol=a2a',
      '/stats/agents?q=a&protocol=mcp&limit=2',
      '/?q=alpha',
      '/search?q=alpha&protocol=mcp&source=smithery&state=up&transport=sse&auth=none&limit=2&offset=1&explain=1',
    ]) {
      expect((await api.app().inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });
});
