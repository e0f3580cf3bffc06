import { activeDraft, boundedRaw, invalidDraft, isObject, str } from './item.js';
import {
  PageShapeError,
  type CrawlOptions,
  type CrawlResult,
  type ListingDraft,
  type ListingSource,
  type PageResponse,
  type ParsedPage,
  type SourceIO,
} from './types.js';

/**
 * Hugging Face Spaces tagged `mcp-server`, through the public Hub API:
 * `GET /api/spaces?filter=mcp-server&expand=…` answers a bare JSON array, and the next page
 * is the `Link: <…>; rel="next"` response header (a full URL with an opaque cursor, followed
 * verbatim, and only on the source's own origin). Each page is revalidated with its ETag
 * (If-None-Match): a 304 is a successful fetch with nothing new, and the page's items,
 * remembered from the last complete pass, count as still listed.
 *
 * Only a RUNNING Gradio Space gets a probeable MCP endpoint,
 * `https://{subdomain}.hf.space/gradio_api/mcp/`; every other Space is listed without one.
 * Without `subdomain`, the host is the READY entry of `runtime.domains`
 * (`[{domain: "<sub>.hf.space", stage: "READY"}]`), when it is one label under hf.space.
 * The rest of `runtime` (`hardware` with null `current`/`requested`, `storage: null`,
 * `replicas`, `devMode`, no `gcTimeout`) is not read.
 * Nothing is ever requested from *.hf.space here: a request wakes a sleeping Space and
 * spends its owner's compute.
 */
export const HF_SPACES = 'hf-spaces';
const PAGE_LIMIT = 100;
const EXPAND = [
  'author',
  'cardData',
  'createdAt',
  'disabled',
  'lastModified',
  'likes',
  'private',
  'runtime',
  'sdk',
  'sha',
  'subdomain',
  'tags',
];
const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export function createHfSpacesSource(): ListingSource {
  return {
    name: HF_SPACES,
    protocol: 'mcp',
    defaultBaseUrl: 'https://huggingface.co',
    pageSize: PAGE_LIMIT,
    // Anonymous Hub API: 500 requests per 5 minutes per IP; stay well below it.
    defaultPageDelayMs: 1000,
    crawl: crawlHfSpaces,
  };
}

interface CachedPage {
  etag: string | null;
  next: string | null;
  ids: string[];
}

function cachedPages(state: Record<string, unknown>): Record<string, CachedPage> {
  const pages = state.pages;
  return isObject(pages) ? (pages as Record<string, CachedPage>) : {};
}

export function firstPageUrl(baseUrl: string): string {
  const q = new URLSearchParams({ filter: 'mcp-server', limit: String(PAGE_LIMIT) });
  for (const e of EXPAND) q.append('expand', e);
  return `${baseUrl}/api/spaces?${q.toString()}`;
}

async function crawlHfSpaces(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  io.setMode('full');
  const cache = opts.full ? {} : cachedPages(opts.state);
  const pages: Record<string, CachedPage> = {};
  const origin = new URL(opts.baseUrl).origin;
  const visited = new Set<string>();
  let url: string | null = firstPageUrl(opts.baseUrl);
  while (url) {
    const pageUrl: string = url;
    visited.add(pageUrl);
    const prior = cache[pageUrl];
    const outcome = await io.page(
      {
        url: pageUrl,
        cursor: new URL(pageUrl).searchParams.get('cursor'),
        headers: prior?.etag ? { 'if-none-match': prior.etag } : undefined,
        notModified: (): ParsedPage => {
          if (!prior) throw new PageShapeError('304 Not Modified for a page we hold no copy of');
          return { listings: [], carried: prior.ids, nextCursor: prior.next, data: { next: prior.next, ids: prior.ids } };
        },
      },
      (json, res) => parseSpacesPage(json, res, pageUrl, origin, visited),
    );
    if (!outcome.ok) return { complete: false, mode: 'full', state: opts.state };
    const { next, ids } = outcome.page.data as { next: string | null; ids: string[] };
    pages[pageUrl] = { etag: outcome.response.headers.etag ?? prior?.etag ?? null, next, ids };
    url = next;
  }
  return { complete: true, mode: 'full', state: { ...opts.state, pages }, coverage: 'all' };
}

/** The `rel="next"` target of a Link header (RFC 8288), resolved against the request URL. */
export function nextLink(header: string | undefined, requestUrl: string): string | null {
  if (!header) return null;
  const re = /<([^>]*)>((?:\s*;\s*[^;,]+)*)/g;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    const params = m[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) {
      try {
        return new URL(m[1]!, requestUrl).toString();
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** One page of GET /api/spaces: a bare array; the next page comes from the Link header. */
export function parseSpacesPage(
  json: unknown,
  res: PageResponse,
  requestUrl: string,
  origin: string,
  visited: ReadonlySet<string>,
): ParsedPage {
  if (!Array.isArray(json)) throw new PageShapeError('expected a JSON array of Spaces');
  const next = nextLink(res.headers.link, requestUrl);
  if (next && new URL(next).origin !== origin) throw new PageShapeError(`Link rel="next" leaves the source's origin: ${next}`);
  if (next && visited.has(next)) throw new PageShapeError(`Link rel="next" loops back to ${next}`);
  const listings = json.map(toSpaceListing);
  const ids = listings.filter((l) => l.status !== 'invalid').map((l) => l.itemId);
  return { listings, nextCursor: next ? (new URL(next).searchParams.get('cursor') ?? next) : null, data: { next, ids } };
}

/** The MCP endpoint of a Space, only for a RUNNING Gradio Space with a valid subdomain (its own, or its READY domain's). */
export function spaceEndpoint(item: Record<string, unknown>): string | null {
  const runtime = isObject(item.runtime) ? item.runtime : {};
  const stage = str(runtime.stage);
  if (str(item.sdk) !== 'gradio' || stage !== 'RUNNING' || item.disabled === true) return null;
  const subdomain = str(item.subdomain) ?? readyDomainLabel(runtime.domains);
  if (!subdomain || !SUBDOMAIN.test(subdomain)) return null;
  return `https://${subdomain.toLowerCase()}.hf.space/gradio_api/mcp/`;
}

/** The label of the first READY `runtime.domains` entry of the form `<label>.hf.space`, or null. */
function readyDomainLabel(domains: unknown): string | null {
  if (!Array.isArray(domains)) return null;
  for (const d of domains) {
    if (!isObject(d) || str(d.stage) !== 'READY') continue;
    const m = /^([^.]+)\.hf\.space$/i.exec(str(d.domain) ?? '');
    if (m) return m[1]!;
  }
  return null;
}

export function toSpaceListing(item: unknown): ListingDraft {
  const base = invalidDraft(boundedRaw(item), 'mcp');
  if (!isObject(item)) return { ...base, invalidReason: 'item is not an object' };
  const id = str(item.id);
  if (!id || !/^[^/\s]+\/[^/\s]+$/.test(id)) return { ...base, invalidReason: 'Space has no "id" of the form owner/name' };
  const card = isObject(item.cardData) ? item.cardData : {};
  const endpointUrl = spaceEndpoint(item);
  const draft = activeDraft(base, id, {
    name: str(card.title),
    description: str(card.short_description),
    version: str(item.sha),
    endpointUrl,
    endpointTransport: endpointUrl ? 'streamable-http' : null,
    updatedAt: str(item.lastModified),
  });
  if (item.private === true)
    return { ...draft, endpointUrl: null, endpointTransport: null, status: 'invalid', invalidReason: 'private Space' };
  return draft;
}
