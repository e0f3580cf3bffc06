import type http from 'node:http';
import fc from 'fast-check';
import robotsParserModule from 'robots-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBounded } from '../../../src/http/client.js';
import { POLITENESS } from '../../../src/http/politeness/constants.js';
import { declaredGroups, parseRobotsTxt, RobotsCache, selectGroup, type RobotsFetcher } from '../../../src/http/politeness/robots.js';
import type { Exchange } from '../../../src/http/types.js';
import { startHttpServer, type TestServer } from '../../helpers/hostile-servers.js';

const fetchOptions = { contact: 'probes@veronikai.test', allowLoopback: true, timeoutMs: 1000, maxRetries: 0 };

describe('group precedence: veronikai, then veronica-agents, then *', () => {
  const all = [
    'User-agent: *',
    'Disallow: /star',
    '',
    'User-agent: veronica-agents',
    'Disallow: /legacy',
    '',
    'User-agent: VeronikAI/0.1',
    'Disallow: /ours',
  ].join('\n');

  it('the veronikai group wins over the legacy token and *', () => {
    const r = parseRobotsTxt('http://a.test/robots.txt', all);
    expect(r.group).toBe('veronikai');
    expect(r.isAllowed('http://a.test/ours/x')).toBe(false);
    // Only our group applies: the rules of the other groups do not.
    expect(r.isAllowed('http://a.test/legacy/x')).toBe(true);
    expect(r.isAllowed('http://a.test/star/x')).toBe(true);
  });

  it('without a veronikai group, the legacy veronica-agents group applies', () => {
    const text = all.split('\n').slice(0, 5).join('\n');
    const r = parseRobotsTxt('http://a.test/robots.txt', text);
    expect(r.group).toBe('veronica-agents');
    expect(r.isAllowed('http://a.test/legacy/x')).toBe(false);
    expect(r.isAllowed('http://a.test/star/x')).toBe(true);
  });

  it('with neither, * applies; with no * group, everything is allowed', () => {
    const r = parseRobotsTxt('http://a.test/robots.txt', 'User-agent: *\nDisallow: /star\n');
    expect(r.group).toBe('*');
    expect(r.isAllowed('http://a.test/star')).toBe(false);
    expect(r.isAllowed('http://a.test/other')).toBe(true);
    const other = parseRobotsTxt('http://a.test/robots.txt', 'User-agent: somebot\nDisallow: /\n');
    expect(other.group).toBe('*');
    expect(other.isAllowed('http://a.test/x')).toBe(true);
  });

  it('a group with an empty Disallow still exists (and allows all), so * does not apply', () => {
    const text = 'User-agent: *\nDisallow: /\n\nUser-agent: veronikai\nDisallow:\n';
    expect(selectGroup(text)).toBe('veronikai');
    expect(parseRobotsTxt('http://a.test/robots.txt', text).isAllowed('http://a.test/anything')).toBe(true);
  });

  it('consecutive User-agent lines share one group, as robots-parser reads them', () => {
    const text = 'User-agent: veronica-agents\nUser-agent: otherbot\nDisallow: /shared\n# comment\nUser-agent: *\nAllow: /\n';
    expect([...declaredGroups(text)].sort()).toEqual(['*', 'otherbot', 'veronica-agents']);
    const r = parseRobotsTxt('http://a.test/robots.txt', text);
    expect(r.group).toBe('veronica-agents');
    expect(r.isAllowed('http://a.test/shared/1')).toBe(false);
  });

  it('a User-agent with no rule line creates no group (robots-parser falls through to *)', () => {
    expect(declaredGroups('User-agent: veronikai\n')).toEqual(new Set());
    expect(selectGroup('User-agent: veronikai\n')).toBe('*');
  });

  it('case and /version of the product token do not matter; longest match and Allow on a tie', () => {
    const text = 'user-agent: VERONIKAI/9\ndisallow: /a\nallow: /a/b\nDISALLOW: /c\nALLOW: /c\n';
    const r = parseRobotsTxt('http://a.test/robots.txt', text);
    expect(r.group).toBe('veronikai');
    expect(r.isAllowed('http://a.test/a/x')).toBe(false);
    expect(r.isAllowed('http://a.test/a/b/x')).toBe(true);
    expect(r.isAllowed('http://a.test/c')).toBe(true);
  });
});

describe('RobotsCache against a loopback server (RFC 9309 fetch results)', () => {
  let srv: TestServer;
  let robotsStatus = 200;
  let robotsBody = '';
  let robotsHits = 0;
  beforeAll(async () => {
    srv = await startHttpServer((req: http.IncomingMessage, res: http.ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/robots.txt') {
        robotsHits++;
        res.writeHead(robotsStatus, { 'content-type': 'text/plain' });
        res.end(robotsBody);
        return;
      }
      if (path === '/loop/robots.txt') {
        res.writeHead(302, { location: '/loop/robots.txt' });
        res.end();
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  afterAll(async () => {
    await srv.close();
  });

  function cache(now?: () => number): RobotsCache {
    return new RobotsCache({ fetchOptions, ...(now ? { now } : {}) });
  }

  it('2xx: parsed, decided by our group', async () => {
    robotsStatus = 200;
    robotsBody = 'User-agent: *\nDisallow: /\n\nUser-agent: veronikai\nDisallow: /private\n';
    const c = cache();
    const d = await c.check(`${srv.url}/private/card.json`);
    expect(d).toMatchObject({ verdict: 'disallowed', permitted: false, fetch: 'parsed', group: 'veronikai', status: 200, line: 5 });
    expect((await c.check(`${srv.url}/public`)).verdict).toBe('allowed');
  });

  it.each([400, 401, 403, 404, 410])('%i: unavailable, everything allowed', async (status) => {
    robotsStatus = status;
    robotsBody = 'User-agent: *\nDisallow: /\n';
    const d = await cache().check(`${srv.url}/anything`);
    expect(d).toMatchObject({ verdict: 'allowed', permitted: true, fetch: 'unavailable', status });
    expect(d.evidence).toEqual([]);
  });

  it.each([500, 502, 503, 429])('%i: unreachable, everything disallowed, the exchange kept as evidence', async (status) => {
    robotsStatus = status;
    robotsBody = 'oops';
    const d = await cache().check(`${srv.url}/anything`);
    expect(d).toMatchObject({ verdict: 'unreachable', permitted: false, fetch: 'unreachable', status });
    expect(d.evidence).toHaveLength(1);
    expect(d.evidence[0]!.url).toBe(`${srv.url}/robots.txt`);
  });

  it('a network failure: unreachable, everything disallowed, and not cached', async () => {
    const dead = await startHttpServer(() => undefined);
    const url = dead.url;
    await dead.close();
    const c = cache();
    const d = await c.check(`${url}/x`);
    expect(d).toMatchObject({ verdict: 'unreachable', permitted: false, status: null, errorClass: 'refused' });
    await c.check(`${url}/y`);
    expect(c.fetches).toBe(2);
    expect(c.size).toBe(0);
  });

  it('an origin the SSRF guard refuses is not checked: nothing is sent, the request itself will be refused', async () => {
    const c = new RobotsCache({ fetchOptions: { ...fetchOptions, allowLoopback: false } });
    const d = await c.check(`${srv.url}/x`);
    expect(d).toMatchObject({ verdict: 'not_checked', permitted: true, errorClass: 'blocked_address' });
  });

  it('a fetched robots.txt is cached for at most 24 h (fake clock)', async () => {
    robotsStatus = 200;
    robotsBody = 'User-agent: veronikai\nDisallow: /no\n';
    let now = 1_000_000;
    const c = cache(() => now);
    const before = robotsHits;
    expect((await c.check(`${srv.url}/no`)).fromCache).toBe(false);
    now += 23 * 3600_000;
    const cached = await c.check(`${srv.url}/no`);
    expect(cached).toMatchObject({ fromCache: true, verdict: 'disallowed' });
    expect(robotsHits - before).toBe(1);
    // The site changes its robots.txt; we see it once the 24 h are over, not before.
    robotsBody = 'User-agent: veronikai\nAllow: /\n';
    now += 3600_000 - 1;
    expect((await c.check(`${srv.url}/no`)).verdict).toBe('disallowed');
    now += 1;
    const fresh = await c.check(`${srv.url}/no`);
    expect(fresh).toMatchObject({ fromCache: false, verdict: 'allowed' });
    expect(robotsHits - before).toBe(2);
  });

  it('a longer TTL than 24 h is not accepted', async () => {
    robotsStatus = 200;
    robotsBody = '';
    let now = 0;
    const c = new RobotsCache({ fetchOptions, now: () => now, ttlMs: 7 * 24 * 3600_000 });
    const before = robotsHits;
    await c.check(`${srv.url}/a`);
    now = POLITENESS.robotsCacheTtlMs;
    await c.check(`${srv.url}/a`);
    expect(robotsHits - before).toBe(2);
  });

  it('an unreachable robots.txt that answered is cached briefly (errorTtlMs)', async () => {
    robotsStatus = 503;
    let now = 0;
    const c = new RobotsCache({ fetchOptions, now: () => now, errorTtlMs: 60_000 });
    const before = robotsHits;
    await c.check(`${srv.url}/a`);
    now = 59_999;
    expect((await c.check(`${srv.url}/a`)).fromCache).toBe(true);
    now = 60_000;
    robotsStatus = 404;
    expect((await c.check(`${srv.url}/a`)).verdict).toBe('allowed');
    expect(robotsHits - before).toBe(2);
  });

  it('concurrent checks of one origin share one fetch', async () => {
    robotsStatus = 200;
    robotsBody = 'User-agent: *\nAllow: /\n';
    const c = cache();
    const before = robotsHits;
    await Promise.all(Array.from({ length: 10 }, (_, i) => c.check(`${srv.url}/p${i}`)));
    expect(robotsHits - before).toBe(1);
  });

  it('evicts the least recently used origin past maxEntries', async () => {
    robotsStatus = 200;
    robotsBody = 'User-agent: *\nDisallow: /\n';
    const asked: string[] = [];
    const c = new RobotsCache({
      maxEntries: 2,
      fetcher: (robotsUrl) => {
        asked.push(robotsUrl);
        return fetchBounded(`${srv.url}/robots.txt`, fetchOptions);
      },
    });
    await c.check('http://a.test/x');
    await c.check('http://b.test/x');
    await c.check('http://a.test/y'); // a is now the most recently used
    await c.check('http://c.test/x'); // evicts b
    expect(c.size).toBe(2);
    await c.check('http://a.test/z');
    await c.check('http://b.test/z');
    expect(asked).toEqual(['http://a.test/robots.txt', 'http://b.test/robots.txt', 'http://c.test/robots.txt', 'http://b.test/robots.txt']);
  });
});

describe('RobotsCache at the size of a run', () => {
  it('keeps every origin of a 2,000-host run: none is fetched twice (it evicted past 1,000 before)', async () => {
    const text = 'User-agent: *\nDisallow: /admin/\n';
    const fetcher: RobotsFetcher = async (u) => {
      const ex = {
        url: u,
        status: 200,
        headers: {},
        body: Buffer.from(text),
        bodyTruncated: false,
        errorClass: null,
        errorMessage: null,
      } as unknown as Exchange;
      return { exchanges: [ex], final: ex };
    };
    const cache = new RobotsCache({ fetcher });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2000; i++) expect((await cache.check(`http://h${i}.s${i % 4}.test/mcp`)).verdict).toBe('allowed');
    }
    expect(cache.fetches).toBe(2000);
    expect(cache.size).toBe(2000);
  });
});

// robots-parser 3.0.1 read and matched robots.txt before robots-rules.ts; it stays the oracle
// for what every answer must be (its matcher is the slow part, not its answers).
const robotsParser = robotsParserModule as unknown as (
  url: string,
  text: string,
) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
};

describe('robots.txt rules: the same answers as robots-parser', () => {
  const piece = fc.constantFrom('/', 'a', 'b', 'ab', '*', '**', '$', '%2a', '%2A', '%7e', 'é', '?', '=', '.', '-');
  const pattern = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
  const agent = fc.constantFrom('*', 'veronikai', 'VeronikAI/1.0', ' veronica-agents ', 'otherbot', '');
  const line = fc.oneof(
    agent.map((a) => `User-agent: ${a}`),
    fc.tuple(fc.constantFrom('Disallow', 'disallow', 'Allow', 'ALLOW'), pattern).map(([n, p]) => `${n}: ${p}`),
    fc.constantFrom(
      'Crawl-delay: 5',
      'Sitemap: https://h.example/s.xml',
      'Host: h.example',
      'foo: bar',
      '',
      '# comment',
      'no colon',
      ': empty name',
    ),
    fc.tuple(fc.constantFrom('Disallow', 'Allow'), pattern).map(([n, p]) => `  ${n} :${p} # why`),
  );
  const file = fc.tuple(fc.array(line, { maxLength: 16 }), fc.constantFrom('\n', '\r\n', '\r')).map(([ls, eol]) => ls.join(eol));
  const path = fc
    .array(fc.constantFrom('/', 'a', 'b', 'ab', '$', '%2a', '%2A', '~', 'é', '?', '=', '.', '*'), { maxLength: 10 })
    .map((p) => `/${p.join('')}`);

  it('allowed and the deciding line, for random files and paths', () => {
    fc.assert(
      fc.property(file, fc.array(path, { minLength: 1, maxLength: 4 }), (text, paths) => {
        const robotsUrl = 'https://h.example/robots.txt';
        const ours = parseRobotsTxt(robotsUrl, text);
        const theirs = robotsParser(robotsUrl, text);
        expect(ours.group).toBe(selectGroup(text));
        for (const p of paths) {
          const url = `https://h.example${p}`;
          const n = theirs.getMatchingLineNumber(url, ours.group);
          expect({ p, allowed: ours.isAllowed(url), line: ours.line(url) }).toEqual({
            p,
            allowed: theirs.isAllowed(url, ours.group) === true,
            line: n > 0 ? n : null,
          });
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses a URL of another origin', () => {
    const r = parseRobotsTxt('https://h.example/robots.txt', 'User-agent: *\nAllow: /\n');
    expect(r.isAllowed('https://h.example:443/x')).toBe(true);
    expect(r.isAllowed('https://other.example/x')).toBe(false);
    expect(r.isAllowed('http://h.example/x')).toBe(false);
  });
});

describe('robots.txt checks take bounded time, whatever the file', () => {
  /** 500 KiB (RFC 9309 §2.5) of distinct short wildcard rules: about 35,000 of them. */
  const hostile = (() => {
    const lines = ['User-agent: *'];
    for (let i = 0, size = 0; size < POLITENESS.robotsMaxBytes - 32; i++) {
      const l = `Disallow:/*${i.toString(36)}*z`;
      lines.push(l);
      size += l.length + 1;
    }
    return lines.join('\n');
  })();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const timed = (f: () => void) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };

  it('a check costs a small part of reading the file once (robots-parser took ten times more than reading it)', () => {
    expect(hostile.split('\n').length).toBeGreaterThan(30_000);
    const long = `https://h.example/${'a'.repeat(2000)}`;
    const short = 'https://h.example/1z';
    // The baseline: reading (parsing) the same file, the work done once per origin.
    let r = parseRobotsTxt('https://h.example/robots.txt', hostile);
    const read = median([0, 1, 2].map(() => timed(() => (r = parseRobotsTxt('https://h.example/robots.txt', hostile)))));
    // Seven runs after a first one, so neither figure is the JIT's warm-up.
    r.isAllowed(long);
    const check = median(
      [0, 1, 2, 3, 4, 5, 6].map(() =>
        timed(() => {
          r.isAllowed(long);
          r.isAllowed(short);
        }),
      ),
    );
    expect(check).toBeLessThan(read / 5);
    // A short path is judged by every rule; a long one runs out of budget and is disallowed.
    expect(r.isAllowed(short)).toBe(false);
    expect(r.line(short)).toBe(3); // Disallow:/*1*z, the only rule that matches
    expect(r.isAllowed('https://h.example/none')).toBe(true);
    expect(r.isAllowed(long)).toBe(false);
    expect(r.line(long)).toBeNull();
  });

  it('the cache says why a URL was disallowed without a rule', async () => {
    const body = Buffer.from(hostile);
    const final: Exchange = {
      url: 'https://h.example/robots.txt',
      method: 'GET',
      requestHeaders: {},
      status: 200,
      headers: {},
      body,
      bodyTruncated: false,
      bodyBytes: body.length,
      bodySha256: '',
      remoteAddress: null,
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      errorClass: null,
      errorMessage: null,
      retries: 0,
    };
    const cache = new RobotsCache({ fetcher: async () => ({ exchanges: [final], final }) });
    const long = await cache.check(`https://h.example/${'a'.repeat(2000)}`);
    expect(long).toMatchObject({ verdict: 'disallowed', permitted: false, line: null, fetch: 'parsed' });
    expect(long.errorMessage).toMatch(/too many wildcard rules for group "\*"/);
    const none = await cache.check('https://h.example/none');
    expect(none).toMatchObject({ verdict: 'allowed', errorMessage: null, fromCache: true });
  });
});
