import { activeDraft, asInvalid, boundedRaw, httpUrl, invalidDraft, isObject, str } from './item.js';
import { PageShapeError, type CrawlOptions, type CrawlResult, type ListingDraft, type ListingSource, type SourceIO } from './types.js';

/**
 * The A2A Registry at api.a2a-registry.org ("Global A2A Registry"; closed source, shapes
 * from public client code): `GET /public/agents?page=N`, 1-based pages of a server-chosen
 * size, `{ agents: [...], total }` (one client also accepts `results`). No incremental read
 * and no ETag: a daily full pass. The end of the list is an empty page, a page that adds
 * no new ids (some deployments repeat the last page past the end), or `total` items read.
 */
export const A2A_REGISTRY = 'a2a-registry';

export function createA2aRegistrySource(): ListingSource {
  return {
    name: A2A_REGISTRY,
    protocol: 'a2a',
    defaultBaseUrl: 'https://api.a2a-registry.org',
    crawl: crawlA2aRegistry,
  };
}

async function crawlA2aRegistry(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  io.setMode('full');
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const url = `${opts.baseUrl}/public/agents?page=${page}`;
    const outcome = await io.page({ url, cursor: String(page) }, (json) => {
      const parsed = parseAgentsPage(json);
      // Past the end some deployments repeat the last page: keep only ids not seen yet.
      const fresh = parsed.listings.filter((l) => !ids.has(l.itemId));
      return { listings: fresh, nextCursor: null, itemCount: parsed.listings.length, data: parsed };
    });
    if (!outcome.ok) return { complete: false, mode: 'full', state: opts.state };
    const parsed = outcome.page.data as ParsedAgents;
    const before = ids.size;
    for (const l of outcome.page.listings) ids.add(l.itemId);
    if (parsed.listings.length === 0) break; // empty page
    if (ids.size === before) break; // a page with nothing new: past the end
    if (parsed.total !== null && ids.size >= parsed.total) break;
  }
  return { complete: true, mode: 'full', state: opts.state, coverage: 'all' };
}

interface ParsedAgents {
  listings: ListingDraft[];
  total: number | null;
}

/** One page of GET /public/agents; a wrong page shape throws PageShapeError. */
export function parseAgentsPage(json: unknown): ParsedAgents {
  if (!isObject(json)) throw new PageShapeError('expected an object with an "agents" (or "results") array');
  const list = Array.isArray(json.agents) ? json.agents : Array.isArray(json.results) ? json.results : null;
  if (!list) throw new PageShapeError('expected an object with an "agents" (or "results") array');
  const total = typeof json.total === 'number' && Number.isFinite(json.total) && json.total >= 0 ? json.total : null;
  return { listings: list.map(toA2aRegistryListing), total };
}

/** One catalogue entry → a listing draft (A2A: card URL from `manifestUrl`, endpoint from `url`). */
export function toA2aRegistryListing(item: unknown): ListingDraft {
  const base = invalidDraft(boundedRaw(item), 'a2a');
  if (!isObject(item)) return { ...base, invalidReason: 'item is not an object' };
  const id = str(item.id) ?? (typeof item.id === 'number' ? String(item.id) : null);
  if (!id) return { ...base, invalidReason: 'item has no "id"' };
  const cardUrl = httpUrl(item.manifestUrl) ?? httpUrl(item.manifest_url);
  const endpointUrl = httpUrl(item.url);
  const draft = activeDraft(base, id, {
    name: str(item.displayName) ?? str(item.packageName),
    description: str(item.description),
    version: str(item.version),
    cardUrl,
    endpointUrl,
    updatedAt: str(item.updatedAt) ?? str(item.updated_at),
  });
  if (item.visibility === 'private') return asInvalid(draft, 'visibility is private');
  if (!cardUrl && !endpointUrl) return asInvalid(draft, 'no http(s) manifestUrl (agent card) or url (endpoint)');
  return draft;
}
