/**
 * The limits measured where they matter: a real, slow loopback server counts the requests it
 * has in flight per Host and in total while a burst of probes runs through the engine.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFn } from '../../../src/http/types.js';
import { Limiter } from '../../../src/http/politeness/limiter.js';
import { POLITENESS } from '../../../src/http/politeness/constants.js';
import { ProbeEngine } from '../../../src/producers/probe/probe-agent.js';
import { startHttpServer, type TestServer } from '../../helpers/hostile-servers.js';

/** Every name resolves to loopback, so several hosts of one site live on one test server. */
const lookup: LookupFn = async () => [{ address: '127.0.0.1', family: 4 }];

interface Counting {
  srv: TestServer;
  maxPerHost: Map<string, number>;
  maxTotal: () => number;
  log: Array<{ host: string; path: string; at: number }>;
}

async function slowServer(delayMs: number): Promise<Counting> {
  const inflight = new Map<string, number>();
  const maxPerHost = new Map<string, number>();
  let total = 0;
  let maxTotal = 0;
  const log: Counting['log'] = [];
  const srv = await startHttpServer((req: http.IncomingMessage, res: http.ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    log.push({ host, path: req.url ?? '', at: Date.now() });
    inflight.set(host, (inflight.get(host) ?? 0) + 1);
    maxPerHost.set(host, Math.max(maxPerHost.get(host) ?? 0, inflight.get(host)!));
    total++;
    maxTotal = Math.max(maxTotal, total);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      inflight.set(host, inflight.get(host)! - 1);
      total--;
    };
    res.on('close', finish);
    setTimeout(() => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        res.end();
      } else {
        res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}');
      }
      finish();
    }, delayMs);
  });
  return { srv, maxPerHost, maxTotal: () => maxTotal, log };
}

function engine(extra: Partial<ConstructorParameters<typeof ProbeEngine>[0]> = {}): ProbeEngine {
  return new ProbeEngine({ contact: 'probes@veronikai.test', allowLoopback: true, lookup, timeoutMs: 3000, maxRetries: 0, ...extra });
}

describe('concurrency under a burst (real slow server)', () => {
  let c: Counting;
  beforeAll(async () => {
    c = await slowServer(150);
  });
  afterAll(async () => {
    await c.srv.close();
  });

  it('never more than 2 requests in flight per host', async () => {
    const e = engine();
    const url = `http://one.host-burst.test:${c.srv.port}/mcp`;
    const events = await Promise.all(Array.from({ length: 10 }, () => e.probe({ protocol: 'mcp', url, runId: 'r1' })));
    expect(events.every((ev) => ev.exchanges[0]?.status === 405)).toBe(true);
    expect(c.maxPerHost.get('one.host-burst.test')).toBe(POLITENESS.perHostConcurrency);
  });

  it('never more than 6 in flight per site, 2 per host, across 5 hosts of the site', async () => {
    const e = engine();
    const hosts = ['a', 'b', 'c', 'd', 'e'].map((h) => `${h}.site-burst.test`);
    const before = c.maxTotal();
    expect(before).toBeLessThanOrEqual(2);
    const jobs = hosts.flatMap((h) =>
      Array.from({ length: 5 }, () => e.probe({ protocol: 'mcp', url: `http://${h}:${c.srv.port}/mcp`, runId: 'r1' })),
    );
    const events = await Promise.all(jobs);
    expect(events).toHaveLength(25);
    expect(events.every((ev) => ev.robots === 'allowed' && ev.errorClass === null)).toBe(true);
    // Only this site's requests were on the server during the burst.
    expect(c.maxTotal()).toBe(POLITENESS.perSiteConcurrency);
    for (const h of hosts) expect(c.maxPerHost.get(h)).toBeLessThanOrEqual(POLITENESS.perHostConcurrency);
  });

  it('two sites are limited separately', async () => {
    const l = new Limiter();
    const held = await Promise.all(Array.from({ length: 6 }, (_, i) => l.acquire(`http://h${i % 3}.one.test/`)));
    expect(held.every((a) => a.ok)).toBe(true);
    expect(l.siteInFlight('one.test')).toBe(6);
    let seventhGranted = false;
    const seventh = l.acquire('http://h0.one.test/x').then((a) => {
      seventhGranted = true;
      return a;
    });
    const other = await l.acquire('http://h0.two.test/');
    expect(other.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(seventhGranted).toBe(false);
    for (const a of held) if (a.ok) a.release({ status: 200 });
    expect((await seventh).ok).toBe(true);
  });
});

describe('budget: checks per site per run', () => {
  it('the check after the budget is recorded as budget_exhausted, and nothing is sent for it', async () => {
    const c = await slowServer(0);
    try {
      const e = engine({ limiter: new Limiter({ perSiteRunBudget: 3 }) });
      const url = `http://x.budget.test:${c.srv.port}/mcp`;
      const events = [];
      for (let i = 0; i < 4; i++) events.push(await e.probe({ protocol: 'mcp', url, runId: 'run-a' }));
      expect(events.slice(0, 3).map((ev) => ev.errorClass)).toEqual([null, null, null]);
      expect(events[3]).toMatchObject({ errorClass: 'budget_exhausted', robots: 'not_checked', exchanges: [] });
      expect(c.log.filter((l) => l.path === '/mcp')).toHaveLength(3);
      // Another site, and the same site in another run, have their own budgets.
      expect(
        (await e.probe({ protocol: 'mcp', url: `http://y.other-budget.test:${c.srv.port}/mcp`, runId: 'run-a' })).errorClass,
      ).toBeNull();
      expect((await e.probe({ protocol: 'mcp', url, runId: 'run-b' })).errorClass).toBeNull();
    } finally {
      await c.srv.close();
    }
  });

  it('the default budget is 4,000 per site per run', () => {
    const l = new Limiter();
    let n = 0;
    while (l.takeCheck('r', 'site.test')) n++;
    expect(n).toBe(4000);
    expect(l.takeCheck('r2', 'site.test')).toBe(true);
  });
});

describe('adaptive pacing after 429 and 503', () => {
  it('429 with Retry-After: 1 delays the next request to that host by at least 1 s', async () => {
    let first = true;
    let limitedAt = 0;
    const arrivals: number[] = [];
    const srv = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        res.end();
        return;
      }
      arrivals.push(Date.now());
      if (first) {
        first = false;
        limitedAt = Date.now(); // before the answer leaves, so the measured gap can only be shorter than the real one
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
        res.end('slow down');
        return;
      }
      res.writeHead(405, { allow: 'POST' });
      res.end();
    });
    try {
      const e = engine();
      const url = `${srv.url.replace('127.0.0.1', 'paced.pacing.test')}/mcp`;
      const a = await e.probe({ protocol: 'mcp', url, runId: 'r' });
      expect(a.exchanges[0]!.status).toBe(429);
      const b = await e.probe({ protocol: 'mcp', url, runId: 'r' });
      expect(b.exchanges[0]!.status).toBe(405);
      expect(arrivals).toHaveLength(2);
      expect(arrivals[1]! - limitedAt).toBeGreaterThanOrEqual(1000);
      expect(arrivals[1]! - arrivals[0]!).toBeLessThan(3000);
    } finally {
      await srv.close();
    }
  });

  it('Retry-After as an HTTP date; 503 without Retry-After starts the pacing interval; answers relax it', async () => {
    let now = 1_700_000_000_000;
    const l = new Limiter({ now: () => now });
    const a = await l.acquire('http://h.pace.test/');
    if (!a.ok) throw new Error('expected a slot');
    a.release({ status: 503, headers: { 'retry-after': new Date(now + 5000).toUTCString() } });
    expect(l.pacing('h.pace.test').notBefore).toBeGreaterThanOrEqual(now + 4000);
    expect(l.pacing('h.pace.test').intervalMs).toBe(POLITENESS.pacingInitialIntervalMs);

    const l2 = new Limiter({ now: () => now });
    const b = await l2.acquire('http://h.pace.test/');
    if (!b.ok) throw new Error('expected a slot');
    b.release({ status: 503 });
    expect(l2.pacing('h.pace.test')).toMatchObject({ notBefore: now + 1000, intervalMs: 1000 });
    now += 1000;
    const c = await l2.acquire('http://h.pace.test/');
    if (!c.ok) throw new Error('expected a slot');
    c.release({ status: 429 });
    expect(l2.pacing('h.pace.test').intervalMs).toBe(2000);
    now += 2000;
    const d = await l2.acquire('http://h.pace.test/');
    if (!d.ok) throw new Error('expected a slot');
    d.release({ status: 200 });
    expect(l2.pacing('h.pace.test').intervalMs).toBe(1000);
  });

  it('forgets a paced host once its pacing can no longer delay anything, so host state does not grow without bound', async () => {
    let now = 1_700_000_000_000;
    const l = new Limiter({ now: () => now, setTimer: () => null, clearTimer: () => undefined });
    const slot = async (url: string, status: number) => {
      const a = await l.acquire(url);
      if (!a.ok) throw new Error('expected a slot');
      a.release({ status });
    };
    // A thousand hosts answer 429 once: each is paced (1 s interval, notBefore 1 s ahead).
    for (let i = 0; i < 1000; i++) await slot(`http://h${i}.many.test/`, 429);
    expect(l.pacing('h0.many.test')).toMatchObject({ intervalMs: POLITENESS.pacingInitialIntervalMs });
    // Half the longest interval later the state still matters.
    now += POLITENESS.pacingMaxIntervalMs / 2;
    await slot('http://other.many.test/', 200);
    expect(l.pacing('h0.many.test').intervalMs).toBe(POLITENESS.pacingInitialIntervalMs);
    // Once the last start is pacingMaxIntervalMs ago and Retry-After has passed, it is dropped.
    now += POLITENESS.pacingMaxIntervalMs / 2;
    await slot('http://other.many.test/', 200);
    for (const i of [0, 500, 999]) expect(l.pacing(`h${i}.many.test`)).toEqual({ inflight: 0, notBefore: 0, intervalMs: 0 });
    // A host still inside its Retry-After is kept.
    const a = await l.acquire('http://held.many.test/');
    if (!a.ok) throw new Error('expected a slot');
    a.release({ status: 503, headers: { 'retry-after': String(3 * 60) } });
    now += POLITENESS.pacingMaxIntervalMs;
    await slot('http://other.many.test/', 200);
    expect(l.pacing('held.many.test').notBefore).toBeGreaterThan(now);
  });

  it('a Retry-After longer than a probe waits: the request is not sent, recorded rate_limited', async () => {
    let hits = 0;
    const srv = await startHttpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        res.end();
        return;
      }
      hits++;
      res.writeHead(429, { 'retry-after': '120' });
      res.end();
    });
    try {
      const e = engine({ limiter: new Limiter({ maxPacingWaitMs: 1000 }) });
      const url = `${srv.url}/mcp`;
      const a = await e.probe({ protocol: 'mcp', url, runId: 'r' });
      expect(a.exchanges[0]!.status).toBe(429);
      const t0 = Date.now();
      const b = await e.probe({ protocol: 'mcp', url, runId: 'r' });
      expect(Date.now() - t0).toBeLessThan(500);
      expect(b.errorClass).toBe('rate_limited');
      expect(b.exchanges).toHaveLength(1);
      expect(b.exchanges[0]).toMatchObject({ role: 'mcp-get', status: null, errorClass: 'rate_limited' });
      expect(hits).toBe(1);
    } finally {
      await srv.close();
    }
  });
});

describe('Limiter at the size of a run', () => {
  it('keeps 2 per host and 6 per site exact with thousands of waiters, serving each host first come first served', async () => {
    const l = new Limiter();
    const hostInFlight = new Map<string, number>();
    const siteInFlight = new Map<string, number>();
    const order = new Map<string, number[]>();
    let maxHost = 0;
    let maxSite = 0;
    let granted = 0;
    const held: Array<() => void> = [];
    const waits: Promise<void>[] = [];
    const t0 = performance.now();
    // 6,000 waiters over 1,000 hosts of 3 sites (and every host of a site queued at once).
    for (let i = 0; i < 6000; i++) {
      const host = `h${i % 1000}.s${i % 3}.test`;
      const site = `s${i % 3}.test`;
      waits.push(
        l.acquire(`http://${host}/x`).then((a) => {
          if (!a.ok) throw new Error('refused');
          granted++;
          (order.get(host) ?? order.set(host, []).get(host)!).push(i);
          hostInFlight.set(host, (hostInFlight.get(host) ?? 0) + 1);
          siteInFlight.set(site, (siteInFlight.get(site) ?? 0) + 1);
          maxHost = Math.max(maxHost, hostInFlight.get(host)!);
          maxSite = Math.max(maxSite, siteInFlight.get(site)!);
          held.push(() => {
            hostInFlight.set(host, hostInFlight.get(host)! - 1);
            siteInFlight.set(site, siteInFlight.get(site)! - 1);
            a.release({ status: 200 });
          });
        }),
      );
    }
    // Release one at a time: each release must hand its slot on (no waiter left behind).
    while (granted < 6000) {
      await new Promise((r) => setImmediate(r));
      const next = held.shift();
      if (!next) throw new Error(`stalled with ${granted} of 6000 granted`);
      next();
    }
    held.forEach((r) => r());
    await Promise.all(waits);
    const ms = performance.now() - t0;
    expect(maxHost).toBeLessThanOrEqual(2);
    expect(maxSite).toBe(6);
    for (const seq of order.values()) expect(seq).toEqual([...seq].sort((a, b) => a - b));
    expect(l.siteInFlight('s0.test') + l.siteInFlight('s1.test') + l.siteInFlight('s2.test')).toBe(0);
    // A grant costs O(1): before, every release scanned every waiter (6,000 × 6,000 steps).
    expect(ms).toBeLessThan(1500);
  });

  it('a site slot freed by one host goes to another host of the site that was waiting for it', async () => {
    const l = new Limiter({ perSiteConcurrency: 2, perHostConcurrency: 2 });
    const a1 = await l.acquire('http://a.one.test/');
    const a2 = await l.acquire('http://a.one.test/');
    let bGot = false;
    const b = l.acquire('http://b.one.test/').then((x) => {
      bGot = true;
      return x;
    });
    await Promise.resolve();
    expect(bGot).toBe(false);
    if (!a1.ok || !a2.ok) throw new Error('expected slots');
    a1.release({ status: 200 });
    const got = await b;
    expect(got.ok).toBe(true);
    expect(l.siteInFlight('one.test')).toBe(2);
  });
});
