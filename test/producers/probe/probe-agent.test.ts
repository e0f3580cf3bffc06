/**
 * Whole probes as Probe events: real MCP and A2A SDK peers on loopback, robots.txt decisions
 * (asserted on the server's request log), skipped hosts, and hostile servers whose error class
 * must reach the event in bounded time and bounded memory.
 */
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../../src/events/codec.js';
import type { ProbeEvent } from '../../../src/events/types.js';
import { EVENT_MAX_BYTES } from '../../../src/events/limits.js';
import { CARD_MAX_BYTES } from '../../../src/http/limits.js';
import { OMITTED_HEADERS_MARKER } from '../../../src/http/types.js';
import { JUDGED_HEADERS } from '../../../src/http/client.js';
import { applyBodyBudget, fitProbeEvent } from '../../../src/producers/probe/event-fit.js';
import { ProbeEngine, type ProbeEngineOptions } from '../../../src/producers/probe/probe-agent.js';
import { startHttpServer, startRawServer, type TestServer } from '../../helpers/hostile-servers.js';
import { usePeers } from '../../helpers/peer-lifecycle.js';
import { startA2AAgent, startMcpLegacySse, startMcpStreamableStateless, startMcpWithBearerAuth } from '../../helpers/peers.js';

const base: ProbeEngineOptions = {
  contact: 'probes@veronikai.test',
  allowLoopback: true,
  timeoutMs: 2000,
  bodyWindowMs: 300,
  maxRetries: 0,
};
const engine = (extra: Partial<ProbeEngineOptions> = {}): ProbeEngine => new ProbeEngine({ ...base, ...extra });
const codec = eventCodec();

/** Every event must survive the Avro round trip (it goes to Kafka as is). */
function roundTrip(ev: ProbeEvent): ProbeEvent {
  const back = codec.decodeAs('Probe', codec.encode('Probe', ev));
  expect(back.exchanges.map((e) => e.role)).toEqual(ev.exchanges.map((e) => e.role));
  return back;
}

const { track: peer, hostile: hostileServer } = usePeers();

describe('MCP peers', () => {
  it('Streamable HTTP: one GET, role mcp-get, robots allowed, no error class', async () => {
    const p = await peer(startMcpStreamableStateless());
    const ev = roundTrip(await engine().probe({ protocol: 'mcp', url: p.url, runId: 'r', transport: 'streamable-http' }));
    expect(ev).toMatchObject({
      protocol: 'mcp',
      targetUrl: p.url,
      robots: 'allowed',
      canary: 'unknown',
      errorClass: null,
      transport: 'streamable-http',
    });
    expect(ev.exchanges.map((e) => e.role)).toEqual(['mcp-get']);
    expect(ev.exchanges[0]).toMatchObject({ status: 200, bodyTruncated: true });
    expect(ev.exchanges[0]!.headers['content-type']).toBe('text/event-stream');
    expect(typeof ev.exchanges[0]!.startedAt).toBe('number');
    expect(p.paths).toEqual(['/robots.txt', '/mcp']);
  });

  it('legacy HTTP+SSE: the endpoint event is in the bounded body', async () => {
    const p = await peer(startMcpLegacySse());
    const ev = roundTrip(await engine().probe({ protocol: 'mcp', url: p.url, runId: 'r', transport: 'sse' }));
    expect(ev.exchanges.map((e) => e.role)).toEqual(['mcp-get']);
    expect(ev.exchanges[0]!.status).toBe(200);
    expect(ev.exchanges[0]!.body.toString()).toContain('event: endpoint');
    expect(ev.exchanges[0]!.body.length).toBeLessThanOrEqual(2048);
  });

  it('bearer auth: 401, then the RFC 9728 metadata as resource-metadata, kept as a document named by hash', async () => {
    const p = await peer(startMcpWithBearerAuth());
    const kept = await engine().probeWithDocuments({ protocol: 'mcp', url: p.url, runId: 'r' });
    const ev = roundTrip(kept.probe);
    expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([
      ['mcp-get', 401],
      ['resource-metadata', 200],
    ]);
    expect(ev.errorClass).toBeNull();
    expect(ev.exchanges[1]).toMatchObject({ bodyKept: 'document', bodySha256: kept.documents[0]!.sha256 });
    expect(ev.exchanges[1]!.body.length).toBe(0);
    expect(kept.documents).toHaveLength(1);
    expect(JSON.parse(kept.documents[0]!.body.toString()).resource).toBe(p.url);
  });
});

describe('A2A peers: the card at each path variant', () => {
  it('at the listing URL: one exchange, role card', async () => {
    const p = await peer(startA2AAgent({ listingPath: '/agents/alpha/card.json', wellKnown: false }));
    const kept = await engine().probeWithDocuments({ protocol: 'a2a', url: p.url, runId: 'r' });
    const ev = roundTrip(kept.probe);
    expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([['card', 200]]);
    expect(ev.exchanges[0]).toMatchObject({ bodyKept: 'document', bodySha256: kept.documents[0]!.sha256 });
    expect(JSON.parse(kept.documents[0]!.body.toString()).name).toBe('VeronikAI Test Agent');
    expect(ev).toMatchObject({ robots: 'allowed', errorClass: null, agentKey: `${p.origin}/agents/alpha/card.json` });
  });

  it('at /.well-known/agent-card.json', async () => {
    const p = await peer(startA2AAgent());
    const ev = roundTrip(await engine().probe({ protocol: 'a2a', url: p.url, runId: 'r' }));
    expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([
      ['card', 404],
      ['well-known', 200],
    ]);
    expect(ev.errorClass).toBeNull();
  });

  it('only at the legacy /.well-known/agent.json', async () => {
    const p = await peer(startA2AAgent({ wellKnown: false, legacy: true }));
    const ev = roundTrip(await engine().probe({ protocol: 'a2a', url: p.url, runId: 'r' }));
    expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([
      ['card', 404],
      ['well-known', 404],
      ['legacy', 200],
    ]);
    expect(p.paths).toEqual(['/robots.txt', '/', '/.well-known/agent-card.json', '/.well-known/agent.json']);
  });

  it('a redirect hop is recorded with role redirect', async () => {
    const p = await peer(startA2AAgent({ listingPath: '/card.json', wellKnown: false }));
    const srv = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(301, { location: p.url });
      res.end();
    });
    try {
      const ev = roundTrip(await engine().probe({ protocol: 'a2a', url: `${srv.url}/old-card`, runId: 'r' }));
      expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([
        ['redirect', 301],
        ['card', 200],
      ]);
      // The redirect target's own origin had its robots.txt checked before the hop.
      expect(p.paths).toEqual(['/robots.txt', '/card.json']);
    } finally {
      await srv.close();
    }
  });
});

describe('robots.txt', () => {
  let srv: TestServer;
  let robots = '';
  beforeAll(async () => {
    srv = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(robots);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"name":"x"}');
    });
  });
  afterAll(async () => {
    await srv.close();
  });

  it('a disallowed target: skipped (robots), no request to the target path', async () => {
    robots = 'User-agent: *\nAllow: /\n\nUser-agent: veronikai\nDisallow: /private\n';
    srv.paths.length = 0;
    const ev = roundTrip(await engine().probe({ protocol: 'a2a', url: `${srv.url}/private/card.json`, runId: 'r' }));
    expect(ev).toMatchObject({ robots: 'disallowed', errorClass: 'robots_disallowed', exchanges: [], retries: 0 });
    expect(srv.paths).toEqual(['/robots.txt']);
  });

  it('the legacy veronica-agents group is honoured when there is no veronikai group', async () => {
    robots = 'User-agent: *\nAllow: /\n\nUser-agent: veronica-agents\nDisallow: /mcp\n';
    srv.paths.length = 0;
    const ev = await engine().probe({ protocol: 'mcp', url: `${srv.url}/mcp`, runId: 'r' });
    expect(ev).toMatchObject({ robots: 'disallowed', errorClass: 'robots_disallowed', exchanges: [] });
    expect(srv.paths).toEqual(['/robots.txt']);
  });

  it('a path disallowed further down the chain is a refused hop, not a request', async () => {
    robots = 'User-agent: veronikai\nDisallow: /.well-known/\n';
    srv.paths.length = 0;
    const ev = await engine().probe({ protocol: 'a2a', url: `${srv.url}/`, runId: 'r' });
    // The listing URL answered with a JSON object, so the chain stops there.
    expect(ev.exchanges.map((e) => e.role)).toEqual(['card']);
    robots = 'User-agent: veronikai\nDisallow: /.well-known/\n';
    const other = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200);
        res.end(robots);
        return;
      }
      res.writeHead(404);
      res.end();
    });
    try {
      const ev2 = await engine().probe({ protocol: 'a2a', url: `${other.url}/agent`, runId: 'r' });
      expect(ev2.robots).toBe('allowed');
      expect(ev2.exchanges.map((e) => [e.role, e.status, e.errorClass])).toEqual([
        ['card', 404, null],
        ['well-known', null, 'robots_disallowed'],
        ['legacy', null, 'robots_disallowed'],
      ]);
      expect(other.paths).toEqual(['/robots.txt', '/agent']);
    } finally {
      await other.close();
    }
  });

  it('robots.txt answering 503: unreachable, everything disallowed, the answer kept as evidence', async () => {
    const s = await startHttpServer((req, res) => {
      res.writeHead(req.url === '/robots.txt' ? 503 : 200);
      res.end();
    });
    try {
      const ev = roundTrip(await engine().probe({ protocol: 'mcp', url: `${s.url}/mcp`, runId: 'r' }));
      expect(ev).toMatchObject({ robots: 'unreachable', errorClass: 'robots_unreachable' });
      expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([['robots', 503]]);
      expect(s.paths).toEqual(['/robots.txt']);
    } finally {
      await s.close();
    }
  });
});

describe('host skipping', () => {
  it('after 3 consecutive network failures the host is skipped for the run, and the event says so', async () => {
    const dead = await startHttpServer(() => undefined);
    const url = `${dead.url}/mcp`;
    await dead.close();
    const e = engine();
    const events: ProbeEvent[] = [];
    for (let i = 0; i < 4; i++) events.push(await e.probe({ protocol: 'mcp', url, runId: 'run-1' }));
    expect(events.slice(0, 3).map((ev) => [ev.robots, ev.errorClass, ev.exchanges[0]?.errorClass])).toEqual([
      ['unreachable', 'robots_unreachable', 'refused'],
      ['unreachable', 'robots_unreachable', 'refused'],
      ['unreachable', 'robots_unreachable', 'refused'],
    ]);
    const skipped = roundTrip(events[3]!);
    expect(skipped).toMatchObject({ errorClass: 'host_skipped', robots: 'not_checked' });
    expect(skipped.exchanges.map((x) => [x.role, x.status, x.errorClass])).toEqual([['mcp-get', null, 'host_skipped']]);
    expect(e.trackerFor('run-1').skippedHosts()).toEqual(['127.0.0.1']);
    // The next run starts with a clean slate.
    expect((await e.probe({ protocol: 'mcp', url, runId: 'run-2' })).errorClass).toBe('robots_unreachable');
  });

  it('transient errors are retried at most 3 times, with the retries on the event', async () => {
    const dead = await startHttpServer(() => undefined);
    const url = `${dead.url}/mcp`;
    await dead.close();
    const slept: number[] = [];
    const e = engine({
      maxRetries: 3,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    const ev = await e.probe({ protocol: 'mcp', url, runId: 'r' });
    expect(ev.exchanges[0]).toMatchObject({ role: 'robots', errorClass: 'refused', retries: 3 });
    expect(ev.retries).toBe(3);
    // Doubling, jittered backoff: each wait in the upper half of its window (500, 1000, 2000 ms).
    expect(slept).toHaveLength(3);
    slept.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(250 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(500 * 2 ** i);
    });
  });
});

describe('hostile servers: the error class reaches the event, in bounded time and memory', () => {
  async function timed(fn: () => Promise<ProbeEvent>): Promise<{ ev: ProbeEvent; ms: number }> {
    const t0 = Date.now();
    const ev = await fn();
    return { ev: roundTrip(ev), ms: Date.now() - t0 };
  }

  it('slowloris in the header block: timeout', async () => {
    // robots.txt answers; every other request gets a status line, then one header byte every 50 ms.
    const slow = await startRawServer((s: net.Socket) => {
      s.once('data', (d) => {
        if (d.toString().startsWith('GET /robots.txt ')) {
          s.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
          return;
        }
        s.write('HTTP/1.1 200 OK\r\n');
        const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write('X')), 50);
      });
    });
    try {
      const { ev, ms } = await timed(() => engine({ timeoutMs: 800 }).probe({ protocol: 'mcp', url: `${slow.url}/mcp`, runId: 'r' }));
      expect(ev).toMatchObject({ robots: 'allowed', errorClass: 'timeout' });
      expect(ev.exchanges.map((e) => [e.role, e.status, e.errorClass])).toEqual([['mcp-get', null, 'timeout']]);
      expect(ms).toBeLessThan(3000);
    } finally {
      await slow.close();
    }
  });

  it('slowloris in the body: timeout, with the bytes so far', async () => {
    const { ev, ms } = await timed(() =>
      engine({ timeoutMs: 800 }).probe({ protocol: 'a2a', url: `${hostileServer().url}/slow-body`, runId: 'r' }),
    );
    expect(ev.errorClass).toBe('timeout');
    expect(ev.exchanges[0]).toMatchObject({ role: 'card', status: 200, errorClass: 'timeout', bodyTruncated: true });
    expect(ev.exchanges[0]!.body.length).toBeLessThan(100);
    expect(ms).toBeLessThan(3000);
  });

  it('a redirect to 169.254.169.254: blocked_address, never contacted', async () => {
    const target = 'http://169.254.169.254/latest/meta-data/';
    const { ev, ms } = await timed(() =>
      engine().probe({ protocol: 'a2a', url: `${hostileServer().url}/redirect?to=${encodeURIComponent(target)}`, runId: 'r' }),
    );
    expect(ev.errorClass).toBe('blocked_address');
    expect(ev.exchanges[0]).toMatchObject({ role: 'redirect', status: 302 });
    expect(ev.exchanges[1]).toMatchObject({ role: 'card', url: target, status: null, errorClass: 'blocked_address', remoteAddress: null });
    expect(ms).toBeLessThan(3000);
  });

  it('a gzip bomb: body_too_large, the body read up to the cap and not kept', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const { ev: whole } = await timed(() =>
      engine({ timeoutMs: 5000 }).observeWhole({ protocol: 'a2a', url: `${hostileServer().url}/gzip-bomb`, runId: 'r' }),
    );
    expect(whole.exchanges[0]!.body.length).toBe(CARD_MAX_BYTES);
    const { ev, ms } = await timed(() =>
      engine({ timeoutMs: 5000 }).probe({ protocol: 'a2a', url: `${hostileServer().url}/gzip-bomb`, runId: 'r' }),
    );
    expect(ev.errorClass).toBe('body_too_large');
    expect(ev.exchanges[0]).toMatchObject({
      role: 'card',
      status: 200,
      errorClass: 'body_too_large',
      bodyTruncated: true,
      bodyKept: 'none',
    });
    expect(ev.exchanges[0]!.body.length).toBe(0);
    expect(ev.exchanges[0]!.bodyBytes).toBeLessThan(CARD_MAX_BYTES + 256 * 1024);
    const total = ev.exchanges.reduce((n, e) => n + e.body.length, 0);
    expect(total).toBeLessThanOrEqual(EVENT_MAX_BYTES);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    expect(ms).toBeLessThan(5000);
  });

  it('an endless SSE stream on the MCP GET: 2 KB, truncated, no error', async () => {
    const { ev, ms } = await timed(() => engine().probe({ protocol: 'mcp', url: `${hostileServer().url}/sse-endless`, runId: 'r' }));
    expect(ev.errorClass).toBeNull();
    expect(ev.exchanges[0]).toMatchObject({ role: 'mcp-get', status: 200, bodyTruncated: true });
    expect(ev.exchanges[0]!.body.length).toBeLessThanOrEqual(2048);
    expect(ms).toBeLessThan(3000);
  });

  it('without allowLoopback the guard refuses the target: blocked_address, robots not checked', async () => {
    const p = await peer(startMcpStreamableStateless());
    const ev = await new ProbeEngine({ contact: 'probes@veronikai.test', maxRetries: 0 }).probe({
      protocol: 'mcp',
      url: p.url,
      runId: 'r',
    });
    expect(ev).toMatchObject({ robots: 'not_checked', errorClass: 'blocked_address' });
    expect(p.paths).toEqual([]);
  });
});

describe('event size', () => {
  it('bodies past the event budget are left out, the card first', () => {
    const ex = (n: number) => ({
      role: 'card',
      url: 'http://x/',
      status: 200,
      headers: {},
      body: Buffer.alloc(n),
      bodyTruncated: false,
      bodyBytes: n,
      bodySha256: 'h',
      remoteAddress: null,
      startedAt: 0,
      durationMs: 0,
      errorClass: null,
      errorMessage: null,
      retries: 0,
    });
    const out = applyBodyBudget([ex(500), ex(500), ex(300)], 800, 2);
    expect(out.map((e) => e.body.length)).toEqual([500, 0, 300]);
    expect(out[1]).toMatchObject({ bodyTruncated: true, bodyBytes: 500 });
  });
});

/** ~14 KB of response headers: under undici's 16 KB header limit, near the 16 KB we record. */
const PAD_HEADERS: Record<string, string> = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`x-pad-${i}`, 'h'.repeat(1000)]));

describe("event size: the encoded event stays under Kafka's 1 MB limit", () => {
  it('a hostile A2A chain (18 hops with 14 KB of headers, 400 KB non-card bodies): read whole it would not fit; kept, it has no body and only the judged headers', async () => {
    const body = Buffer.alloc(400 * 1024, 'x');
    // Every URL redirects five times (hop=1..5), then answers 200 with a body that is not a card,
    // so the chain reads all three candidate URLs: 3 × 6 exchanges.
    const srv = await startHttpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') {
        res.writeHead(404);
        res.end();
        return;
      }
      const hop = Number(u.searchParams.get('hop') ?? '0');
      if (hop < 5) {
        res.writeHead(302, { ...PAD_HEADERS, location: `${u.pathname}?hop=${hop + 1}` });
        res.end();
        return;
      }
      res.writeHead(200, { ...PAD_HEADERS, 'content-type': 'text/plain' });
      res.end(body);
    });
    try {
      const url = `${srv.url}/card`;
      const unbounded = await engine().observeWhole({ protocol: 'a2a', url, runId: 'r' });
      expect(unbounded.exchanges).toHaveLength(18);
      expect(codec.encode('Probe', unbounded).length).toBeGreaterThan(1024 * 1024);
      // What is kept: no body (none is a document), only the headers the judgement reads.
      const kept = await engine().probeWithDocuments({ protocol: 'a2a', url, runId: 'r' });
      expect(kept.documents).toEqual([]);
      expect(kept.probe.exchanges.every((e) => e.body.length === 0 && e.bodyKept === 'none')).toBe(true);
      expect(kept.probe.exchanges.every((e) => Object.keys(e.headers).every((h) => JUDGED_HEADERS.includes(h)))).toBe(true);
      expect(codec.encode('Probe', kept.probe).length).toBeLessThan(64 * 1024);
      // The fitting still holds an event read whole (as events were before) under the limit.
      const ev = fitProbeEvent(unbounded, EVENT_MAX_BYTES, null, (e) => codec.encode('Probe', e).length);
      const size = codec.encode('Probe', ev).length;
      expect(size).toBeLessThanOrEqual(EVENT_MAX_BYTES);
      roundTrip(ev);
      expect(ev.exchanges.map((e) => e.role)).toEqual(unbounded.exchanges.map((e) => e.role));
      // 1. redirect hops keep only their Location, marked
      const redirects = ev.exchanges.filter((e) => e.role === 'redirect');
      expect(redirects).toHaveLength(15);
      for (const r of redirects) {
        expect(Object.keys(r.headers).sort()).toEqual(['location', OMITTED_HEADERS_MARKER].sort());
        expect(r.headers[OMITTED_HEADERS_MARKER]).toMatch(/^\d+ header\(s\), \d+ bytes, left out/);
      }
      // the final hops keep their headers
      expect(ev.exchanges.filter((e) => e.role !== 'redirect').every((e) => e.headers['x-pad-0'] !== undefined)).toBe(true);
      // 2. then bodies, in order, marked truncated with the size and hash of what was read
      const finals = ev.exchanges.filter((e) => e.role !== 'redirect');
      expect(finals.map((e) => e.body.length)).toEqual([body.length, body.length, 0]);
      expect(finals[2]).toMatchObject({ bodyTruncated: true, bodyBytes: body.length, bodySha256: unbounded.exchanges[17]!.bodySha256 });
    } finally {
      await srv.close();
    }
  });

  it('fitProbeEvent: the card body is the last to go, and a last resort keeps the guarantee', () => {
    const ex = (role: string, n: number, headers: Record<string, string> = {}) => ({
      role,
      url: 'http://x/',
      status: 200,
      headers,
      body: Buffer.alloc(n),
      bodyTruncated: false,
      bodyBytes: n,
      bodySha256: 'h',
      remoteAddress: null,
      startedAt: 0,
      durationMs: 0,
      errorClass: null,
      errorMessage: null,
      retries: 0,
    });
    const ev: ProbeEvent = {
      id: 'e',
      observedAt: 0,
      runId: 'r',
      requestId: null,
      agentKey: 'k',
      protocol: 'a2a',
      targetUrl: 'http://x/',
      transport: null,
      inSample: false,
      robots: 'allowed',
      canary: 'unknown',
      errorClass: null,
      retries: 0,
      exchanges: [ex('redirect', 0, { location: '/a', 'x-big': 'y'.repeat(5000) }), ex('card', 6000), ex('well-known', 3000)],
    };
    const size = (e: ProbeEvent) => codec.encode('Probe', e).length;
    const full = size(ev);
    // Shedding the redirect's headers is enough.
    const a = fitProbeEvent(ev, full - 1000, null, size);
    expect(a.exchanges[0]!.headers).toMatchObject({ location: '/a', [OMITTED_HEADERS_MARKER]: expect.stringContaining('1 header(s)') });
    expect(a.exchanges.map((e) => e.body.length)).toEqual([0, 6000, 3000]);
    // Then bodies: the card (keep = 1) stays, the other goes.
    const b = fitProbeEvent(ev, full - 7000, 1, size);
    expect(b.exchanges.map((e) => e.body.length)).toEqual([0, 6000, 0]);
    expect(size(b)).toBeLessThanOrEqual(full - 7000);
    // Nothing fits but the event itself: the exchanges go, and the event still says something failed.
    const c = fitProbeEvent(ev, 200, 1, size);
    expect(c).toMatchObject({ exchanges: [], errorClass: 'other' });
    expect(size(c)).toBeLessThanOrEqual(200);
    // An event within the limit is returned as it is.
    expect(fitProbeEvent(ev, full, null, size)).toBe(ev);
  });
});

describe("hop refusals are labelled as hops, not as the target's robots.txt", () => {
  it('a redirect to an origin whose robots.txt disallows us, or cannot be read: hop_refused, robots stays allowed', async () => {
    const disallowing = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': req.url === '/robots.txt' ? 'text/plain' : 'application/json' });
      res.end(req.url === '/robots.txt' ? 'User-agent: veronikai\nDisallow: /\n' : '{"name":"never asked"}');
    });
    const down = await startHttpServer((req, res) => {
      res.writeHead(req.url === '/robots.txt' ? 503 : 200);
      res.end();
    });
    const origin = await startHttpServer((req, res) => {
      if (req.url === '/to-disallowed') res.writeHead(302, { location: `${disallowing.url}/card.json` });
      else if (req.url === '/to-down') res.writeHead(302, { location: `${down.url}/card.json` });
      else res.writeHead(404);
      res.end();
    });
    try {
      const a = roundTrip(await engine().probe({ protocol: 'a2a', url: `${origin.url}/to-disallowed`, runId: 'r' }));
      expect(a).toMatchObject({ robots: 'allowed', errorClass: 'hop_refused' });
      expect(a.exchanges.map((e) => [e.role, e.status, e.errorClass])).toEqual([
        ['redirect', 302, null],
        ['card', null, 'robots_disallowed'],
        ['well-known', 404, null],
        ['legacy', 404, null],
      ]);
      expect(disallowing.paths).toEqual(['/robots.txt']);

      const b = roundTrip(await engine().probe({ protocol: 'a2a', url: `${origin.url}/to-down`, runId: 'r' }));
      expect(b).toMatchObject({ robots: 'allowed', errorClass: 'hop_refused' });
      expect(b.exchanges[1]).toMatchObject({ role: 'card', status: null, errorClass: 'robots_unreachable' });
      expect(b.exchanges[1]!.errorMessage).toMatch(/robots\.txt of .* unreachable \(503\)/);
      expect(down.paths).toEqual(['/robots.txt']);

      // The target's own robots.txt still decides the event-level class.
      const c = roundTrip(await engine().probe({ protocol: 'a2a', url: `${disallowing.url}/card.json`, runId: 'r' }));
      expect(c).toMatchObject({ robots: 'disallowed', errorClass: 'robots_disallowed', exchanges: [] });
    } finally {
      await Promise.all([disallowing.close(), down.close(), origin.close()]);
    }
  });
});
