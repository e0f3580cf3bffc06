import { boundedRaw, hashOf, isObject } from './runner.js';
import { PageShapeError, type CrawlOptions, type CrawlResult, type ListingDraft, type ListingSource, type SourceIO } from './types.js';

/**
 * The official MCP Registry (API v0.1): latest version of every server.json.
 * Daily incremental reads with `updated_since` (the registry then includes
 * deleted rows, which tombstone their listing); a full resync every 7 days or
 * on demand. Paging follows the opaque `metadata.nextCursor` verbatim.
 */
export const MCP_REGISTRY = 'mcp-registry';
const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const PAGE_LIMIT = 100;
export const FULL_RESYNC_EVERY_MS = 7 * 24 * 3600 * 1000;

export function createMcpRegistrySource(): ListingSource {
  return {
    name: MCP_REGISTRY,
    protocol: 'mcp',
    defaultBaseUrl: 'https://registry.modelcontextprotocol.io',
    crawl: crawlMcpRegistry,
  };
}

async function crawlMcpRegistry(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  const startedAt = io.now();
  const lastFull = opts.state.lastFullAt ?? 0;
  const full = opts.full || !opts.state.watermark || startedAt - lastFull >= FULL_RESYNC_EVERY_MS;
  const mode = full ? 'full' : 'incremental';
  io.setMode(mode);
  let watermark = full ? undefined : opts.state.watermark;
  let maxUpdated = opts.state.watermark;

  let cursor: string | null = null;
  for (;;) {
    const params = new URLSearchParams({ limit: String(PAGE_LIMIT), version: 'latest' });
    if (watermark) params.set('updated_since', watermark);
    if (cursor) params.set('cursor', cursor);
    const url = `${opts.baseUrl}/v0.1/servers?${params.toString()}`;
    const outcome = await io.page({ url, cursor }, parseServerList);
    if (!outcome.ok) return { complete: false, mode, state: opts.state };
    for (const l of outcome.page.listings) {
      if (l.updatedAt && (!maxUpdated || l.updatedAt > maxUpdated)) maxUpdated = l.updatedAt;
    }
    cursor = outcome.page.nextCursor ?? null;
    if (!cursor) break;
  }
  watermark = maxUpdated;
  return {
    complete: true,
    mode,
    state: { ...opts.state, watermark, lastFullAt: full ? startedAt : lastFull },
  };
}

/** Parses one page of GET /v0.1/servers into listing drafts; a wrong page shape throws PageShapeError. */
export function parseServerList(json: unknown): { listings: ListingDraft[]; nextCursor: string | null } {
  if (!isObject(json) || !Array.isArray(json.servers)) {
    throw new PageShapeError('expected an object with a "servers" array');
  }
  const meta = isObject(json.metadata) ? json.metadata : {};
  const next = typeof meta.nextCursor === 'string' && meta.nextCursor !== '' ? meta.nextCursor : null;
  const listings: ListingDraft[] = [];
  for (const entry of json.servers) {
    const draft = toListing(entry);
    if (draft) listings.push(draft);
  }
  return { listings, nextCursor: next };
}

/** One registry entry → a listing draft; invalid entries are kept as `invalid` with a reason. Non-latest versions are skipped. */
export function toListing(entry: unknown): ListingDraft | null {
  const { raw, rawTruncated } = boundedRaw(entry);
  const invalid = (itemId: string, reason: string): ListingDraft => ({
    itemId,
    protocol: 'mcp',
    name: '',
    description: '',
    version: null,
    endpointUrl: null,
    endpointTransport: null,
    cardUrl: null,
    serverJson: null,
    status: 'invalid',
    invalidReason: reason,
    updatedAt: null,
    raw,
    rawTruncated,
  });
  if (!isObject(entry) || !isObject(entry.server)) return invalid(`invalid:${hashOf(raw)}`, 'entry has no "server" object');
  const server = entry.server;
  const official = isObject(entry._meta) && isObject(entry._meta[OFFICIAL_META]) ? entry._meta[OFFICIAL_META] : {};
  const name = server.name;
  if (typeof name !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(name)) {
    return invalid(`invalid:${hashOf(raw)}`, 'server.name is missing or not of the form namespace/name');
  }
  if (official.isLatest === false) return null;
  const missing = ['version', 'description'].filter((k) => typeof server[k] !== 'string');
  if (missing.length > 0) return invalid(name, `server.json lacks required string field(s): ${missing.join(', ')}`);

  const status = typeof official.status === 'string' ? official.status : 'active';
  const remote = pickRemote(server.remotes);
  return {
    itemId: name,
    protocol: 'mcp',
    name: typeof server.title === 'string' && server.title ? server.title : name,
    description: server.description as string,
    version: server.version as string,
    endpointUrl: remote?.url ?? null,
    endpointTransport: remote?.type ?? null,
    cardUrl: null,
    serverJson: JSON.stringify(server),
    status: status === 'deleted' ? 'deleted' : status === 'deprecated' ? 'deprecated' : 'active',
    invalidReason: null,
    updatedAt: typeof official.updatedAt === 'string' ? official.updatedAt : null,
    raw,
    rawTruncated,
  };
}

/** The remote an MCP server is reached at: the first streamable-http remote, else the first SSE one. */
export function pickRemote(remotes: unknown): { type: string; url: string } | null {
  if (!Array.isArray(remotes)) return null;
  const valid = remotes.filter(
    (r): r is { type: string; url: string } => isObject(r) && typeof r.type === 'string' && typeof r.url === 'string',
  );
  return valid.find((r) => r.type === 'streamable-http') ?? valid.find((r) => r.type === 'sse') ?? null;
}
