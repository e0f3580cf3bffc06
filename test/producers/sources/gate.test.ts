import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorClass, Exchange } from '../../../src/http/types.js';
import { classifyRobotsFetch, RobotsCache, selectGroup } from '../../../src/http/politeness/robots.js';
import { crawlGate, pageRobotsFetcher, PRODUCT_TOKENS, robotsUrlOf, type CrawlGateDecision } from '../../../src/producers/sources/gate.js';
import { createA2aRegistrySource } from '../../../src/producers/sources/a2a-registry.js';
import type { PageResponse } from '../../../src/producers/sources/types.js';
import { a2aAgent, startFixtureA2aRegistry, type A2aRegistryFixture } from '../../helpers/fixture-a2a-registry.js';
import { faults, ROBOTS_DISALLOW_US } from '../../helpers/fixture-common.js';
import { sourceHarness } from './harness.js';

type RobotsAnswer = Pick<PageResponse, 'status' | 'body' | 'errorClass' | 'errorMessage'>;
const ok = (body: string): RobotsAnswer => ({ status: 200, body: Buffer.from(body), errorClass: null, errorMessage: null });

/** The crawl gate over a fresh cache whose robots.txt is `answer`; counts the robots.txt reads. */
function gateFor(answer: RobotsAnswer) {
  const reads = { n: 0 };
  const fetcher = pageRobotsFetcher({
    fetch: async () => {
      reads.n += 1;
      return { headers: {}, bodyTruncated: false, durationMs: 1, ...answer };
    },
    pace: async () => {},
    timeoutMs: 1000,
    now: () => 0,
  });
  const gate = crawlGate(new RobotsCache({ now: () => 0 }), fetcher);
  return Object.assign(gate, { reads });
}
const allowed = (d: CrawlGateDecision) => d.ok;

describe('robots.txt decision (RFC 9309)', () => {
  it('uses the veronikai group, then veronica-agents, then *', async () => {
    const chooseGroup = (text: string) => selectGroup(text, PRODUCT_TOKENS);
    expect(chooseGroup('User-agent: *\nDisallow: /\n')).toBe('*');
    expect(chooseGroup('User-agent: Veronica-Agents/2\nDisallow:\nUser-agent: *\nDisallow: /')).toBe('veronica-agents');
    expect(chooseGroup('User-agent: veronica-agents\nAllow: /\n\nUser-agent: VeronikAI\nDisallow: /x')).toBe('veronikai');

    const star = gateFor(ok('User-agent: *\nDisallow: /private\n'));
    expect(allowed(await star('https://reg.example/api/x'))).toBe(true);
    expect(await star('https://reg.example/private/a')).toMatchObject({
      ok: false,
      errorClass: 'robots_disallowed',
      cause: 'robots_disallowed',
    });

    // Our own group replaces *: * disallows everything, ours allows /api/.
    const ours = gateFor(ok('User-agent: *\nDisallow: /\n\nUser-agent: veronikai\nAllow: /api/\nDisallow: /\n'));
    expect(allowed(await ours('https://reg.example/api/list?page=2'))).toBe(true);
    expect(allowed(await ours('https://reg.example/other'))).toBe(false);

    const legacy = gateFor(ok('User-agent: veronica-agents\nDisallow: /api/\n\nUser-agent: *\nAllow: /\n'));
    expect(allowed(await legacy('https://reg.example/api/list'))).toBe(false);
    expect(allowed(await legacy('https://reg.example/docs'))).toBe(true);
    // One read per origin: the shared cache answers the rest.
    expect([star.reads.n, ours.reads.n, legacy.reads.n]).toEqual([1, 1, 1]);
  });

  it('longest match wins, Allow on a tie; the query string counts', async () => {
    const g = gateFor(ok('User-agent: *\nDisallow: /api/\nAllow: /api/public\nDisallow: /list?page=3\n'));
    expect(allowed(await g('https://reg.example/api/public/agents'))).toBe(true);
    expect(allowed(await g('https://reg.example/api/private'))).toBe(false);
    expect(allowed(await g('https://reg.example/list?page=2'))).toBe(true);
    expect(allowed(await g('https://reg.example/list?page=3'))).toBe(false);
  });

  it('allows all on 4xx, fails closed on 5xx, 429 and no response', async () => {
    const url = 'https://reg.example/x';
    expect(allowed(await gateFor({ ...ok(''), status: 404 })(url))).toBe(true);
    expect(allowed(await gateFor({ ...ok(''), status: 403 })(url))).toBe(true);
    expect(await gateFor({ ...ok(''), status: 503 })(url)).toMatchObject({
      ok: false,
      errorClass: 'robots_unreachable',
      cause: 'http_5xx',
      detail: 'HTTP 503',
    });
    expect(await gateFor({ ...ok(''), status: 429 })(url)).toMatchObject({
      ok: false,
      errorClass: 'robots_unreachable',
      cause: 'rate_limited',
    });
    const timeout = await gateFor({ status: null, body: Buffer.alloc(0), errorClass: 'timeout', errorMessage: 'took too long' })(url);
    expect(timeout).toMatchObject({
      ok: false,
      errorClass: 'robots_unreachable',
      cause: 'timeout',
      robotsUrl: 'https://reg.example/robots.txt',
      message: 'robots.txt could not be fetched (timeout: took too long); skipped for this run',
    });
    expect(robotsUrlOf('https://a2aregistry.org/api/agents?x=1')).toBe('https://a2aregistry.org/robots.txt');
  });

  it('fails closed on an origin the address guard refuses; passes a URL the client cannot request at all', async () => {
    const blocked = gateFor({ status: null, body: Buffer.alloc(0), errorClass: 'blocked_address', errorMessage: 'private address' });
    expect(await blocked('https://reg.example/x')).toMatchObject({ ok: false, errorClass: 'robots_unreachable', cause: 'blocked_address' });
    const g = gateFor(ok('User-agent: *\nDisallow: /\n'));
    expect(allowed(await g(`https://reg.example/${'x'.repeat(20_000)}`))).toBe(true);
    expect(g.reads.n).toBe(0);
  });
});

describe('one status → decision rule for the crawl gate and the probes', () => {
  it('the gate refuses exactly what classifyRobotsFetch calls unreachable or not checked', async () => {
    const cases: Array<[number | null, ErrorClass | null]> = [
      [200, null],
      [200, 'timeout'],
      [200, 'body_too_large'],
      [204, null],
      [301, null],
      [304, null],
      [400, null],
      [401, null],
      [403, null],
      [404, null],
      [410, null],
      [429, null],
      [500, null],
      [503, null],
      [100, null],
      [null, 'timeout'],
      [null, 'refused'],
      [null, 'dns'],
      [null, 'tls'],
      [null, 'too_many_redirects'],
      [null, 'redirect_loop'],
      [null, 'blocked_address'],
      [404, 'reset'],
    ];
    const asGate = {
      parsed: 'disallowed',
      unavailable: 'allowed',
      unreachable: 'robots_unreachable',
      not_checked: 'robots_unreachable',
    } as const;
    for (const [status, errorClass] of cases) {
      const final = { status, errorClass } as Exchange;
      const probes = classifyRobotsFetch({ exchanges: [final], final }).fetch;
      const d = await gateFor({ status, errorClass, errorMessage: null, body: Buffer.from('User-agent: *\nDisallow: /x\n') })(
        'https://reg.example/x',
      );
      const gate = d.ok ? 'allowed' : d.errorClass === 'robots_disallowed' ? 'disallowed' : d.errorClass;
      expect([status, errorClass, gate]).toEqual([status, errorClass, asGate[probes]]);
    }
  });

  it('a BOM does not hide the first group', async () => {
    const d = await gateFor(ok('\uFEFFUser-agent: veronikai\nDisallow: /\n'))('https://reg.example/x');
    expect(d).toMatchObject({ ok: false, errorClass: 'robots_disallowed', detail: '/x for veronikai (group "veronikai")' });
  });
});

describe('the crawl gate in the runner', () => {
  let fx: A2aRegistryFixture;
  let h: ReturnType<typeof sourceHarness>;
  beforeEach(async () => {
    fx = await startFixtureA2aRegistry(
      Array.from({ length: 45 }, (_, i) => a2aAgent(`a${i}`, `https://a${i}.example/.well-known/agent-card.json`)),
    );
    h = sourceHarness();
  });
  afterEach(() => fx.close());
  const run = (opts = {}) => h.run(createA2aRegistrySource(), fx.url, opts);

  it('skips a source whose robots.txt disallows us, and records why', async () => {
    fx.robots = ROBOTS_DISALLOW_US;
    const s = await run();
    expect(s).toMatchObject({ complete: false, pages: 0, items: 0, errors: 0 });
    expect(s.skipped).toBe('robots: disallowed (/public/agents?page=1 for veronikai (group "veronikai"))');
    expect(fx.requests).toEqual([]);
    expect(h.sink.fetches).toEqual([
      expect.objectContaining({ url: `${fx.url}/robots.txt`, ok: false, gate: 'robots_disallowed', errorClass: 'robots_disallowed' }),
    ]);
    expect(h.sink.fetches[0]!.error).toMatch(/^robots.txt disallows \/public\/agents\?page=1 for veronikai/);
    expect(await h.state.load('a2a-registry')).toEqual({});
  });

  it.each([
    ['a 503', 503, 'http_5xx'],
    ['a 429', 429, 'rate_limited'],
    ['a timeout', faults.slow(3000), 'timeout'],
  ] as const)('skips a source whose robots.txt answers %s (fail closed), and records why', async (_n, robots, errorClass) => {
    fx.robots = robots;
    const s = await run();
    expect(s.skipped).toMatch(/^robots: unreachable/);
    expect(fx.requests).toEqual([]);
    expect(h.sink.fetches).toEqual([
      expect.objectContaining({ url: `${fx.url}/robots.txt`, gate: 'robots_unreachable', errorClass, ok: false }),
    ]);
  });

  it('reads a source without robots.txt (404) or whose robots.txt allows us, marking pages allowed', async () => {
    expect(await run()).toMatchObject({ complete: true, skipped: null, pages: 3, items: 45 });
    fx.robots = 'User-agent: *\nDisallow: /\n\nUser-agent: veronica-agents\nAllow: /public/\n';
    h.clear();
    expect(await run()).toMatchObject({ complete: true, pages: 3 });
    expect(h.sink.fetches.every((f) => f.gate === 'allowed' && f.ok)).toBe(true);
    expect(fx.robotsRequests).toBe(2);
  });

  it('checks every request: a page robots.txt disallows ends the pass incomplete, nothing delisted', async () => {
    await run();
    fx.robots = 'User-agent: *\nDisallow: /public/agents?page=2\n';
    fx.agents.splice(0, 5);
    h.clear();
    fx.requests.length = 0;
    const s = await run();
    expect(s).toMatchObject({ complete: false, pages: 1, delisted: 0 });
    expect(s.failure).toMatch(/^robots: disallowed/);
    expect(fx.requests).toEqual(['/public/agents?page=1']);
    expect(h.delisted()).toEqual([]);
    expect(h.sink.fetches.map((f) => f.gate)).toEqual(['allowed', 'robots_disallowed']);
  });

  it('skips a source whose terms forbid crawling without any request, recorded', async () => {
    const s = await run({ termsForbidden: 'its terms forbid bulk extraction' });
    expect(s.skipped).toBe('terms: its terms forbid bulk extraction');
    expect(fx.robotsRequests + fx.requests.length).toBe(0);
    expect(h.sink.fetches).toEqual([expect.objectContaining({ gate: 'terms_forbidden', errorClass: 'terms_forbidden', ok: false })]);
  });

  it('paces requests by the configured delay', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      h.clock += ms;
    };
    await run({ limits: { pageDelayMs: 700 }, sleep });
    // robots.txt, then 3 pages: a wait before each page.
    expect(waits).toEqual([700, 700, 700]);
  });

  it('ends a pass that runs past its page budget as incomplete', async () => {
    const s = await run({ limits: { maxPages: 2 } });
    expect(s).toMatchObject({ complete: false, pages: 2 });
    expect(s.failure).toMatch(/page budget of 2/);
  });
});
