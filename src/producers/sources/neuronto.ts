import { pickRemote } from './mcp-registry.js';
import { activeDraft, asInvalid, boundedRaw, httpUrl, invalidDraft, isObject, str } from './item.js';
import { redactCursor } from './cursor.js';
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
 * Neuronto's open agent feed (an ARD registry): `GET /agents?pageSize=&pageToken=&orderBy=` →
 * `{ items: [catalogEntry], totalSize, nextPageToken }` (neuronto/agentic-resource-discovery
 * app/main.py `agents_endpoint`); `{ total, pageToken }` is read too. The token is followed
 * verbatim (Neuronto's is the next offset as a decimal string, "20"; a number is taken as its
 * decimal text), no token = the end. Pages are asked in `created_at` order: the default order
 * is by display name, where every agent added mid-sweep shifts the offsets of all after it.
 * Entries carry no `updatedAt` and no `data` (keys whose value is null are dropped): an entry
 * is listed with its card URL (`url`), and with an endpoint only when `data` names one.
 * The feed is large, so it is read as a rolling sweep: at most the page budget (400 by
 * default) per run, resuming next run at the token where this one stopped. Only when a
 * sweep reaches the end has the whole feed been seen (and only then is anything delisted).
 *
 * Entries are MCP server cards and A2A agent cards, told apart by their media type
 * (matched leniently: Neuronto normalises several spellings); other kinds (skills, APIs)
 * are not agents and are passed over. A page token the pass already followed fails the page
 * (a loop would spend the whole page budget every run).
 */
export const NEURONTO = 'neuronto';
const PAGE_SIZE = 100;
export const NEURONTO_PAGES_PER_RUN = 400;

export function createNeurontoSource(): ListingSource {
  return {
    name: NEURONTO,
    protocol: 'mixed',
    defaultBaseUrl: 'https://neuronto.com',
    pageSize: PAGE_SIZE,
    defaultMaxPages: NEURONTO_PAGES_PER_RUN,
    crawl: crawlNeuronto,
  };
}

async function crawlNeuronto(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  io.setMode('rolling');
  const resumeFrom = opts.full ? null : str(opts.state.sweepToken);
  let token = resumeFrom;
  const sweepStartedAt = token && typeof opts.state.sweepStartedAt === 'number' ? opts.state.sweepStartedAt : io.now();
  let pages = 0;
  const followed = new Set<string>(token ? [token] : []);
  for (;;) {
    if (io.pagesLeft() === 0) {
      io.note(`rolling sweep paused after ${pages} page(s) this run; it resumes there next run`);
      return {
        complete: true,
        mode: 'rolling',
        state: { ...opts.state, sweepToken: token, sweepStartedAt },
        coverage: 'sweep-continues',
      };
    }
    const url = `${opts.baseUrl}/agents?pageSize=${PAGE_SIZE}&orderBy=created_at${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const outcome = await io.page({ url, cursor: token }, (json) => {
      const page = parseArdList(json);
      const next = page.nextCursor ?? null;
      if (next !== null && followed.has(next)) {
        throw new PageShapeError(`cursor repeated: pageToken ${redactCursor(next).slice(0, 100)} was already followed in this pass`);
      }
      return page;
    });
    if (!outcome.ok) {
      const status = outcome.response?.status ?? null;
      const stale = pages === 0 && resumeFrom !== null && status !== null && status >= 400 && status < 500 && status !== 429;
      if (stale) io.note('the stored page token was refused; the next run starts the sweep again from the beginning');
      return {
        complete: false,
        mode: 'rolling',
        state: opts.state,
        progressState: stale
          ? { ...opts.state, sweepToken: null, sweepStartedAt: null }
          : { ...opts.state, sweepToken: token, sweepStartedAt },
      };
    }
    pages += 1;
    token = outcome.page.nextCursor ?? null;
    if (token) followed.add(token);
    if (!token) {
      return {
        complete: true,
        mode: 'rolling',
        state: { ...opts.state, sweepToken: null, sweepStartedAt: null, lastSweepDoneAt: io.now() },
        coverage: 'sweep-done',
      };
    }
  }
}

/** One ARD ListResponse page; a wrong page shape throws PageShapeError. */
export function parseArdList(json: unknown): ParsedPage {
  if (!isObject(json) || !Array.isArray(json.items)) throw new PageShapeError('expected an object with an "items" array');
  const next = tokenText(json.nextPageToken) ?? tokenText(json.pageToken);
  const listings: ListingDraft[] = [];
  for (const item of json.items) {
    const draft = toNeurontoListing(item);
    if (draft) listings.push(draft);
  }
  return { listings, nextCursor: next, itemCount: listings.length };
}

/** A page token as sent (a string, or a non-negative integer as its decimal text), or null. */
function tokenText(v: unknown): string | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? String(v) : null;
  return typeof v === 'string' && v !== '' ? v : null;
}

/** An ARD media type → the protocol of the card it names, or null for anything that is not an agent. */
export function kindOfMediaType(type: unknown): 'mcp' | 'a2a' | null {
  if (typeof type !== 'string') return null;
  const t = type
    .split(';')[0]!
    .trim()
    .toLowerCase()
    .replace(/^application\//, '')
    .replace(/^vnd\./, '')
    .replace(/\+json$/, '');
  const words = t.split(/[^a-z0-9]+/).filter(Boolean);
  if (words.includes('mcp') && (words.includes('server') || words.includes('card'))) return 'mcp';
  if (words.includes('a2a') || (words.includes('agent') && words.includes('card'))) return 'a2a';
  return null;
}

/** One catalogEntry → a listing draft; null for entries that are not MCP servers or A2A agents. */
export function toNeurontoListing(item: unknown): ListingDraft | null {
  const base = invalidDraft(boundedRaw(item), 'mcp');
  if (!isObject(item)) return { ...base, invalidReason: 'entry is not an object' };
  const kind = kindOfMediaType(item.type);
  if (!kind) return null;
  const id = str(item.identifier);
  if (!id) return { ...base, protocol: kind, invalidReason: 'entry has no "identifier"' };
  const data = isObject(item.data) ? item.data : {};
  let endpointUrl: string | null;
  let endpointTransport: string | null;
  if (kind === 'mcp') {
    const remote = pickRemote(data.remotes);
    endpointUrl = remote ? remote.url : (httpUrl(data.endpoint) ?? httpUrl(data.url));
    endpointTransport = remote?.type ?? (endpointUrl ? 'streamable-http' : null);
  } else {
    endpointUrl = httpUrl(data.url);
    endpointTransport = str(data.preferredTransport)?.toLowerCase() ?? null;
  }
  const cardUrl = httpUrl(item.url);
  const draft = activeDraft(base, id, {
    protocol: kind,
    name: str(item.displayName),
    description: str(item.description),
    version: str(item.version),
    endpointUrl,
    endpointTransport,
    cardUrl,
    updatedAt: str(item.updatedAt),
  });
  if (!cardUrl && !endpointUrl) return asInvalid(draft, 'no http(s) card URL ("url") or endpoint');
  return draft;
}
