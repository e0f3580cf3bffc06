import { activeDraft, asInvalid, boundedRaw, httpUrl, invalidDraft, isObject, str } from './item.js';
import { PageShapeError, type CrawlOptions, type CrawlResult, type ListingDraft, type ListingSource, type SourceIO } from './types.js';

/**
 * The open-source A2A registry at a2aregistry.org (repo prassanna-ravishankar/a2a-registry):
 * `GET /api/agents?limit=&offset=` → `{ agents, total, limit, offset }`; `limit` is capped
 * at 100 by the server, so the next offset advances by what came back, not by what was
 * asked. Items are agent cards plus registry fields: card URL `wellKnownURI`, endpoint
 * `url`. No incremental read: a daily full pass. Offset paging shifts when agents are
 * added or removed mid-pass, so a pass whose `total` moved is not trusted for delisting.
 */
export const A2AREGISTRY_ORG = 'a2aregistry-org';
const PAGE_LIMIT = 100;

export function createA2aRegistryOrgSource(): ListingSource {
  return {
    name: A2AREGISTRY_ORG,
    protocol: 'a2a',
    defaultBaseUrl: 'https://a2aregistry.org/api',
    pageSize: PAGE_LIMIT,
    crawl: crawlA2aRegistryOrg,
  };
}

async function crawlA2aRegistryOrg(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  io.setMode('full');
  let offset = 0;
  let firstTotal: number | null = null;
  let lastTotal: number | null = null;
  for (;;) {
    const url = `${opts.baseUrl}/agents?limit=${PAGE_LIMIT}&offset=${offset}`;
    const outcome = await io.page({ url, cursor: String(offset) }, parsePaginatedAgents);
    if (!outcome.ok) return { complete: false, mode: 'full', state: opts.state };
    const { total, count } = outcome.page.data as { total: number; count: number };
    firstTotal ??= total;
    lastTotal = total;
    offset += count;
    if (count === 0 || offset >= total) break;
  }
  if (firstTotal !== lastTotal) {
    io.note(`the listing changed during the pass (total ${firstTotal} → ${lastTotal}); nothing delisted this run`);
    return { complete: true, mode: 'full', state: opts.state, coverage: 'part' };
  }
  return { complete: true, mode: 'full', state: opts.state, coverage: 'all' };
}

/** One `PaginatedAgents` page; a wrong page shape throws PageShapeError. */
export function parsePaginatedAgents(json: unknown) {
  if (!isObject(json) || !Array.isArray(json.agents)) throw new PageShapeError('expected an object with an "agents" array');
  if (typeof json.total !== 'number' || !Number.isFinite(json.total)) throw new PageShapeError('expected a numeric "total"');
  const listings = json.agents.map(toA2aRegistryOrgListing);
  return { listings, nextCursor: null, data: { total: json.total, count: json.agents.length } };
}

/** One `AgentPublic` → a listing draft. */
export function toA2aRegistryOrgListing(item: unknown): ListingDraft {
  const base = invalidDraft(boundedRaw(item), 'a2a');
  if (!isObject(item)) return { ...base, invalidReason: 'item is not an object' };
  const id = str(item.id);
  if (!id) return { ...base, invalidReason: 'item has no "id"' };
  const cardUrl = httpUrl(item.wellKnownURI);
  const endpointUrl = httpUrl(item.url);
  const draft = activeDraft(base, id, {
    name: str(item.name),
    description: str(item.description),
    version: str(item.version),
    cardUrl,
    endpointUrl,
    endpointTransport: str(item.preferredTransport)?.toLowerCase() ?? null,
    updatedAt: str(item.updated_at),
  });
  if (item.hidden === true) return asInvalid(draft, 'hidden by the registry');
  if (!cardUrl && !endpointUrl) return asInvalid(draft, 'no http(s) wellKnownURI (agent card) or url (endpoint)');
  return draft;
}
