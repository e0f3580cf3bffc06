import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { GENERIC_MESSAGES, REQUEST_ID_MAX } from '../../src/api/errors.js';
import { buildApi } from '../../src/api/server.js';
import { WarehouseError } from '../../src/warehouse/errors.js';

/**
 * A failing warehouse never shows through the API: a 5xx answers a generic message and a
 * request id (the body's, the x-request-id header's and the log line's are the same), and
 * the details (the engine's text, with its SQL and bound values) go to the log only.
 */

const SQL = "SELECT agent_id AS id FROM agents FINAL WHERE agent_id = {id:String} AND opt_out != 'hidden'";
const SECRET = 'sk_live_9f8e7d6c5b4a3f2e1d0c';
const ENGINE_TEXT = `Code: 47. DB::Exception: Unknown expression identifier 'opt_out' in scope ${SQL} with parameters id = '${SECRET}'. (UNKNOWN_IDENTIFIER)`;

/** A warehouse whose every call fails with an engine error that quotes its SQL and a secret-looking value. */
function failingWarehouse() {
  const fail = (): never => {
    throw new WarehouseError('unknown_column', ENGINE_TEXT, { code: 47 });
  };
  return {
    kind: 'server' as const,
    readOnly: true,
    query: async () => fail(),
    stream: () => fail(),
    exec: async () => fail(),
    insert: async () => fail(),
    close: async () => {},
  };
}

/** The fields of a pino log line these tests read. */
type LogLine = { level: number; msg?: string; reqId?: string; err?: { message?: string } };

/** The API over a failing warehouse, with its logger writing JSON lines into `lines`. */
function failingApi() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { app: buildApi({ warehouse: failingWarehouse(), logger }), lines };
}

const leaks = (text: string) => [SECRET, 'SELECT', 'DB::Exception', 'agents FINAL', 'Code: 47'].filter((s) => text.includes(s));

const ID = '0123456789abcdef';

/**
 * A request to every route that reads the warehouse (all but /healthz, tested below), by the
 * route's OpenAPI path; /agents/{id} twice, for its JSON and for its HTML page.
 */
const REQUESTS: ReadonlyArray<{ path: string; url: string; accept?: string }> = [
  { path: '/', url: '/' },
  { path: '/agents', url: '/agents' },
  { path: '/agents/{id}', url: `/agents/${ID}` },
  { path: '/agents/{id}', url: `/agents/${ID}`, accept: 'text/html' },
  { path: '/stats/runs/latest', url: '/stats/runs/latest' },
  { path: '/stats/runs/{runId}', url: '/stats/runs/run-1' },
  { path: '/stats/census', url: '/stats/census' },
  { path: '/stats/daily', url: '/stats/daily' },
  { path: '/stats/agents', url: '/stats/agents?q=x' },
  { path: '/search', url: '/search?q=x' },
  { path: '/feed.atom', url: '/feed.atom' },
  { path: '/feed.json', url: '/feed.json' },
  { path: '/agents/{id}/feed.atom', url: `/agents/${ID}/feed.atom` },
  { path: '/badge/{id}/uptime.svg', url: `/badge/${ID}/uptime.svg` },
  { path: '/badge/{id}/conformance.svg', url: `/badge/${ID}/conformance.svg` },
];

describe('API errors', () => {
  it('has a request for every route the OpenAPI description names', async () => {
    const { app } = failingApi();
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    const covered = new Set([...REQUESTS.map((r) => r.path), '/healthz']);
    expect(Object.keys(doc.paths).filter((p) => !covered.has(p))).toEqual([]);
    expect([...covered].filter((p) => !(p in doc.paths))).toEqual([]);
    await app.close();
  });

  it('answers a warehouse failure on every route with a generic 500, its request id in the body, the header and the log', async () => {
    const { app, lines } = failingApi();
    for (const { url: path, accept } of REQUESTS) {
      const url = accept ? `${path} (Accept: ${accept})` : path;
      const res = await app.inject({ method: 'GET', url: path, ...(accept ? { headers: { accept } } : {}) });
      expect(res.statusCode, url).toBe(500);
      expect(leaks(res.body), url).toEqual([]);
      const requestId = String(res.headers['x-request-id']);
      expect(requestId, url).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.json(), url).toEqual({ error: { code: 'internal', message: GENERIC_MESSAGES.internal, requestId } });
      // The details are logged, under the same id.
      const logged = lines.filter((l) => l.reqId === requestId && l.level === 50);
      expect(logged, url).toHaveLength(1);
      expect(logged[0]!.msg).toBe('request failed');
      expect(logged[0]!.err?.message).toBe(ENGINE_TEXT);
    }
    await app.close();
  });

  it('answers /healthz 503 with a generic message when the warehouse fails, and logs why', async () => {
    const { app, lines } = failingApi();
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(503);
    expect(leaks(res.body)).toEqual([]);
    const requestId = String(res.headers['x-request-id']);
    expect(res.json()).toEqual({ status: 'unavailable', error: { code: 'unavailable', message: GENERIC_MESSAGES.unavailable, requestId } });
    const logged = lines.filter((l) => l.reqId === requestId && l.level === 50);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.err?.message).toBe(ENGINE_TEXT);
    await app.close();
  });

  it("keeps a caller's x-request-id only when it is a short safe token", async () => {
    const { app, lines } = failingApi();
    const given = 'trace-01HZX3.abc_9';
    const kept = await app.inject({ method: 'GET', url: '/stats/census', headers: { 'x-request-id': given } });
    expect(kept.headers['x-request-id']).toBe(given);
    expect(kept.json().error.requestId).toBe(given);
    expect(lines.some((l) => l.reqId === given && l.level === 50)).toBe(true);
    for (const bad of ['a b', 'x'.repeat(REQUEST_ID_MAX + 1), '"}<script>', 'id\u2028x', '']) {
      const res = await app.inject({ method: 'GET', url: '/stats/census', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id'], JSON.stringify(bad)).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.json().error.requestId).toBe(res.headers['x-request-id']);
    }
    await app.close();
  });
});
