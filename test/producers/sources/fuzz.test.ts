/**
 * Fuzzing every source reader's page parser (as the runner reads a page: bytes → interpret →
 * finalised drafts → events) and the robots.txt parser with random, truncated and oversized
 * input: random JSON values and item-shaped objects, random bytes, invalid UTF-8, pages cut
 * anywhere, deeply nested arrays, huge arrays of tiny items.
 *
 * Every run must end as a recorded failure (an error class) or as items within the page cap,
 * each of which encodes as an event; nothing may throw out of the parser. Memory is bounded per
 * batch: the heap may grow by at most PEAK_HEAP_BYTES while a batch runs (garbage included) and
 * keep at most RETAINED_HEAP_BYTES after it (measured after a GC when one can be forced).
 */
import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SOURCE_NAMES, type SourceName } from '../../../src/config.js';
import { eventCodec } from '../../../src/events/codec.js';
import type { Exchange } from '../../../src/http/types.js';
import { parseRobotsTxt, RobotsCache } from '../../../src/http/politeness/robots.js';
import { parseAgentsPage } from '../../../src/producers/sources/a2a-registry.js';
import { parsePaginatedAgents } from '../../../src/producers/sources/a2aregistry-org.js';
import { parseSpacesPage } from '../../../src/producers/sources/hf-spaces.js';
import { createSources } from '../../../src/producers/sources/index.js';
import { finalizeDraft } from '../../../src/producers/sources/item.js';
import { pageMaxItems, SOURCE_LIMITS } from '../../../src/producers/sources/limits.js';
import { parseServerList } from '../../../src/producers/sources/mcp-registry.js';
import { parseArdList } from '../../../src/producers/sources/neuronto.js';
import { interpret } from '../../../src/producers/sources/page-outcome.js';
import { listingEvents, pageEvent } from '../../../src/producers/sources/records.js';
import { parseServersPage, toSmitheryListing, withDetail } from '../../../src/producers/sources/smithery.js';
import type { PageResponse, ParsedPage } from '../../../src/producers/sources/types.js';
import { textOrNull } from '../../../src/util/text.js';
import { ITEMS_KEY } from '../../helpers/fixture-listing-page.js';

/** Heap a batch may add while it runs, garbage included (a generous bound: the 4 MB pages alone are external). */
const PEAK_HEAP_BYTES = 256 * 2 ** 20;
/** Heap a batch may leave behind. */
const RETAINED_HEAP_BYTES = 32 * 2 ** 20;

const gc: (() => void) | null = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
})();

/** Runs `batch`, sampling the heap through `sample()` calls, and checks the bounds. */
async function withinHeap(batch: (sample: () => void) => void | Promise<void>): Promise<void> {
  gc?.();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  await batch(sample);
  sample();
  gc?.();
  const retained = process.memoryUsage().heapUsed - start;
  expect(peak - start, 'heap growth while the batch ran').toBeLessThan(PEAK_HEAP_BYTES);
  if (gc) expect(retained, 'heap kept after the batch').toBeLessThan(RETAINED_HEAP_BYTES);
}

const codec = eventCodec();
const origin = { runId: 'fuzz', source: 'fuzz' };
const REQUEST_URL = 'https://registry.example/list?page=1';

/** Each source's list-page parser, as its crawl hands it to the runner. */
const PARSERS: Record<SourceName, (json: unknown, res: PageResponse) => ParsedPage> = {
  'mcp-registry': (json) => parseServerList(json),
  'a2a-registry': (json) => {
    const p = parseAgentsPage(json);
    return { listings: p.listings, itemCount: p.listings.length, nextCursor: null };
  },
  'a2aregistry-org': parsePaginatedAgents,
  'hf-spaces': (json, res) => parseSpacesPage(json, res, REQUEST_URL, 'https://registry.example', new Set()),
  neuronto: parseArdList,
  smithery: (json) => parseServersPage(json, 1),
};

const MAX_ITEMS = Object.fromEntries(createSources().map((s) => [s.name, pageMaxItems(s.pageSize)])) as Record<SourceName, number>;

const response = (body: Buffer, headers: Record<string, string> = {}): PageResponse => ({
  status: 200,
  headers,
  body,
  bodyTruncated: false,
  durationMs: 1,
  errorClass: null,
  errorMessage: null,
});

/**
 * Reads one page as the runner does and checks it ended as a recorded failure or as items within
 * the cap that encode as events. Returns the error class or 'ok'.
 */
function readPage(name: SourceName, body: Buffer, headers?: Record<string, string>): string {
  const res = response(body, headers);
  const { invalidUtf8: _u, ...outcome } = interpret(res, PARSERS[name], undefined, {
    maxItems: MAX_ITEMS[name],
    maxDepth: SOURCE_LIMITS.pageMaxDepth,
  });
  const listings = outcome.ok ? outcome.page.listings.map(finalizeDraft) : [];
  const at = { id: 'f', observedAt: 0, page: 1, mode: 'full' as const };
  codec.encode('SourceFetch', pageEvent(origin, at, { url: REQUEST_URL }, res, outcome, listings, []));
  if (!outcome.ok) {
    expect(outcome.errorClass).toMatch(/^[a-z_0-9]+$/);
    return outcome.errorClass;
  }
  expect(listings.length).toBeLessThanOrEqual(MAX_ITEMS[name]);
  for (const e of listingEvents(origin, listings, 'f', 0)) codec.encode('Listing', e);
  return 'ok';
}

/** A page of `name` around the given item texts. */
const pageText = (name: SourceName, items: readonly string[]) => {
  const list = `[${items.join(',')}]`;
  const key = ITEMS_KEY[name];
  return key === null ? list : `{"${key}":${list},"total":${items.length},"metadata":{"nextCursor":"c"},"pagination":{"totalPages":1}}`;
};

/** Objects shaped like listing items of every source, with random values under the keys they read. */
const KEYS = [
  'id',
  'name',
  'title',
  'description',
  'version',
  'url',
  'server',
  '_meta',
  'remotes',
  'type',
  'qualifiedName',
  'displayName',
  'identifier',
  'data',
  'runtime',
  'stage',
  'subdomain',
  'sdk',
  'cardData',
  'manifestUrl',
  'wellKnownURI',
  'deploymentUrl',
  'connections',
  'visibility',
  'hidden',
  'private',
  'disabled',
  'isDeployed',
  'remote',
  'updatedAt',
  'lastModified',
  'sha',
  'io.modelcontextprotocol.registry/official',
  'status',
  'isLatest',
  'preferredTransport',
  'endpoint',
];
const itemish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  item: fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.oneof(
      { maxDepth: 3 },
      fc.jsonValue({ maxDepth: 2 }),
      tie('item'),
      fc.webUrl(),
      fc.constantFrom('a/b', '@o/n', 'RUNNING', 'gradio', 'streamable-http', 'application/mcp-server+json', 'a2a'),
    ),
    { maxKeys: 12 },
  ),
})).item;

const sourceName = fc.constantFrom(...SOURCE_NAMES);
const RUNS = 60;

describe('fuzz: every source reader ends a page as a recorded error or as items', () => {
  it('random JSON values and item-shaped objects, whole or cut anywhere, with invalid UTF-8 spliced in', async () => {
    await withinHeap((sample) =>
      fc.assert(
        fc.property(
          sourceName,
          fc.array(fc.oneof(itemish, fc.jsonValue({ maxDepth: 4 })), { maxLength: 40 }),
          fc.boolean(),
          fc.option(fc.nat(), { nil: undefined }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x80, max: 0xff })), { maxLength: 4 }),
          (name, items, bare, cut, splices) => {
            const text = bare
              ? JSON.stringify(items)
              : pageText(
                  name,
                  items.map((i) => JSON.stringify(i) ?? 'null'),
                );
            let body = Buffer.from(text);
            if (cut !== undefined) body = body.subarray(0, cut % (body.length + 1));
            if (splices.length > 0) {
              body = Buffer.from(body);
              for (const [at, byte] of splices) if (body.length > 0) body[at % body.length] = byte;
            }
            readPage(name, body, { link: '<https://registry.example/list?cursor=x>; rel="next"' });
            sample();
          },
        ),
        { numRuns: RUNS * 4 },
      ),
    );
  });

  it('random bytes and random JSON of any shape', async () => {
    await withinHeap((sample) =>
      fc.assert(
        fc.property(
          sourceName,
          fc.oneof(
            fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
            fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))),
          ),
          (name, body) => {
            readPage(name, body);
            sample();
          },
        ),
        { numRuns: RUNS * 2 },
      ),
    );
  });

  it('deeply nested arrays, as the page or inside an item (refused as too_deep past the cap, never a stack overflow)', async () => {
    await withinHeap((sample) =>
      fc.assert(
        fc.property(sourceName, fc.integer({ min: 1, max: 200_000 }), fc.boolean(), (name, depth, inItem) => {
          const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
          const item = inItem
            ? `{"server":{"name":"a/b","version":"1","description":"d","x":${deep}},"id":"a","qualifiedName":"a","identifier":"a","type":"mcp-server","url":"https://a.example/","nested":${deep}}`
            : deep;
          const result = readPage(name, Buffer.from(pageText(name, [item])));
          if (depth + 4 > SOURCE_LIMITS.pageMaxDepth) expect(result).toBe('too_deep');
          sample();
        }),
        { numRuns: RUNS },
      ),
    );
  });

  it('huge arrays of tiny items (up to two million): refused as too_many_items before any item is mapped', async () => {
    await withinHeap((sample) =>
      fc.assert(
        fc.property(
          sourceName,
          fc.integer({ min: 0, max: 2_000_000 }),
          fc.constantFrom('0', '{}', '""', '[]', 'null'),
          (name, count, tiny) => {
            const t0 = performance.now();
            const result = readPage(name, Buffer.from(pageText(name, new Array<string>(count).fill(tiny))));
            if (count > MAX_ITEMS[name]) expect(result).toBe('too_many_items');
            // a bound, not a benchmark: the scan is one pass over ≤ 10 MB
            expect(performance.now() - t0).toBeLessThan(3000);
            sample();
          },
        ),
        { numRuns: 8, examples: [['mcp-registry', 2_000_000, '0']] },
      ),
    );
  });

  it('a Smithery detail document of any shape completes a draft or fails the detail page', async () => {
    const draft = toSmitheryListing({ qualifiedName: '@o/n', displayName: 'N' });
    await withinHeap((sample) =>
      fc.assert(
        fc.property(fc.oneof(itemish, fc.jsonValue()), (detail) => {
          const parse = (json: unknown) => ({ listings: [withDetail(draft, { qualifiedName: '@o/n' }, json)] });
          const out = interpret(response(Buffer.from(JSON.stringify(detail) ?? 'null')), parse, undefined, {
            maxItems: 500,
            maxDepth: SOURCE_LIMITS.pageMaxDepth,
          });
          if (out.ok) for (const e of listingEvents(origin, out.page.listings.map(finalizeDraft), 'f', 0)) codec.encode('Listing', e);
          else expect(out.errorClass).toMatch(/^[a-z_]+$/);
          sample();
        }),
        { numRuns: RUNS },
      ),
    );
  });
});

/** robots.txt lines: directives we read, others, random values with wildcards, unicode, comments. */
const robotsLine = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('User-agent', 'user-agent', 'Disallow', 'Allow', 'disallow', 'Crawl-delay', 'Sitemap', 'Host', 'Noindex', ''),
      fc.oneof(
        fc.constantFrom('*', 'VeronikAI', 'veronica-agents/1.0', '/', '/*', '/*.json$', '$', '/a*b*c$', '/%E2%82%AC', '/€', ''),
        fc.stringMatching(/^[/*$a-z%?=&.#-]{0,40}$/),
        fc.string({ unit: 'binary', maxLength: 40 }),
      ),
    )
    .map(([k, v]) => `${k}: ${v}`),
  fc.string({ unit: 'binary', maxLength: 60 }),
);
const robotsText = fc
  .array(robotsLine, { maxLength: 60 })
  .map((lines) => lines.join(fc.sample(fc.constantFrom('\n', '\r\n', '\r'), 1)[0]!));
const path = fc.oneof(fc.webPath(), fc.stringMatching(/^\/[a-z*$%?=&.-]{0,60}$/), fc.constant(`/${'a'.repeat(2000)}`));

const exchange = (body: Buffer, status: number | null): Exchange => ({
  url: 'https://h.example/robots.txt',
  method: 'GET',
  requestHeaders: {},
  status,
  headers: {},
  body,
  bodyTruncated: false,
  bodyBytes: body.length,
  bodySha256: '',
  remoteAddress: null,
  startedAt: new Date(0).toISOString(),
  durationMs: 1,
  errorClass: status === null ? 'timeout' : null,
  errorMessage: status === null ? 'timed out' : null,
  retries: 0,
});

describe('fuzz: the robots.txt parser answers every URL, whatever the file', () => {
  it('random robots.txt lines and URLs: a boolean and a line number or null, never a throw', async () => {
    await withinHeap((sample) =>
      fc.assert(
        fc.property(robotsText, fc.array(path, { minLength: 1, maxLength: 5 }), (text, paths) => {
          const r = parseRobotsTxt('https://h.example/robots.txt', text);
          expect(typeof r.group).toBe('string');
          for (const p of paths) {
            expect(typeof r.isAllowed(`https://h.example${p}`)).toBe('boolean');
            const line = r.line(`https://h.example${p}`);
            expect(line === null || (Number.isInteger(line) && line > 0)).toBe(true);
          }
          sample();
        }),
        { numRuns: RUNS * 3 },
      ),
    );
  });

  it('random bytes (invalid UTF-8 included), truncated or huge, through the cache: a verdict, never a throw', async () => {
    await withinHeap(async (sample) => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
            robotsText.map((t) => Buffer.from(t)),
            fc.integer({ min: 1, max: 500 * 1024 }).map((n) => Buffer.from(`User-agent: *\nDisallow: /${'*'.repeat(n)}x\n`)),
          ),
          fc.option(fc.nat(), { nil: undefined }),
          fc.constantFrom(200, 200, 200, 404, 429, 500, null),
          path,
          async (body, cut, status, p) => {
            const b = cut === undefined ? body : body.subarray(0, cut % (body.length + 1));
            const final = exchange(b, status);
            const cache = new RobotsCache({ fetcher: async () => ({ exchanges: [final], final }) });
            const check = await cache.check(`https://h.example${p}`);
            expect(['allowed', 'disallowed', 'unreachable', 'not_checked']).toContain(check.verdict);
            sample();
          },
        ),
        { numRuns: RUNS },
      );
    });
  });

  it('a 500 KiB rule of wildcards is matched in milliseconds, not seconds', () => {
    const text = textOrNull(Buffer.from(`User-agent: *\nDisallow: /${'*'.repeat(500 * 1024)}x\nAllow: /${'b'.repeat(20_000)}\n`)).text!;
    const r = parseRobotsTxt('https://h.example/robots.txt', text);
    const t0 = performance.now();
    expect(r.isAllowed(`https://h.example/${'a'.repeat(2000)}x`)).toBe(false);
    expect(r.isAllowed(`https://h.example/${'a'.repeat(2000)}`)).toBe(true);
    expect(r.line(`https://h.example/${'a'.repeat(2000)}x`)).toBe(2);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
