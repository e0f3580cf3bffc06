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
    stream: async function* () {
      fail();
    },
    exec: async () => fail(),
    insert: async () => fail(),
    close: async () => {},
  };
}

/** The API over a failing warehouse, with its logger writing JSON lines into `lines`. */
function failingApi() {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { app: buildApi({ warehouse: failingWarehouse(), logger }), lines };
}

const leaks = (text: string) => [SECRET, 'SELECT', 'DB::Exception', 'agents FINAL', 'Code: 47'].filter((s) => text.includes(s));

describe('API errors', () => {
  it('answers a warehouse failure on every route with a generic 500, its request id in the body, the header and the log', async () => {
    const { app, lines } = failingApi();
    const urls = ['/', '/agents', '/agents/0123456789abcdef', '/stats/runs/latest', '/stats/runs/run-1', '/stats/census', '/stats/daily', '/stats/agents?q=x'];
    for (const url of urls) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(500);
      expect(leaks(res.body), url).toEqual([]);
      const requestId = String(res.headers['x-request-id']);
      expect(requestId, url).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.json(), url).toEqual({ error: { code: 'internal', message: GENERIC_MESSAGES.internal, requestId } });
      // The details are logged, under the same id.
      const logged = lines.filter((l) => l.reqId === requestId && l.level === 50);
      expect(logged, url).toHaveLength(1);
      expect(logged[0]!.msg).toBe('request failed');
      expect(logged[0]!.err.message).toBe(ENGINE_TEXT);
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
    expect(logged[0]!.err.message).toBe(ENGINE_TEXT);
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
