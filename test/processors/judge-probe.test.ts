import { describe, expect, it } from 'vitest';
import type { ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { judgeProbe } from '../../src/processors/verdicts/judge-probe.js';

const T = Date.UTC(2026, 10, 29);
const ex = (role: string, url: string, status: number | null, errorClass: string | null = null): ProbeExchange => ({
  role, url, status, headers: {}, body: Buffer.alloc(0), bodyTruncated: false, bodyBytes: 0, bodySha256: '',
  remoteAddress: null, startedAt: T, durationMs: 5, errorClass, errorMessage: null, retries: 0,
});
const probe = (protocol: 'a2a' | 'mcp', robots: ProbeEvent['robots'], exchanges: ProbeExchange[], canary: ProbeEvent['canary'] = 'ok'): ProbeEvent => ({
  id: 'e', observedAt: T, runId: 'r', requestId: null, agentKey: 'https://agent.acme-tools.dev/mcp', protocol,
  targetUrl: 'https://agent.acme-tools.dev/mcp', transport: 'streamable-http', inSample: false, exchanges, robots, canary,
  errorClass: null, retries: 0,
});
const judge = (ev: ProbeEvent) => judgeProbe(ev, null, CURRENT_CHECKER, () => 'sig').check;

describe('judging what a probe saw', () => {
  it('reads a host whose robots.txt could not even be connected to as down, not skipped', () => {
    for (const protocol of ['a2a', 'mcp'] as const) {
      const c = judge(probe(protocol, 'unreachable', [ex('robots', 'https://agent.acme-tools.dev/robots.txt', null, 'refused')]));
      expect(c.uptime).toBe('down');
    }
  });

  it('reads a robots.txt that answered 5xx as a disallow: skipped (robots)', () => {
    const c = judge(probe('mcp', 'unreachable', [ex('robots', 'https://agent.acme-tools.dev/robots.txt', 503)]));
    expect(c.uptime).toBe('skipped');
  });

  it('never reads a failure as down while the canary fails: unknown, our side', () => {
    const c = judge(probe('mcp', 'allowed', [ex('mcp-get', 'https://agent.acme-tools.dev/mcp', null, 'refused')], 'failed'));
    expect(c).toMatchObject({ uptime: 'unknown', our_side: 1 });
  });

  it('judges a redirected GET by its final hop', () => {
    const c = judge(probe('mcp', 'allowed', [ex('redirect', 'https://agent.acme-tools.dev/mcp', 308), ex('mcp-get', 'https://agent.acme-tools.dev/mcp/', 405)]));
    expect(c).toMatchObject({ uptime: 'up', http_status: 405 });
  });

  it('reads a probe our politeness held back as unknown, with the reason in words', () => {
    for (const cls of ['rate_limited', 'hop_refused', 'budget_exhausted', 'robots_unreachable']) {
      const c = judge(probe('mcp', 'allowed', [ex('mcp-get', 'https://agent.acme-tools.dev/mcp', null, cls)]));
      expect(c.uptime, cls).toBe('unknown');
      expect(c.reason, cls).not.toMatch(/network error/);
    }
  });

  it('reads a redirect into a path robots.txt disallows as skipped (robots)', () => {
    const c = judge(probe('mcp', 'allowed', [ex('mcp-get', 'https://agent.acme-tools.dev/mcp', null, 'robots_disallowed')]));
    expect(c.uptime).toBe('skipped');
    expect(c.reason).toMatch(/^skipped \(robots\)/);
  });
});
