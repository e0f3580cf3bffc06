import { describe, expect, it } from 'vitest';
import type { ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { judgeProbe } from '../../src/processors/verdicts/judge-probe.js';
import { recipeCard } from '../conformance/helpers.js';
import { probeEvent, probeExchange } from '../helpers/probe-events.js';

const T = Date.UTC(2026, 10, 29);
const ex = (role: string, url: string, status: number | null, errorClass: string | null = null): ProbeExchange => ({
  role,
  url,
  status,
  headers: {},
  body: Buffer.alloc(0),
  bodyTruncated: false,
  bodyBytes: 0,
  bodySha256: '',
  remoteAddress: null,
  startedAt: T,
  durationMs: 5,
  errorClass,
  errorMessage: null,
  retries: 0,
});
const probe = (
  protocol: 'a2a' | 'mcp',
  robots: ProbeEvent['robots'],
  exchanges: ProbeExchange[],
  canary: ProbeEvent['canary'] = 'ok',
): ProbeEvent => ({
  id: 'e',
  observedAt: T,
  runId: 'r',
  requestId: null,
  agentKey: 'https://agent.acme-tools.dev/mcp',
  protocol,
  targetUrl: 'https://agent.acme-tools.dev/mcp',
  transport: 'streamable-http',
  inSample: false,
  exchanges,
  robots,
  canary,
  errorClass: null,
  retries: 0,
});
const judge = (ev: ProbeEvent) => judgeProbe(ev, null, CURRENT_CHECKER).check;

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
    const c = judge(
      probe('mcp', 'allowed', [
        ex('redirect', 'https://agent.acme-tools.dev/mcp', 308),
        ex('mcp-get', 'https://agent.acme-tools.dev/mcp/', 405),
      ]),
    );
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

describe('a card that is not valid UTF-8', () => {
  // The same bytes `check` fails (A2A-CARD-003): the index must not pass what the owner's tool fails.
  const cardUrl = 'https://agent.acme-recipes.dev/.well-known/agent-card.json';
  const text = JSON.stringify(recipeCard({ protocolVersion: '0.3.0@@' }));
  const bytes = Buffer.concat([
    Buffer.from(text.slice(0, text.indexOf('@@'))),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(text.slice(text.indexOf('@@') + 2)),
  ]);
  const exchange = {
    ...probeExchange('well-known', cardUrl, 200, '', { 'content-type': 'application/json' }),
    body: bytes,
    bodyBytes: bytes.length,
  };

  it('fails A2A-CARD-003 when the body is judged inline', () => {
    const j = judgeProbe(probeEvent(T, 'bad-utf8', cardUrl, 'a2a', [exchange]), null, CURRENT_CHECKER);
    expect(j.verdict.result).toBe('fail');
    expect((j.verdict.reasons as string[]).join(' ')).toMatch(/A2A-CARD-003.*not valid UTF-8/);
  });

  it('fails it the same way when the card is read from the document store by hash', () => {
    const kept = { ...exchange, body: Buffer.alloc(0), bodyKept: 'document' as const };
    const docs = new Map([[exchange.bodySha256, { text: bytes.toString('utf8'), validUtf8: false }]]);
    const j = judgeProbe(probeEvent(T, 'bad-utf8', cardUrl, 'a2a', [kept]), null, CURRENT_CHECKER, docs);
    expect(j.verdict.result).toBe('fail');
    expect((j.verdict.reasons as string[]).join(' ')).toMatch(/A2A-CARD-003/);
  });
});
