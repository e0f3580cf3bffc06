import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP, DOCS_PREFIX, OPENAPI_PATH } from '../../src/api/openapi.js';
import { buildApi } from '../../src/api/server.js';
import { HAVE_CHROMIUM, launchChromium, recordedPage, warnNoChromium } from '../helpers/browser.js';

/**
 * GET /openapi.json is a valid OpenAPI 3.1 document that describes every route the API has (the
 * routes are collected from Fastify itself, so a route added later without its schemas fails
 * here), each with a response schema for 200 and the one error schema for its errors; /docs
 * renders it from this origin only. The description reads no data: the warehouse here fails
 * every call, and nothing below touches it.
 */

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, { parameters?: Array<{ in: string; name: string; required?: boolean }>; responses: Record<string, Response> }>
  >;
  components?: { schemas?: Record<string, unknown> };
};
type Response = { description?: string; content?: Record<string, { schema?: Record<string, unknown> }> };

function failingWarehouse() {
  const fail = (): never => {
    throw new Error('the description must not read the warehouse');
  };
  return {
    kind: 'embedded' as const,
    readOnly: true,
    query: async () => fail(),
    stream: () => fail(),
    exec: async () => fail(),
    insert: async () => fail(),
    close: async () => {},
  };
}

/** Every GET path in Fastify's printed route tree (`printRoutes({ commonPrefix: false })`): each line's label appended to its parent's. */
function printedGetPaths(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)(?:[└├]── )?(\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (m[3]!.split(', ').includes('GET')) out.push(stack.join(''));
  }
  return out;
}

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const ERROR_REF = '#/components/schemas/ApiError';

describe('GET /openapi.json', () => {
  let app: ReturnType<typeof buildApi>;
  const routes: RouteOptions[] = [];
  let doc: Doc;

  beforeAll(async () => {
    app = buildApi({ warehouse: failingWarehouse() });
    // Before ready: the route plugins load at ready, so the hook sees each of their routes.
    app.addHook('onRoute', (r) => void routes.push(r));
    await app.ready();
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json() as Doc;
  });
  afterAll(async () => {
    await app?.close();
  });

  const getRoutes = () => routes.filter((r) => (Array.isArray(r.method) ? r.method : [r.method]).includes('GET'));
  const shown = () => getRoutes().filter((r) => (r.schema as { hide?: boolean } | undefined)?.hide !== true);

  it('validates as OpenAPI 3.1, and the validator does refuse a broken document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // Negative control: a response without its required description is not OpenAPI.
    const broken = structuredClone(doc);
    delete broken.paths['/healthz']!.get!.responses['200']!.description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("is titled VeronikAI with the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.info).toMatchObject({ title: 'VeronikAI', version: pkg.version });
  });

  it('every schema in it is a valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1), checked against the meta-schema', () => {
    const ajv = new Ajv2020.default({ strict: false });
    const schemas: unknown[] = Object.values(doc.components?.schemas ?? {});
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const p of op.parameters ?? []) schemas.push((p as { schema?: unknown }).schema);
        for (const r of Object.values(op.responses)) for (const c of Object.values(r.content ?? {})) schemas.push(c.schema);
      }
    }
    expect(schemas.length).toBeGreaterThan(20);
    for (const s of schemas) expect(ajv.validateSchema(s as object), JSON.stringify(s).slice(0, 200)).toBe(true);
    // Negative control: a misspelt type is refused.
    expect(ajv.validateSchema({ type: 'strin' })).toBe(false);
  });

  it('lists every GET route the app has, each with a response schema for 200, and nothing that is not a route', () => {
    // The hook saw the route plugins; the printed tree shows every route, so nothing escaped the hook
    // but /openapi.json itself (registered before the hook could be added, and hidden). Swagger UI's
    // own routes under /docs are left out of this check (the tree prints its wildcard route lossily).
    const printed = printedGetPaths(app.printRoutes({ commonPrefix: false })).filter((p) => !p.startsWith(DOCS_PREFIX));
    expect(printed).toContain('/healthz');
    expect(printed).toContain('/agents/:id');
    const seen = new Set(getRoutes().map((r) => r.url));
    expect(printed.filter((p) => !seen.has(p))).toEqual([OPENAPI_PATH]);

    const missing: string[] = [];
    for (const r of shown()) {
      const op = doc.paths[openApiPath(r.url)]?.get;
      const ok =
        op?.responses['200']?.content &&
        Object.values(op.responses['200'].content).every((c) => c.schema && Object.keys(c.schema).length > 0);
      if (!ok) missing.push(`GET ${r.url}${op ? ': no response schema for 200' : ': not in paths'}`);
    }
    expect(missing).toEqual([]);
    expect(shown().length).toBeGreaterThanOrEqual(9);
    // Only GET routes are described, and only real ones.
    const described = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(described.sort()).toEqual(
      shown()
        .map((r) => `GET ${openApiPath(r.url)}`)
        .sort(),
    );
  });

  it('hides /openapi.json, /docs and its assets; the ClickHouse interface is another server, not a route here', () => {
    for (const p of Object.keys(doc.paths)) {
      expect(p).not.toBe(OPENAPI_PATH);
      expect(p.startsWith(DOCS_PREFIX)).toBe(false);
    }
    expect(getRoutes().some((r) => r.url === `${DOCS_PREFIX}/json`)).toBe(true);
    // The ClickHouse interface (src/api/clickhouse-http.ts: '/?query=', '/ping') listens on its own port; '/' here is the dashboard.
    expect(doc.paths).not.toHaveProperty('/ping');
    expect(Object.keys(doc.paths['/']!.get!.responses['200']!.content!)).toEqual(['text/html']);
  });

  it('describes each error of the JSON routes with the one shared error schema, and each parameter', () => {
    expect(doc.components?.schemas?.ApiError).toMatchObject({
      type: 'object',
      required: ['error'],
      properties: { error: { required: ['code', 'message', 'requestId'] } },
    });
    const errors: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [status, r] of Object.entries(item.get!.responses)) {
        if (Number(status) < 400) continue;
        expect(r.description, `${p} ${status}`).toBeTruthy();
        const json = r.content?.['application/json']?.schema;
        if (!json) {
          errors.push(`${p} ${status}: no JSON schema`);
          continue;
        }
        // /healthz's 503 is the error shape with `status` beside it.
        const ok =
          json.$ref === ERROR_REF || (p === '/healthz' && status === '503' && JSON.stringify(json.properties).includes('requestId'));
        if (!ok) errors.push(`${p} ${status}: not the shared error schema`);
      }
    }
    expect(errors).toEqual([]);
    for (const p of [
      '/agents',
      '/agents/{id}',
      '/stats/runs/latest',
      '/stats/runs/{runId}',
      '/stats/census',
      '/stats/daily',
      '/stats/agents',
      '/search',
      '/healthz',
    ]) {
      const responses = doc.paths[p]!.get!.responses;
      expect(Object.keys(responses), p).toEqual(expect.arrayContaining(['200', '400', '500']));
    }
    expect(Object.keys(doc.paths['/agents/{id}']!.get!.responses)).toContain('404');
    expect(Object.keys(doc.paths['/healthz']!.get!.responses)).toContain('503');
    const params = (p: string) => doc.paths[p]!.get!.parameters!.map((x) => `${x.in}:${x.name}${x.required ? '!' : ''}`);
    expect(params('/agents').sort()).toEqual(['query:active', 'query:cursor', 'query:limit', 'query:protocol', 'query:source']);
    expect(params('/stats/runs/{runId}')).toEqual(['path:runId!']);
    // The agent answers JSON or its page; its verdict's signature is an object (or null), not JSON in a string.
    const agent = doc.paths['/agents/{id}']!.get!.responses['200']!.content!;
    expect(Object.keys(agent).sort()).toEqual(['application/json', 'text/html']);
    const verdict = (
      agent['application/json']!.schema as {
        properties: { latestVerdict: { properties: { signature: { type: unknown; properties: object } } } };
      }
    ).properties.latestVerdict;
    expect(verdict.properties.signature.type).toEqual(['object', 'null']);
    expect(Object.keys(verdict.properties.signature.properties).sort()).toEqual([
      'alg',
      'canonicalization',
      'head',
      'keyId',
      'leafIndex',
      'payload',
      'proof',
      'signature',
    ]);
  });
});

describe('GET /docs', () => {
  let app: ReturnType<typeof buildApi>;
  beforeAll(async () => {
    app = buildApi({ warehouse: failingWarehouse() });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers Swagger UI as HTML under its own policy, every asset from this origin', async () => {
    const res = await app.inject({ method: 'GET', url: DOCS_PREFIX });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const a of assets) {
      expect(a.startsWith(`${DOCS_PREFIX}/static/`), a).toBe(true);
      const asset = await app.inject({ method: 'GET', url: a });
      expect(asset.statusCode, a).toBe(200);
      expect(asset.headers['content-security-policy'], a).toBe(DOCS_CSP);
    }
    // The badge that would send the description to validator.swagger.io is off.
    const init = await app.inject({ method: 'GET', url: `${DOCS_PREFIX}/static/swagger-initializer.js` });
    expect(init.body).toMatch(/validatorUrl: null/);
    // The page the dashboard is keeps its own, stricter policy.
    expect(DOCS_CSP).not.toContain('unsafe');
  });
});

warnNoChromium('test/api/openapi.test.ts: the browser part');

describe.skipIf(!HAVE_CHROMIUM)('/docs in a real browser', () => {
  it('renders one block per described operation, requests nothing from another origin, with no CSP violation or console error', async () => {
    const app = buildApi({ warehouse: failingWarehouse() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      const doc = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json() as Doc;
      const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      const { page, requests, errors, violations } = await recordedPage(browser, origin);
      const res = await page.goto(`${origin}${DOCS_PREFIX}`, { waitUntil: 'networkidle0' });
      expect(res?.status()).toBe(200);
      await page.waitForSelector('.opblock', { timeout: 20_000 });
      const blocks = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
      expect(blocks).toHaveLength(operations);
      expect(blocks).toContain('/agents/{id}');
      expect(await page.$eval('.info .title', (e) => e.textContent)).toContain('VeronikAI');
      expect(requests).toContain(`${origin}${DOCS_PREFIX}/json`);
      for (const url of requests) expect(url.startsWith('data:') || new URL(url).origin === origin, url).toBe(true);
      expect(errors).toEqual([]);
      expect(await violations()).toEqual([]);
      // Positive control: the listener hears a violation (an inline script is refused).
      await page.evaluate(() => {
        const s = document.createElement('script');
        s.textContent = '1';
        document.body.appendChild(s);
      });
      await new Promise((r) => setTimeout(r, 200));
      expect((await violations()).some((v) => v.startsWith('script-src'))).toBe(true);
    } finally {
      await browser.close();
      await app.close();
    }
  }, 90_000);
});
