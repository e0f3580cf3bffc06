import { SOURCE_LIMITS } from './limits.js';
import { activeDraft, boundedRaw, httpUrl, invalidDraft, isObject, str } from './item.js';
import {
  PageShapeError,
  type CrawlOptions,
  type CrawlResult,
  type ListingDraft,
  type ListingSource,
  type ParsedPage,
  type SourceIO,
} from './types.js';

/**
 * Smithery's registry (`registry.smithery.ai`): `GET /servers?page=&pageSize=` →
 * `{ servers: [...], pagination: { currentPage, pageSize, totalPages, totalCount } }`.
 * We read the first 10 pages an anonymous client can read (the page budget is the window).
 *
 * The list carries no endpoint: for each server that may have one, the detail call
 * `GET /servers/{qualifiedName}` gives `connections[]` (`type: http` → `deploymentUrl`).
 * A list item that already carries a `deploymentUrl` needs no detail call, and one that is
 * neither deployed nor remote has no endpoint to find.
 *
 * The docs say reads need a Bearer key, public clients read anonymously up to a cap: a 401
 * is recorded as `unauthorized` (the pass fails, nothing is read as empty), and a list that
 * ends before the pages it announced is recorded as a `truncated` notice on that page.
 *
 * The qualifiedName becomes a path of the detail call, so only names of the shape Smithery
 * uses — `name` or `owner/name` (the owner usually `@owner`) — are read; anything else (more
 * segments, an empty, `.` or `..` segment, also percent-encoded like `%2e%2e`) is an `invalid`
 * listing with the reason, and no request is made for it.
 */
export const SMITHERY = 'smithery';
export const SMITHERY_WINDOW_PAGES = 10;
const PAGE_SIZE = 100;

export function createSmitherySource(): ListingSource {
  return {
    name: SMITHERY,
    protocol: 'mcp',
    defaultBaseUrl: 'https://registry.smithery.ai',
    pageSize: PAGE_SIZE,
    defaultMaxPages: SMITHERY_WINDOW_PAGES,
    crawl: crawlSmithery,
  };
}

interface ServersPage {
  pending: Array<{ item: Record<string, unknown>; draft: ListingDraft }>;
  count: number;
  totalPages: number | null;
  totalCount: number | null;
}

/**
 * Why a qualifiedName cannot be a detail path, or null when it can: at most
 * SOURCE_LIMITS.itemIdMaxChars long, one or two segments
 * (`name`, `owner/name`), none of them empty, `.` or `..` once percent-decoded, none holding a
 * backslash, whitespace or a control character.
 */
export function qualifiedNameProblem(qn: string): string | null {
  if (qn.length > SOURCE_LIMITS.itemIdMaxChars)
    return `qualifiedName is ${qn.length} characters long, over the ${SOURCE_LIMITS.itemIdMaxChars}-character cap`;
  const segments = qn.split('/');
  if (segments.length > 2) return `qualifiedName has ${segments.length} path segments; expected "name" or "owner/name"`;
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'qualifiedName holds an invalid percent-encoding';
    }
    if (decoded === '' || decoded === '.' || decoded === '..')
      return `qualifiedName has an empty, "." or ".." segment; expected "name" or "owner/name"`;
    // eslint-disable-next-line no-control-regex -- a control character in a segment is rejected
    if (/[\\/\s\u0000-\u001f\u007f]/.test(decoded))
      return 'qualifiedName holds a slash, backslash, whitespace or control character inside a segment';
  }
  return null;
}

/** `@owner/name` stays readable in the path; every other reserved character is escaped. */
export function detailPath(qualifiedName: string): string {
  return qualifiedName
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/^%40/, '@'))
    .join('/');
}

async function crawlSmithery(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  io.setMode('window');
  let coverage: 'all' | 'part' = 'part';
  for (let page = 1; ; page++) {
    if (io.pagesLeft() === 0) {
      io.note(`stopped at the ${page - 1}-page window`);
      break;
    }
    const url = `${opts.baseUrl}/servers?page=${page}&pageSize=${PAGE_SIZE}`;
    const outcome = await io.page({ url, cursor: String(page) }, (json) => parseServersPage(json, page));
    if (!outcome.ok) return { complete: false, mode: 'window', state: opts.state };
    const data = outcome.page.data as ServersPage;
    for (const { item, draft } of data.pending) {
      const detail = await io.page(
        { url: `${opts.baseUrl}/servers/${detailPath(draft.itemId)}`, cursor: draft.itemId, kind: 'detail' },
        (json) => ({ listings: [withDetail(draft, item, json)] }),
      );
      // A failed detail call is recorded (and fails the pass); the server is still listed, just not re-read.
      if (!detail.ok) io.carry([draft.itemId]);
    }
    if (outcome.page.notice) break; // cut off early
    if (data.count === 0 || (data.totalPages !== null && page >= data.totalPages)) {
      coverage = 'all';
      break;
    }
  }
  return { complete: true, mode: 'window', state: opts.state, coverage };
}

/** One list page: items with a known endpoint (or none to find) are emitted; the rest wait for their detail call. */
export function parseServersPage(json: unknown, page: number): ParsedPage {
  if (!isObject(json) || !Array.isArray(json.servers)) throw new PageShapeError('expected an object with a "servers" array');
  const p = isObject(json.pagination) ? json.pagination : {};
  const num = (v: unknown) =>
    typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
  const totalPages = num(p.totalPages);
  const totalCount = num(p.totalCount);
  const listings: ListingDraft[] = [];
  const pending: ServersPage['pending'] = [];
  for (const item of json.servers) {
    const draft = toSmitheryListing(item);
    if (draft.status !== 'invalid' && isObject(item) && needsDetail(item)) pending.push({ item, draft });
    else listings.push(draft);
  }
  const data: ServersPage = { pending, count: json.servers.length, totalPages, totalCount };
  const parsed: ParsedPage = { listings, itemCount: json.servers.length, nextCursor: null, data };
  if (json.servers.length === 0 && totalPages !== null && page <= totalPages) {
    parsed.notice = {
      errorClass: 'truncated',
      message: `the listing ended at page ${page} although it announced ${totalPages} page(s)${totalCount !== null ? ` (${totalCount} servers)` : ''}: an anonymous client's cut-off`,
    };
  }
  return parsed;
}

function needsDetail(item: Record<string, unknown>): boolean {
  if (httpUrl(item.deploymentUrl)) return false;
  return !(item.isDeployed === false && item.remote !== true);
}

export function toSmitheryListing(item: unknown): ListingDraft {
  const base = invalidDraft(boundedRaw(item), 'mcp');
  if (!isObject(item)) return { ...base, invalidReason: 'item is not an object' };
  const qn = str(item.qualifiedName);
  if (!qn || /\s/.test(qn)) return { ...base, invalidReason: 'server has no "qualifiedName"' };
  const problem = qualifiedNameProblem(qn);
  if (problem) return { ...base, invalidReason: problem };
  const endpointUrl = httpUrl(item.deploymentUrl);
  return activeDraft(base, qn, {
    name: str(item.displayName),
    description: str(item.description),
    endpointUrl,
    endpointTransport: endpointUrl ? 'streamable-http' : null,
  });
}

/** The list item's draft completed by its detail document (the endpoint from `connections[]`). */
export function withDetail(draft: ListingDraft, item: Record<string, unknown>, detail: unknown): ListingDraft {
  if (!isObject(detail)) throw new PageShapeError('expected a server detail object');
  const { raw, rawTruncated } = boundedRaw({ list: item, detail });
  const conns = Array.isArray(detail.connections) ? detail.connections.filter(isObject) : [];
  const http = conns.find((c) => (c.type === 'http' || c.type === 'streamable-http') && (httpUrl(c.deploymentUrl) ?? httpUrl(c.url)));
  const endpointUrl = http
    ? (httpUrl(http.deploymentUrl) ?? httpUrl(http.url))
    : detail.remote === true
      ? httpUrl(detail.deploymentUrl)
      : null;
  return {
    ...draft,
    name: str(detail.displayName) ?? draft.name,
    description: str(detail.description) ?? draft.description,
    endpointUrl,
    endpointTransport: endpointUrl ? 'streamable-http' : null,
    raw,
    rawTruncated,
  };
}
