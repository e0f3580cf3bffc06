import Ajv2020 from 'ajv/dist/2020.js';
import Fastify, { type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { generateSigningKeyPair, signVerdict, type Verdict } from '../../src/conformance/index.js';
import { agentId } from '../../src/identity/agent-key.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentChangeRow } from '../helpers/warehouse-rows.js';
import { addSyntheticAgents, finishSyntheticIndex, SYNTHETIC_RUN, syntheticKey } from './synthetic-index.js';

/**
 * A response schema makes Fastify serialize with fast-json-stringify, which leaves out every
 * property the schema does not list and coerces values to the listed types. For every JSON route
 * (collected from the app, so a route added later is covered too) over a filled synthetic
 * warehouse, the body as served must equal the object the handler returned (taken before
 * serialization by a preSerialization hook), for the answers each route gives: found, not found,
 * a bad parameter, and a failing warehouse. A negative control shows the comparison catches a
 * property a schema drops.
 */

const CV = 'serialization-test-checker';
const AGENTS = 200;
const DAYS = 10;
/** Synthetic agents (synthetic-index.ts): 1 checked, 19 never checked, 49 inactive; 2 gets a real attestation below. */
const ID = {
  checked: agentId(syntheticKey(1)),
  attested: agentId(syntheticKey(2)),
  unchecked: agentId(syntheticKey(19)),
  inactive: agentId(syntheticKey(49)),
};
const PARAM_VALUES: Record<string, string[]> = {
  id: [...Object.values(ID), '0123456789abcdef', 'not-an-id'],
  runId: [SYNTHETIC_RUN, 'no-such-run'],
};
/** Query strings worth trying on the routes that take them (a bad one on every route). */
const EXTRA_URLS = [
  '/agents?active=all&limit=3',
  '/agents?protocol=a2a&limit=2',
  '/agents?cursor=not-a-cursor',
  '/stats/agents?q=weather&limit=5',
  '/stats/agents?protocol=a2a&limit=3',
  '/stats/daily?days=3&protocol=mcp',
  '/search?q=weather%20agent&explain=1',
  '/search?q=maps&protocol=a2a&state=up&limit=3',
];

type Captured = Map<string, unknown>;

/** The app with a hook that keeps each handler's payload (by request id) before it is serialized, and the routes it registered. */
function instrumented(app: ReturnType<typeof buildApi>): { raw: Captured; routes: RouteOptions[] } {
  const raw: Captured = new Map();
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (r) => void routes.push(r));
  app.addHook('preSerialization', async (req, _reply, payload) => {
    // What JSON.stringify (Fastify without a schema) would send.
    raw.set(req.id, JSON.parse(JSON.stringify(payload)));
    return payload;
  });
  return { raw, routes };
}

const shownGetRoutes = (routes: RouteOptions[]) =>
  routes.filter(
    (r) => (Array.isArray(r.method) ? r.method : [r.method]).includes('GET') && (r.schema as { hide?: boolean } | undefined)?.hide !== true,
  );

/** The route's URL with each parameter replaced by each of its test values (one URL per value of the first parameter), and once with an unknown query parameter. */
function urlsOf(route: string): string[] {
  const params = [...route.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  if (params.length === 0) return [route, `${route}?no_such_parameter=1`];
  const first = PARAM_VALUES[params[0]!] ?? ['x'];
  const urls = first.map((v) => params.reduce((u, p, i) => u.replace(`:${p}`, i === 0 ? v : (PARAM_VALUES[p]?.[0] ?? 'x')), route));
  return [...urls, `${urls[0]}?no_such_parameter=1`];
}

/** Every request's served body next to the handler's payload; the routes whose 200 answer was compared. */
async function compareAll(app: ReturnType<typeof buildApi>, raw: Captured, urls: string[]) {
  const compared: Array<{ url: string; status: number; served: unknown; returned: unknown }> = [];
  const answers: Array<{ url: string; status: number; contentType: string; body: string }> = [];
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url });
    answers.push({ url, status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body });
    const id = String(res.headers['x-request-id']);
    if (!raw.has(id)) continue; // a string body (HTML, SVG, Atom, a feed the route wrote itself): sent as it is, no serializer
    compared.push({ url, status: res.statusCode, served: JSON.parse(res.body), returned: raw.get(id) });
  }
  return { compared, answers };
}

type Doc = {
  paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }>;
  components?: { schemas?: Record<string, unknown> };
};

/** A schema of the description with its `#/components/schemas/…` references put in place (ajv then needs no document). */
function inlined(schema: unknown, doc: Doc): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlined(s, doc));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/')) return inlined(doc.components!.schemas![ref.slice('#/components/schemas/'.length)], doc);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlined(v, doc)]));
}

/** Each JSON answer checked against the described schema of its path, status and media type (ajv, JSON Schema 2020-12). */
function againstDescription(answers: Array<{ url: string; status: number; contentType: string; body: string }>, doc: Doc) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  const invalid: string[] = [];
  let validated = 0;
  for (const a of answers) {
    const type = a.contentType.split(';')[0]!.trim();
    if (!/[/+]json$/.test(type)) continue;
    const path = describedPath(a.url, doc);
    const schema = path ? doc.paths[path]!.get.responses[String(a.status)]?.content?.[type]?.schema : undefined;
    if (!schema) {
      invalid.push(`GET ${a.url} (${a.status} ${type}): not described`);
      continue;
    }
    const validate = ajv.compile(inlined(schema, doc) as object);
    if (!validate(JSON.parse(a.body))) invalid.push(`GET ${a.url} (${a.status}): ${ajv.errorsText(validate.errors)}`);
    validated += 1;
  }
  return { invalid, validated };
}

/** The described path (`/agents/{id}`) of a request URL, given the routes' described paths. */
function describedPath(url: string, doc: Doc): string | undefined {
  const path = url.split('?')[0]!;
  return Object.keys(doc.paths).find((p) => new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}

/** Paths (a.b[0].c) where two JSON values differ: a key missing on either side, or another value. */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (Object.is(a, b)) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return [`${at || '(root)'}: served ${JSON.stringify(a)?.slice(0, 80)}, returned ${JSON.stringify(b)?.slice(0, 80)}`];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: string[] = [];
  for (const k of keys) {
    const sub = Array.isArray(a) ? `${at}[${k}]` : at ? `${at}.${k}` : k;
    if (!(k in a)) out.push(`${sub}: dropped by the schema`);
    else if (!(k in b)) out.push(`${sub}: added by the schema`);
    else out.push(...differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], sub));
  }
  return out;
}

describe('response schemas drop nothing', () => {
  let t: TestWarehouse;
  let app: ReturnType<typeof buildApi>;
  let raw: Captured;
  let routes: RouteOptions[];

  beforeAll(async () => {
    t = await withWarehouse('openapi-serialization');
    await addSyntheticAgents(t.wh, { from: 0, to: AGENTS, days: DAYS, checkerVersion: CV });
    await finishSyntheticIndex(t.wh, { agents: AGENTS, days: DAYS, checkerVersion: CV });
    // Agent 2's latest verdict carries a real attestation (as the verdict processor stores it: JSON text).
    const { privateKeyPem } = generateSigningKeyPair();
    const key = syntheticKey(2);
    const verdict = {
      subject: key,
      observedAt: new Date().toISOString(),
      checker: CV,
      suite: { id: 'veronikai-mcp', version: 1 },
      result: 'fail',
      reasons: ['MCP-001 #/: example failure'],
      scope: 'observation',
      inputsHash: 'a'.repeat(64),
    } as unknown as Verdict;
    await t.wh.insert('agent_latest', [
      {
        checker_version: CV,
        agent_key: key,
        agent_id: ID.attested,
        protocol: 'mcp',
        source: 'mcp-registry',
        event_id: 'e-attested',
        observed_at: new Date(),
        uptime: 'up',
        reason: '',
        http_status: 200,
        latency_ms: 42,
        in_sample: 0,
        our_side: 0,
        suite_id: 'veronikai-mcp',
        suite_version: '1',
        result: 'fail',
        reasons: ['MCP-001 #/: example failure'],
        warnings: ['warn: W-1'],
        a2a_version: '',
        a2a_route: '',
        signature: JSON.stringify(signVerdict(verdict, privateKeyPem)),
      },
    ]);
    // Two changes, so the feeds have items to serialize.
    const change = (id: string, kind: 'down' | 'up', minutesAgo: number, from: string, to: string) =>
      agentChangeRow({
        observed_at: new Date(Date.now() - minutesAgo * 60_000),
        change_id: id,
        kind,
        agent_key: syntheticKey(1),
        agent_id: ID.checked,
        protocol: 'mcp',
        name: 'Maps Agent 1',
        checker_version: '',
        cause_event_id: `cause-${id}`,
        from_state: from,
        to_state: to,
        summary: `went ${to}`,
        reasons: [],
      });
    await t.wh.insert('agent_changes', [change('s1', 'down', 30, 'up', 'down'), change('s2', 'up', 20, 'down', 'up')]);
    app = buildApi({ warehouse: t.wh });
    ({ raw, routes } = instrumented(app));
    await app.ready();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('every JSON route serves exactly what its handler returned: found, not found and bad requests', async () => {
    const urls = [...shownGetRoutes(routes).flatMap((r) => urlsOf(r.url)), ...EXTRA_URLS];
    const { compared, answers } = await compareAll(app, raw, urls);
    const problems = compared.flatMap((c) => differences(c.served, c.returned).map((d) => `GET ${c.url} (${c.status}) ${d}`));
    expect(problems).toEqual([]);
    // What was compared: the 200 answer of every route whose description says it answers JSON
    // (application/json or a +json type), and errors.
    const ok = new Set(
      compared
        .filter((c) => c.status === 200)
        .map((c) =>
          c.url
            .split('?')[0]!
            .replace(/\/[0-9a-f]{16}(?=\/|$)/, '/{id}')
            .replace(SYNTHETIC_RUN, '{runId}'),
        ),
    );
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
    const jsonRoutes = Object.entries(doc.paths)
      .filter(([, item]) => Object.keys(item.get.responses['200']?.content ?? {}).some((t) => /[/+]json$/.test(t)))
      .map(([p]) => p);
    expect(jsonRoutes).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/agents',
        '/agents/{id}',
        '/stats/runs/latest',
        '/stats/runs/{runId}',
        '/stats/census',
        '/stats/daily',
        '/stats/agents',
        '/search',
      ]),
    );
    // A route that writes its JSON itself (a string) bypasses the serializer: nothing to drop there.
    const asText = new Set(
      answers.filter((a) => a.status === 200 && !compared.some((c) => c.url === a.url)).map((a) => describedPath(a.url, doc)),
    );
    expect(jsonRoutes.filter((p) => !ok.has(p) && !asText.has(p))).toEqual([]);

    // And every JSON body served (whoever serialized it) is what the description says it is.
    const { invalid, validated } = againstDescription(answers, doc);
    expect(invalid).toEqual([]);
    expect(validated).toBeGreaterThan(20);
    expect(compared.filter((c) => c.status === 404).length).toBeGreaterThan(0);
    expect(compared.filter((c) => c.status === 400).length).toBeGreaterThan(0);
    // The filled fields really were there: an agent with its attestation, listings and windows; a page of agents; daily rows.
    const attested = compared.find((c) => c.url === `/agents/${ID.attested}`)!.served as {
      latestVerdict: { signature: { payload: { subject: string } } };
      listings: unknown[];
    };
    expect(attested.latestVerdict.signature.payload.subject).toBe(syntheticKey(2));
    expect(attested.listings.length).toBeGreaterThan(0);
    expect(compared.find((c) => c.url === `/agents/${ID.unchecked}`)!.served).toMatchObject({ latestCheck: null, latestVerdict: null });
    expect((compared.find((c) => c.url === `/agents/${ID.inactive}`)!.served as { inactiveSince: string }).inactiveSince).toMatch(/Z$/);
    expect((compared.find((c) => c.url === '/agents?active=all&limit=3')!.served as { agents: unknown[] }).agents).toHaveLength(3);
    expect((compared.find((c) => c.url === '/stats/daily?days=3&protocol=mcp')!.served as { rows: unknown[] }).rows.length).toBeGreaterThan(
      0,
    );
  }, 120_000);

  it("a failing warehouse: every route's 500 body is the error shape, unchanged by its schema and described", async () => {
    const failing = buildApi({
      warehouse: {
        kind: 'embedded',
        readOnly: true,
        close: async () => {},
        query: async () => {
          throw new Error('down');
        },
        stream: () => {
          throw new Error('down');
        },
      },
    });
    const f = instrumented(failing);
    await failing.ready();
    try {
      const { compared, answers } = await compareAll(
        failing,
        f.raw,
        shownGetRoutes(f.routes).flatMap((r) => urlsOf(r.url).slice(0, 1)),
      );
      expect(compared.filter((c) => c.status >= 500).length).toBeGreaterThanOrEqual(8);
      expect(compared.flatMap((c) => differences(c.served, c.returned).map((d) => `GET ${c.url} (${c.status}) ${d}`))).toEqual([]);
      // Each route describes the 500 (or 503) it answers.
      const doc = (await failing.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
      expect(againstDescription(answers, doc).invalid).toEqual([]);
    } finally {
      await failing.close();
    }
  });

  it('negative control: the comparison sees a property a schema leaves out, and a value it coerces', async () => {
    const probe = Fastify();
    const captured: Captured = new Map();
    probe.addHook('preSerialization', async (req, _reply, payload) => {
      captured.set(req.id, JSON.parse(JSON.stringify(payload)));
      return payload;
    });
    probe.get(
      '/x',
      { schema: { response: { 200: { type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } } } } } },
      async () => ({ a: 'kept', n: '7', b: 'dropped' }),
    );
    await probe.ready();
    const res = await probe.inject({ method: 'GET', url: '/x' });
    expect(captured.size).toBe(1);
    expect(differences(JSON.parse(res.body), [...captured.values()][0])).toEqual(['n: served 7, returned "7"', 'b: dropped by the schema']);
    await probe.close();
  });
});
