import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBounded, userAgent, type FetchOptions } from '../../src/http/client.js';
import { HostFailureTracker } from '../../src/http/host-tracker.js';
import { CARD_MAX_BYTES, MAX_RECORDED_HEADER_VALUE, MAX_URL_CHARS } from '../../src/http/limits.js';
import { parseRetryAfter } from '../../src/http/text.js';
import { jsonObjectOrNull, textOrNull } from '../../src/util/text.js';
import type { LookupFn } from '../../src/http/types.js';
import {
  startGarbageServer,
  startHangUpServer,
  startHostileServer,
  startHttpServer,
  startResetServer,
  startSilentServer,
  type TestServer,
} from '../helpers/hostile-servers.js';

const CONTACT = 'probes@veronikai.test';
const base: FetchOptions = { contact: CONTACT, allowLoopback: true, timeoutMs: 2000, maxRetries: 0 };

let srv: TestServer;
beforeAll(async () => {
  srv = await startHostileServer();
});
afterAll(async () => {
  await srv.close();
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('userAgent', () => {
  it('is built from the contact', () => {
    expect(userAgent('ops@example.org')).toBe('VeronikAI/0.1 (+mailto:ops@example.org; read-only directory crawler)');
  });
  it('cannot be used to inject header lines or break the comment', () => {
    const ua = userAgent('a@b.c\r\nX-Evil: 1; (x)');
    expect(ua).not.toMatch(/[\r\n]/);
    expect(ua).toBe('VeronikAI/0.1 (+mailto:a@b.cX-Evil:1x; read-only directory crawler)');
  });
});

describe('fetchBounded: the request', () => {
  it('sends one GET with our User-Agent, Accept and Accept-Encoding; drops credentials', async () => {
    const r = await fetchBounded(`${srv.url}/echo-headers`, {
      ...base,
      accept: 'application/json',
      headers: { 'If-None-Match': '"v1"', Authorization: 'Bearer x', Cookie: 'a=b', Host: 'evil', 'X-Bad': 'a\r\nb' },
    });
    expect(r.exchanges).toHaveLength(1);
    const seen = JSON.parse(r.final.body.toString()) as { method: string; headers: Record<string, string> };
    expect(seen.method).toBe('GET');
    expect(seen.headers['user-agent']).toBe(userAgent(CONTACT));
    expect(seen.headers.accept).toBe('application/json');
    expect(seen.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(seen.headers['if-none-match']).toBe('"v1"');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(srv.url).host);
    // Kept alive: the next hop to the same origin at the same checked address reuses it (pinned-pool.ts).
    expect(seen.headers.connection).toBe('keep-alive');
    expect(r.final.requestHeaders).toEqual({
      'user-agent': userAgent(CONTACT),
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'if-none-match': '"v1"',
    });
  });

  it('records a complete Exchange', async () => {
    const before = Date.now();
    const r = await fetchBounded(`${srv.url}/ok`, base);
    const ex = r.final;
    expect(ex).toMatchObject({
      url: `${srv.url}/ok`,
      method: 'GET',
      status: 200,
      bodyTruncated: false,
      remoteAddress: '127.0.0.1',
      errorClass: null,
      errorMessage: null,
      retries: 0,
    });
    expect(ex.headers['content-type']).toBe('application/json');
    expect(ex.bodyBytes).toBe(ex.body.length);
    expect(ex.bodySha256).toBe(createHash('sha256').update(ex.body).digest('hex'));
    expect(Date.parse(ex.startedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(ex.durationMs).toBeGreaterThanOrEqual(0);
    expect(jsonObjectOrNull(ex)).toMatchObject({ ok: true });
    expect('finalUrl' in ex).toBe(false);
  });

  it('reaches an IPv6 loopback peer when loopback is allowed', async () => {
    let v6: TestServer;
    try {
      v6 = await startHttpServer((_q, s) => s.end('six'), '::1');
    } catch {
      return; // no IPv6 loopback on this machine
    }
    try {
      const r = await fetchBounded(`${v6.url}/`, base);
      expect(r.final.status).toBe(200);
      expect(r.final.remoteAddress).toBe('::1');
      expect(r.final.body.toString()).toBe('six');
    } finally {
      await v6.close();
    }
  });

  it('never throws on bad input', async () => {
    for (const u of ['not a url', 'ftp://example.com/', 'http://user:pw@127.0.0.1/', '', 'http://exa mple.com/']) {
      const r = await fetchBounded(u, base);
      expect(r.final.errorClass, u).toBe('invalid_url');
      expect(r.final.status).toBeNull();
    }
    const weird = await fetchBounded(`${srv.url}/ok`, { ...base, contact: undefined as unknown as string, maxBytes: -5 });
    expect(weird.final.status).toBe(200);
  });
});

describe('fetchBounded: headers', () => {
  it('keeps headers with lowercase names, drops set-cookie, and caps the total', async () => {
    const r = await fetchBounded(`${srv.url}/many-headers`, base);
    expect(r.final.status).toBe(200);
    expect(r.final.headers['content-type']).toBe('text/plain');
    expect(r.final.headers['set-cookie']).toBeUndefined();
    expect(r.final.headers['x-h0']).toBe('v'.repeat(200));
    const size = Object.entries(r.final.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(size).toBeLessThanOrEqual(16 * 1024);
  });

  it('a header block over the limit is headers_too_large', async () => {
    const r = await fetchBounded(`${srv.url}/huge-headers`, base);
    expect(r.final.errorClass).toBe('headers_too_large');
    expect(r.final.status).toBeNull();
  });
});

describe('fetchBounded: body caps and decoding', () => {
  it('a body of exactly the cap is complete; one byte more is body_too_large', async () => {
    const exact = await fetchBounded(`${srv.url}/exact?n=1000`, { ...base, maxBytes: 1000 });
    expect(exact.final).toMatchObject({ status: 200, bodyTruncated: false, errorClass: null, bodyBytes: 1000 });
    const over = await fetchBounded(`${srv.url}/exact?n=1001`, { ...base, maxBytes: 1000 });
    expect(over.final).toMatchObject({ status: 200, bodyTruncated: true, errorClass: 'body_too_large' });
    const trunc = await fetchBounded(`${srv.url}/exact?n=1001`, { ...base, maxBytes: 1000, overCap: 'truncate' });
    expect(trunc.final).toMatchObject({ status: 200, bodyTruncated: true, errorClass: null });
    expect(trunc.final.body.length).toBe(1000);
  });

  it.each([
    ['/gzip-small', '{"small":true}'],
    ['/deflate-zlib', 'zlib-wrapped deflate'],
    ['/deflate-raw', 'raw deflate'],
    ['/br-small', 'brotli body'],
  ])('decodes %s', async (path, text) => {
    const r = await fetchBounded(`${srv.url}${path}`, base);
    expect(r.final.errorClass).toBeNull();
    expect(r.final.body.toString()).toBe(text);
    expect(r.final.bodyBytes).toBe(text.length);
  });

  it('a corrupt compressed body is a protocol error', async () => {
    const r = await fetchBounded(`${srv.url}/corrupt-gzip`, base);
    expect(r.final.status).toBe(200);
    expect(r.final.errorClass).toBe('protocol');
  });

  it('an unsupported content-encoding is kept as received and recorded as protocol', async () => {
    const r = await fetchBounded(`${srv.url}/zstd`, base);
    expect(r.final.errorClass).toBe('protocol');
    expect(r.final.errorMessage).toContain('zstd');
    expect(r.final.body.length).toBe(7);
  });
});

describe('fetchBounded: redirects', () => {
  it('follows a relative redirect and records each hop', async () => {
    const r = await fetchBounded(`${srv.url}/redirect?to=/ok`, base);
    expect(r.exchanges.map((e) => e.status)).toEqual([302, 200]);
    expect(r.exchanges[1]!.url).toBe(`${srv.url}/ok`);
    expect(r.final).toBe(r.exchanges[1]);
    expect(r.exchanges[0]!.body.length).toBe(0);
  });

  it.each([301, 302, 303, 307, 308])('follows %i', async (status) => {
    const r = await fetchBounded(`${srv.url}/redirect?to=/ok&status=${status}`, base);
    expect(r.exchanges.map((e) => e.status)).toEqual([status, 200]);
  });

  it('detects a loop', async () => {
    const r = await fetchBounded(`${srv.url}/loop/a`, base);
    expect(r.exchanges.map((e) => e.status)).toEqual([302, 301, null]);
    expect(r.final.errorClass).toBe('redirect_loop');
    expect(r.final.url).toBe(`${srv.url}/loop/a`);
  });

  it('detects a self-redirect that only changes the fragment', async () => {
    const r = await fetchBounded(`${srv.url}/self`, base);
    expect(r.exchanges.map((e) => e.errorClass)).toEqual([null, 'redirect_loop']);
  });

  it('stops after 5 redirects', async () => {
    const r = await fetchBounded(`${srv.url}/chain/0`, base);
    expect(r.exchanges).toHaveLength(7);
    expect(r.exchanges.slice(0, 6).every((e) => e.status === 302)).toBe(true);
    expect(r.final).toMatchObject({ status: null, errorClass: 'too_many_redirects', url: `${srv.url}/chain/6` });
    const two = await fetchBounded(`${srv.url}/chain/0`, { ...base, maxRedirects: 2 });
    expect(two.exchanges).toHaveLength(4);
    expect(two.final.errorClass).toBe('too_many_redirects');
  });

  it('does not follow when asked not to, and then reads the 3xx body', async () => {
    const r = await fetchBounded(`${srv.url}/redirect?to=/ok`, { ...base, followRedirects: false });
    expect(r.exchanges).toHaveLength(1);
    expect(r.final).toMatchObject({ status: 302, errorClass: null });
    expect(r.final.headers.location).toBe('/ok');
    expect(r.final.body.toString()).toBe('moved');
  });

  it('a 3xx without Location is final; a bad Location is invalid_url; a non-http Location is invalid_url', async () => {
    const none = await fetchBounded(`${srv.url}/redirect-no-location`, base);
    expect(none.exchanges).toHaveLength(1);
    expect(none.final.status).toBe(302);
    const bad = await fetchBounded(`${srv.url}/redirect-bad-location`, base);
    expect(bad.exchanges.map((e) => e.errorClass)).toEqual([null, 'invalid_url']);
    const file = await fetchBounded(`${srv.url}/redirect?to=file:///etc/passwd`, base);
    expect(file.exchanges.map((e) => e.errorClass)).toEqual([null, 'invalid_url']);
  });

  it('a Location longer than we record is recorded (cut) and not followed: the cut URL is never requested', async () => {
    const paths: string[] = [];
    const s = await startHttpServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/long') res.writeHead(302, { location: `/${'a'.repeat(MAX_RECORDED_HEADER_VALUE + 500)}` });
      else if (req.url === '/two') res.setHeader('location', ['/x', '/y']).writeHead(302);
      else if (req.url === '/at-limit') res.writeHead(302, { location: `/${'b'.repeat(MAX_RECORDED_HEADER_VALUE - 200)}` });
      else res.writeHead(200);
      res.end();
    });
    try {
      const r = await fetchBounded(`${s.url}/long`, base);
      expect(r.exchanges.map((e) => [e.status, e.errorClass])).toEqual([
        [302, null],
        [null, 'invalid_url'],
      ]);
      expect(r.exchanges[0]!.headers.location).toHaveLength(MAX_RECORDED_HEADER_VALUE);
      expect(r.final.errorMessage).toMatch(/^redirect not followed: Location is \d+ characters long, over the 4096-character limit/);
      expect(r.final.url.length).toBeLessThanOrEqual(MAX_RECORDED_HEADER_VALUE);
      expect(paths).toEqual(['/long']);

      const two = await fetchBounded(`${s.url}/two`, base);
      expect(two.exchanges.map((e) => e.errorClass)).toEqual([null, 'invalid_url']);
      expect(two.final.errorMessage).toMatch(/2 different Location headers/);

      const ok = await fetchBounded(`${s.url}/at-limit`, base);
      expect(ok.exchanges.map((e) => e.status)).toEqual([302, 200]);
    } finally {
      await s.close();
    }
  });

  it('a URL over the limit is never requested', async () => {
    const r = await fetchBounded(`${srv.url}/ok?${'q'.repeat(MAX_URL_CHARS)}`, base);
    expect(r.exchanges).toHaveLength(1);
    expect(r.final).toMatchObject({ status: null, errorClass: 'invalid_url' });
    expect(r.final.url.length).toBeLessThanOrEqual(MAX_URL_CHARS);
  });
});

describe('fetchBounded: SSRF guard on every hop', () => {
  // allowed.test → 127.0.0.1 through an injected lookup, admitted for that one name only.
  const lookup: LookupFn = async (name) => {
    if (name === 'allowed.test') return [{ address: '127.0.0.1', family: 4 }];
    if (name === 'evil.test') return [{ address: '10.0.0.5', family: 4 }];
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  const policy: FetchOptions = {
    contact: CONTACT,
    timeoutMs: 2000,
    maxRetries: 0,
    lookup,
    allowAddress: (address, hostname) => hostname === 'allowed.test' && address === '127.0.0.1',
  };
  const allowed = (): string => `http://allowed.test:${srv.port}`;

  it('the first hop reaches the allowed test host (through the pinned lookup)', async () => {
    const r = await fetchBounded(`${allowed()}/ok`, policy);
    expect(r.final).toMatchObject({ status: 200, remoteAddress: '127.0.0.1' });
  });

  it.each([
    ['127.0.0.1 by literal', (port: number) => `http://127.0.0.1:${port}/ok`, 'loopback'],
    ['127.0.0.1 as decimal', (port: number) => `http://2130706433:${port}/ok`, 'loopback'],
    ['127.0.0.1 as octal', (port: number) => `http://0177.0.0.1:${port}/ok`, 'loopback'],
    ['127.0.0.1 as hex short form', (port: number) => `http://0x7f.1:${port}/ok`, 'loopback'],
    ['127.0.0.1 IPv4-mapped', (port: number) => `http://[::ffff:127.0.0.1]:${port}/ok`, 'ipv4-mapped loopback'],
    ['::1', (port: number) => `http://[::1]:${port}/ok`, 'loopback'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/', 'cloud-metadata'],
    ['metadata.google.internal', () => 'http://metadata.google.internal/computeMetadata/v1/', 'cloud-metadata'],
    ['a name resolving to 10.0.0.5', () => 'http://evil.test/', 'private'],
  ])('refuses a redirect to %s', async (_label, target, cls) => {
    const before = srv.paths.length;
    const to = encodeURIComponent(target(srv.port));
    const t0 = Date.now();
    const r = await fetchBounded(`${allowed()}/redirect?to=${to}`, policy);
    expect(r.exchanges).toHaveLength(2);
    expect(r.exchanges[0]!.status).toBe(302);
    expect(r.final).toMatchObject({ status: null, errorClass: 'blocked_address', remoteAddress: null });
    expect(r.final.errorMessage).toContain(cls);
    expect(srv.paths.length - before).toBe(1); // the redirect target was never requested
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('refuses a name resolving to a private address before any connection', async () => {
    let lookups = 0;
    const r = await fetchBounded('http://evil.test/', {
      ...policy,
      lookup: async (n) => {
        lookups++;
        return lookup(n);
      },
    });
    expect(lookups).toBe(1);
    expect(r.final).toMatchObject({ status: null, errorClass: 'blocked_address', remoteAddress: null });
    expect(r.final.errorMessage).toBe('refused evil.test → 10.0.0.5: private address');
  });

  it('resolves once per hop and connects to the checked address (no rebinding window)', async () => {
    let calls = 0;
    const rebinding: LookupFn = async () => {
      calls++;
      return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.5', family: 4 }];
    };
    const r = await fetchBounded(`http://rebind.test:${srv.port}/ok`, {
      ...policy,
      lookup: rebinding,
      allowAddress: (a, h) => h === 'rebind.test' && a === '127.0.0.1',
    });
    expect(r.final).toMatchObject({ status: 200, remoteAddress: '127.0.0.1' });
    expect(calls).toBe(1);
  });

  it('without allowLoopback, loopback is refused', async () => {
    const before = srv.connections();
    const r = await fetchBounded(`${srv.url}/ok`, { contact: CONTACT });
    expect(r.final).toMatchObject({ errorClass: 'blocked_address', errorMessage: 'refused 127.0.0.1: loopback address' });
    expect(srv.connections()).toBe(before);
  });
});

describe('fetchBounded: retries and host skipping', () => {
  it('retries a refused connection 3 times with doubling, jittered backoff', async () => {
    const port = await freePort();
    const delaysWith = async (random?: () => number): Promise<number[]> => {
      const delays: number[] = [];
      const r = await fetchBounded(`http://127.0.0.1:${port}/`, {
        ...base,
        maxRetries: undefined,
        ...(random ? { random } : {}),
        sleep: async (ms) => {
          delays.push(ms);
        },
      });
      expect(r.final).toMatchObject({ status: null, errorClass: 'refused', retries: 3 });
      return delays;
    };
    // The jitter spreads each delay over the upper half of its doubling window.
    expect(await delaysWith(() => 0.999999)).toEqual([500, 1000, 2000]);
    expect(await delaysWith(() => 0)).toEqual([250, 500, 1000]);
    expect(await delaysWith(() => 0.5)).toEqual([375, 750, 1500]);
    const real = await delaysWith();
    real.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(250 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(500 * 2 ** i);
    });
  });

  it('retries a temporary DNS failure, not a permanent one', async () => {
    let n = 0;
    const temp = await fetchBounded('http://flaky.test/', {
      ...base,
      maxRetries: 3,
      sleep: async () => undefined,
      lookup: async () => {
        n++;
        throw Object.assign(new Error('EAI_AGAIN'), { code: 'EAI_AGAIN' });
      },
    });
    expect(temp.final).toMatchObject({ errorClass: 'dns', retries: 3 });
    expect(n).toBe(4);
    n = 0;
    const perm = await fetchBounded('http://nx.test/', {
      ...base,
      maxRetries: 3,
      sleep: async () => undefined,
      lookup: async () => {
        n++;
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    expect(perm.final).toMatchObject({ errorClass: 'dns', retries: 0 });
    expect(n).toBe(1);
  });

  it('retries a timeout before the connection (here: name resolution that hangs)', async () => {
    const r = await fetchBounded('http://hang.test/', {
      ...base,
      timeoutMs: 100,
      maxRetries: 2,
      sleep: async () => undefined,
      lookup: () => new Promise(() => undefined),
    });
    expect(r.final).toMatchObject({ errorClass: 'timeout', retries: 2 });
  });

  it('retries a reset before any response; does not retry a timeout after connecting', async () => {
    const reset = await startResetServer();
    const silent = await startSilentServer();
    try {
      const r = await fetchBounded(`${reset.url}/`, { ...base, maxRetries: 2, sleep: async () => undefined });
      expect(r.final).toMatchObject({ errorClass: 'reset', status: null, retries: 2 });
      expect(reset.connections()).toBe(3);
      const t0 = Date.now();
      const s = await fetchBounded(`${silent.url}/`, { ...base, timeoutMs: 300, maxRetries: 3, sleep: async () => undefined });
      expect(s.final).toMatchObject({ errorClass: 'timeout', status: null, retries: 0, remoteAddress: '127.0.0.1' });
      expect(silent.connections()).toBe(1);
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await reset.close();
      await silent.close();
    }
  });

  it('does not retry an HTTP answer (429 is recorded with Retry-After)', async () => {
    const r = await fetchBounded(`${srv.url}/rate-limited`, { ...base, maxRetries: 3 });
    expect(r.final).toMatchObject({ status: 429, errorClass: null, retries: 0 });
    expect(r.final.headers['retry-after']).toBe('120');
    expect(parseRetryAfter(r.final.headers['retry-after'])).toBe(120_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT'))).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('skips a host after 3 consecutive network failures, for the rest of the run', async () => {
    const port = await freePort();
    const tracker = new HostFailureTracker();
    const opts = { ...base, hostTracker: tracker };
    for (let i = 0; i < 3; i++) {
      expect((await fetchBounded(`http://127.0.0.1:${port}/`, opts)).final.errorClass).toBe('refused');
    }
    expect(tracker.isSkipped('127.0.0.1')).toBe(true);
    const skipped = await fetchBounded(`http://127.0.0.1:${port}/`, opts);
    expect(skipped.final).toMatchObject({ errorClass: 'host_skipped', status: null, durationMs: 0 });
    // Another host is unaffected; an answer resets a host's count.
    const t2 = new HostFailureTracker();
    t2.recordFailure('a.test');
    t2.recordFailure('a.test');
    t2.record('a.test', { status: 503, errorClass: null });
    expect(t2.consecutiveFailures('a.test')).toBe(0);
    expect(t2.isSkipped('b.test')).toBe(false);
  });
});

describe('textOrNull', () => {
  it('records invalid UTF-8 and still returns text', async () => {
    const r = await fetchBounded(`${srv.url}/invalid-utf8`, base);
    const t = textOrNull(r.final);
    expect(t.validUtf8).toBe(false);
    expect(t.text).toContain('\uFFFD');
  });
});

describe('defaults', () => {
  it('the default cap is the card cap', async () => {
    const r = await fetchBounded(`${srv.url}/exact?n=${CARD_MAX_BYTES + 1}`, base);
    expect(r.final.errorClass).toBe('body_too_large');
  });
  it('garbage instead of HTTP is a protocol error; a hang-up is a reset', async () => {
    const g = await startGarbageServer();
    const h = await startHangUpServer();
    try {
      expect((await fetchBounded(`${g.url}/`, base)).final.errorClass).toBe('protocol');
      const hu = await fetchBounded(`${h.url}/`, base);
      expect(hu.final).toMatchObject({ errorClass: 'reset', status: null });
    } finally {
      await g.close();
      await h.close();
    }
  });
});
