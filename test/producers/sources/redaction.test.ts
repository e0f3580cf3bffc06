/**
 * A token in a configured source URL reaches no log line and no event: the runner's logs, the
 * source-fetch events (ok, failed, refused by robots.txt) and the summary all carry the URL with
 * its secret query values replaced, the other parameters as they were.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { MemorySink } from '../../../src/producers/sink.js';
import { createPageFetcher } from '../../../src/producers/sources/http-page-fetcher.js';
import { redactCursor } from '../../../src/producers/sources/cursor.js';
import { createSources } from '../../../src/producers/sources/index.js';
import { runSource, type SourceSummary } from '../../../src/producers/sources/runner.js';
import { MemorySourceStateStore } from '../../../src/producers/sources/state.js';
import { ROBOTS_DISALLOW_US } from '../../helpers/fixture-common.js';
import { pageOf, startListingPageFixture, type ListingPageFixture } from '../../helpers/fixture-listing-page.js';

const SECRET = 'TOPSECRET';

/** Runs one source with a logger writing JSON lines into `lines` (the project's logger, at debug). */
async function crawl(name: string, baseUrl: string): Promise<{ lines: string[]; sink: MemorySink; summary: SourceSummary }> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = createLogger('test', { stream: stream as unknown as NodeJS.WriteStream, level: 'debug' });
  const sink = new MemorySink();
  const summary = await runSource(
    createSources([name])[0]!,
    {
      fetch: createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: ['127.0.0.1'], maxRetries: 0 }),
      sink,
      state: new MemorySourceStateStore(),
      log,
      limits: { pageTimeoutMs: 2000, pageDelayMs: 0, maxPages: 3 },
    },
    { runId: 'redaction', baseUrl, full: true },
  );
  return { lines, sink, summary };
}

/** Everything a pass left for others to read. */
const everything = (r: Awaited<ReturnType<typeof crawl>>) =>
  [...r.lines, JSON.stringify(r.sink.fetches), JSON.stringify(r.sink.listingEvents), JSON.stringify(r.summary)].join('\n');

describe('a secret in a source URL is redacted before logging or recording', () => {
  let fx: ListingPageFixture;
  afterEach(() => fx?.close());

  it('a failed page: the "source pass starting" and "listing request failed" logs and the event carry no token', async () => {
    fx = await startListingPageFixture(500);
    const r = await crawl('mcp-registry', `${fx.url}/?token=${SECRET}&page=1`);
    expect(fx.requests[0]).toContain(`token=${SECRET}`); // the request itself keeps its token
    const all = everything(r);
    expect(all).not.toContain(SECRET);
    expect(r.lines.find((l) => l.includes('source pass starting'))).toMatch(/"baseUrl":"http:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&page=1"/);
    expect(r.lines.find((l) => l.includes('listing request failed'))).toMatch(/token=\*\*\*&page=1/);
    expect(r.sink.fetches[0]).toMatchObject({
      ok: false,
      errorClass: 'http_5xx',
      url: expect.stringMatching(/\?token=\*\*\*&page=1\/v0\.1\/servers\?limit=100&version=latest$/),
    });
  });

  it('a page read fine: its event keeps the paging parameters and drops the token (also an api_key, a signature)', async () => {
    fx = await startListingPageFixture(pageOf('a2a-registry', [JSON.stringify({ id: 'a1', url: 'https://a1.example/a2a' })]));
    const r = await crawl('a2a-registry', `${fx.url}/reg?token=${SECRET}&page=1&api_key=${SECRET}&sig=${SECRET}&lang=en`);
    expect(r.summary).toMatchObject({ complete: true, items: 1 });
    expect(everything(r)).not.toContain(SECRET);
    expect(r.sink.fetches[0]!.url).toMatch(/\/reg\?token=\*\*\*&page=1&api_key=\*\*\*&sig=\*\*\*&lang=en\/public\/agents\?page=1$/);
  });

  it('a request robots.txt refuses: the refusal event, the skip reason and the logs carry no token', async () => {
    fx = await startListingPageFixture(500);
    fx.robots = ROBOTS_DISALLOW_US;
    const r = await crawl('mcp-registry', `${fx.url}/?access_token=${SECRET}&page=1`);
    expect(r.summary.skipped).toMatch(/^robots: disallowed/);
    expect(r.sink.fetches[0]).toMatchObject({ ok: false, errorClass: 'robots_disallowed' });
    expect(r.sink.fetches[0]!.error).toContain('access_token=***&page=1');
    expect(everything(r)).not.toContain(SECRET);
  });

  it('a password in the URL (refused by the configuration, redacted here too) reaches no log or event', async () => {
    fx = await startListingPageFixture(500);
    const r = await crawl('mcp-registry', fx.url.replace('http://', `http://admin:${SECRET}@`));
    expect(everything(r)).not.toContain(SECRET);
    expect(r.lines.find((l) => l.includes('source pass starting'))).toContain('admin:***@127.0.0.1');
  });
});

describe('a paging cursor is redacted as a URL is, also when it is not one', () => {
  let fx: ListingPageFixture;
  afterEach(() => fx?.close());

  /** A JWT-shaped cursor carrying the secret: the page URL that sends it shows `cursor=***`. */
  const JWT_CURSOR = `eyJhbGciOiJIUzI1NiJ9.eyJ${SECRET}.sig-${SECRET}`;

  it('redactCursor: a URL, a bare query string and a credential-shaped value lose their secrets; an opaque cursor stays', () => {
    expect(redactCursor(JWT_CURSOR)).toBe('***');
    expect(redactCursor(`token=${SECRET}&offset=100`)).toBe('token=***&offset=100');
    expect(redactCursor(`https://r.example/v0/servers?cursor=c2&api_key=${SECRET}`)).toBe(
      'https://r.example/v0/servers?cursor=c2&api_key=***',
    );
    expect(redactCursor(`/v0/servers?page=2&sig=${SECRET}`)).toBe('/v0/servers?page=2&sig=***');
    expect(redactCursor(`a/${'f'.repeat(40)}/b`)).toBe('a/***/b');
    for (const opaque of ['ai.example/weather:1.0.0', '3f2c9d1e-8a7b-4c6d-9e0f-1a2b3c4d5e6f', 'eyJvZmZzZXQiOjEwMH0=', 'page-2']) {
      expect(redactCursor(opaque)).toBe(opaque);
    }
  });

  it("a registry's nextCursor: the events' cursor and nextCursor, the page URL and the repeated-cursor error carry no secret", async () => {
    fx = await startListingPageFixture(Buffer.from(JSON.stringify({ servers: [], metadata: { nextCursor: JWT_CURSOR } })));
    const r = await crawl('mcp-registry', fx.url);
    // The second request sent the cursor as it came (the server's paging needs it whole).
    expect(fx.requests[1]).toContain(encodeURIComponent(JWT_CURSOR));
    expect(r.sink.fetches[0]).toMatchObject({ ok: true, cursor: null, nextCursor: '***' });
    expect(r.sink.fetches[1]).toMatchObject({ ok: false, cursor: '***', url: expect.stringMatching(/[?&]cursor=\*\*\*/) });
    expect(r.sink.fetches[1]!.error).toMatch(/cursor repeated: metadata\.nextCursor \*\*\* was already followed/);
    expect(everything(r)).not.toContain(SECRET);
  });
});
