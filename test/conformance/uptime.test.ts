import { describe, expect, it } from 'vitest';
import { classifyA2AUptime, classifyMcpUptime, MCP_UP_STATUSES, type HttpExchange } from '../../src/conformance/index.js';

const ex = (status: number | null, errorClass: string | null = null): HttpExchange => ({
  url: 'https://a.dev/x',
  status,
  headers: {},
  errorClass,
});
const a2a = (exchanges: HttpExchange[], robots = 'allowed', canary = 'ok') =>
  classifyA2AUptime({ exchanges, robots: robots as 'allowed', canary: canary as 'ok' });
const mcp = (get: HttpExchange | null, robots = 'allowed', canary = 'ok') =>
  classifyMcpUptime({ remote: null, get, robots: robots as 'allowed', canary: canary as 'ok', serverJson: null });

describe('uptime (seed 003 §2)', () => {
  it('A2A: 200 up; 401/403 up; 402 up; no card down; 429 and timeouts unknown', () => {
    expect(a2a([ex(404), ex(200)]).state).toBe('up');
    expect(a2a([ex(401)]).state).toBe('up');
    expect(a2a([ex(403)]).state).toBe('up');
    expect(a2a([ex(402)]).state).toBe('up');
    expect(a2a([ex(404), ex(404), ex(404)]).state).toBe('down');
    expect(a2a([ex(503)]).state).toBe('down');
    expect(a2a([ex(429)]).state).toBe('unknown');
    expect(a2a([ex(null, 'timeout')]).state).toBe('unknown');
    expect(a2a([ex(404), ex(null, 'reset')]).state).toBe('unknown');
    expect(a2a([ex(null, 'refused')]).state).toBe('down');
    expect(a2a([ex(null, 'dns')]).state).toBe('down');
    expect(a2a([ex(null, 'blocked_address')]).state).toBe('unknown');
  });

  it('MCP: the listed statuses are up; 429, timeouts and unconfirmed resets unknown; the rest down', () => {
    for (const s of [200, 202, 204, 301, 302, 307, 308, 400, 401, 402, 403, 405, 406, 409, 415, 421])
      expect(mcp(ex(s)).state, String(s)).toBe('up');
    expect([...MCP_UP_STATUSES].sort((a, b) => a - b)).toEqual([200, 202, 204, 400, 401, 402, 403, 405, 406, 409, 415, 421]);
    expect(mcp(ex(429)).state).toBe('unknown');
    expect(mcp(ex(null, 'timeout')).state).toBe('unknown');
    expect(mcp(ex(null, 'reset')).state).toBe('unknown');
    for (const s of [404, 410, 500, 502, 503]) expect(mcp(ex(s)).state, String(s)).toBe('down');
    expect(mcp(ex(null, 'refused')).state).toBe('down');
    expect(mcp(ex(null, 'constructor')).state).toBe('unknown');
  });

  it('robots disallow is skipped (robots), never down', () => {
    expect(a2a([], 'disallowed')).toMatchObject({ state: 'skipped', reason: 'skipped (robots)' });
    expect(mcp(null, 'disallowed')).toMatchObject({ state: 'skipped', reason: 'skipped (robots)' });
  });

  it('a redirect the probe refused because robots.txt disallows its path is skipped (robots); other politeness refusals stay unknown', () => {
    expect(mcp(ex(null, 'robots_disallowed'))).toMatchObject({ state: 'skipped', ourSide: false, status: null });
    expect(mcp(ex(null, 'robots_disallowed')).reason).toMatch(/^skipped \(robots\)/);
    expect(a2a([ex(404), ex(null, 'robots_disallowed'), ex(404)]).state).toBe('skipped');
    expect(a2a([ex(null, 'timeout'), ex(null, 'robots_disallowed')]).state).toBe('skipped');
    // an answer that shows the agent up still wins
    expect(a2a([ex(null, 'robots_disallowed'), ex(200)]).state).toBe('up');
    expect(a2a([ex(null, 'robots_disallowed'), ex(403)]).state).toBe('up');
    // never turned into unknown by a failed canary: it was our choice not to ask
    expect(mcp(ex(null, 'robots_disallowed'), 'allowed', 'failed').state).toBe('skipped');
    for (const cls of ['robots_unreachable', 'rate_limited', 'budget_exhausted', 'hop_refused']) {
      expect(mcp(ex(null, cls)).state, cls).toBe('unknown');
      expect(a2a([ex(404), ex(null, cls)]).state, cls).toBe('unknown');
    }
  });

  it('a failed canary makes it unknown (our side), never down; an answer still counts as up', () => {
    expect(a2a([ex(null, 'refused')], 'allowed', 'failed')).toMatchObject({ state: 'unknown', ourSide: true });
    expect(a2a([ex(404)], 'allowed', 'failed')).toMatchObject({ state: 'unknown', ourSide: true });
    expect(mcp(ex(502), 'allowed', 'failed')).toMatchObject({ state: 'unknown', ourSide: true });
    expect(mcp(ex(405), 'allowed', 'failed').state).toBe('up');
  });
});
