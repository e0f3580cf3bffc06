import { activeDraft, asInvalid, boundedRaw, httpUrl, invalidDraft, isObject, str } from './item.js';
import { PageShapeError, type CrawlOptions, type CrawlResult, type ListingDraft, type ListingSource, type SourceIO } from './types.js';

/**
 * The open-source A2A registry at a2aregistry.org (repo prassanna-ravishankar/a2a-registry):
 * `GET /api/agents?limit=&offset=` → `{ agents, total, limit, offset }`; `limit` is capped
 * at 100 by the server, so the next offset advances by what came back, not by what was
 * asked. Items are agent cards plus registry fields: card URL `wellKnownURI`, endpoint
 * `url`. No incremental read: a daily full pass. Offset paging shifts when agents are
 * added or removed mid-pass, so a pass whose `total` moved is not trusted for delisting.
 *
 * `total` may be missing: the website falls back to a static `{agents}` document (and the
 * old `registry.json` was `{version, generated, count, agents}`), which is the whole list
 * and ignores `offset`. Without a total the list ends at a short or empty page, or at a
 * page that adds no id not already read (a server that ignores `offset` repeats itself).
 * Ids are opaque: UUIDs from the API, slugs (`sample-claim-verification`) in the samples.
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
  let firstTotal: number | null | undefined;
  let lastTotal: number | null;
  const ids = new Set<string>();
  for (;;) {
    const url = `${opts.baseUrl}/agents?limit=${PAGE_LIMIT}&offset=${offset}`;
    const outcome = await io.page({ url, cursor: String(offset) }, (json) => {
      const page = parsePaginatedAgents(json);
      // An agent already read on an earlier page of this pass (the list shifted, or the server ignores offset) is not re-emitted.
      return { ...page, listings: page.listings.filter((l) => !ids.has(l.itemId)), itemCount: page.listings.length };
    });
    if (!outcome.ok) return { complete: false, mode: 'full', state: opts.state };
    const { total, count } = outcome.page.data as { total: number | null; count: number };
    const before = ids.size;
    for (const l of outcome.page.listings) ids.add(l.itemId);
    if (firstTotal === undefined) firstTotal = total;
    lastTotal = total;
    offset += count;
    if (count === 0 || ids.size === before) break;
    if (total !== null ? offset >= total : count < PAGE_LIMIT) break;
  }
  if (firstTotal !== lastTotal) {
    io.note(`the listing changed during the pass (total ${firstTotal} → ${lastTotal}); nothing delisted this run`);
    return { complete: true, mode: 'full', state: opts.state, coverage: 'part' };
  }
  return { complete: true, mode: 'full', state: opts.state, coverage: 'all' };
}

/** One `PaginatedAgents` page (or a static `{agents}` document: total null); a wrong page shape throws PageShapeError. */
export function parsePaginatedAgents(json: unknown) {
  if (!isObject(json) || !Array.isArray(json.agents)) throw new PageShapeError('expected an object with an "agents" array');
  if (
    json.total !== undefined &&
    json.total !== null &&
    (typeof json.total !== 'number' || !Number.isFinite(json.total) || json.total < 0)
  ) {
    throw new PageShapeError('"total" is not a count');
  }
  const total = typeof json.total === 'number' ? json.total : null;
  const listings = json.agents.map(toA2aRegistryOrgListing);
  return { listings, nextCursor: null, data: { total, count: json.agents.length } };
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
