import { boundedRaw, httpUrl, invalidDraft, isObject } from './item.js';
import { redactCursor } from './cursor.js';
import { PageShapeError, type CrawlOptions, type CrawlResult, type ListingDraft, type ListingSource, type SourceIO } from './types.js';

/**
 * The official MCP Registry (API v0.1): latest version of every server.json.
 * Daily incremental reads with `updated_since` (the registry then includes
 * deleted rows, which tombstone their listing); a full resync every 7 days or
 * on demand. Paging follows the opaque `metadata.nextCursor` verbatim (the server's own
 * spelling; the API reference's example spells it `next_cursor`, which is read too, so a
 * registry built from the docs is not cut off after page 1); a cursor the pass already
 * followed fails the page (a loop would spend the page budget every run).
 *
 * Items are read as registries really send them (../shared/corpus/sources/mcp-registry):
 * `repository` as `{"url":"","source":""}`, `{}` or absent, `$schema` of any date or empty,
 * no `updatedAt`, 3 to 6 fractional-second digits: none of these is required or interpreted.
 *
 * The watermark is the newest valid `updatedAt` of a complete pass, read as a time (not
 * compared as text), never later than the pass's start, stored as an RFC 3339 UTC time.
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
    pageSize: PAGE_LIMIT,
    crawl: crawlMcpRegistry,
  };
}

/** A time as the registry's `updated_since` takes it: RFC 3339 UTC, milliseconds only when there are some. */
export function watermarkText(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A stored or listed time as epoch ms, capped at `notAfter`; null when it is not a time. */
export function watermarkTime(value: unknown, notAfter: number): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const t = Date.parse(value);
  if (!Number.isFinite(t)) return null;
  return Math.min(t, notAfter);
}

async function crawlMcpRegistry(io: SourceIO, opts: CrawlOptions): Promise<CrawlResult> {
  const startedAt = io.now();
  const lastFull = opts.state.lastFullAt ?? 0;
  const stored = watermarkTime(opts.state.watermark, startedAt);
  const full = opts.full || stored === null || startedAt - lastFull >= FULL_RESYNC_EVERY_MS;
  const mode = full ? 'full' : 'incremental';
  io.setMode(mode);
  const since = full || stored === null ? null : watermarkText(stored);
  let maxUpdated = stored;

  let cursor: string | null = null;
  const followed = new Set<string>();
  for (;;) {
    const params = new URLSearchParams({ limit: String(PAGE_LIMIT), version: 'latest' });
    if (since) params.set('updated_since', since);
    if (cursor) params.set('cursor', cursor);
    const url = `${opts.baseUrl}/v0.1/servers?${params.toString()}`;
    const outcome = await io.page({ url, cursor }, (json) => {
      const page = parseServerList(json);
      if (page.nextCursor !== null && followed.has(page.nextCursor)) {
        throw new PageShapeError(
          `cursor repeated: metadata.nextCursor ${redactCursor(page.nextCursor).slice(0, 100)} was already followed in this pass`,
        );
      }
      return page;
    });
    if (!outcome.ok) return { complete: false, mode, state: opts.state };
    for (const l of outcome.page.listings) {
      const t = watermarkTime(l.updatedAt, startedAt);
      if (t !== null && (maxUpdated === null || t > maxUpdated)) maxUpdated = t;
    }
    cursor = outcome.page.nextCursor ?? null;
    if (!cursor) break;
    followed.add(cursor);
  }
  const { watermark: _old, ...rest } = opts.state;
  return {
    complete: true,
    mode,
    state: { ...rest, ...(maxUpdated === null ? {} : { watermark: watermarkText(maxUpdated) }), lastFullAt: full ? startedAt : lastFull },
  };
}

/** Parses one page of GET /v0.1/servers into listing drafts; a wrong page shape throws PageShapeError. */
export function parseServerList(json: unknown): { listings: ListingDraft[]; nextCursor: string | null } {
  if (!isObject(json) || !Array.isArray(json.servers)) {
    throw new PageShapeError('expected an object with a "servers" array');
  }
  const meta = isObject(json.metadata) ? json.metadata : {};
  const next = cursorText(meta.nextCursor) ?? cursorText(meta.next_cursor);
  const listings: ListingDraft[] = [];
  for (const entry of json.servers) {
    const draft = toListing(entry);
    if (draft) listings.push(draft);
  }
  return { listings, nextCursor: next };
}

/** An opaque cursor as sent (never trimmed or rewritten), or null. */
function cursorText(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** One registry entry → a listing draft; invalid entries are kept as `invalid` with a reason. Non-latest versions are skipped. */
export function toListing(entry: unknown): ListingDraft | null {
  const raw = boundedRaw(entry);
  if (!isObject(entry) || !isObject(entry.server)) return invalidDraft(raw, 'mcp', 'entry has no "server" object');
  const server = entry.server;
  const official = isObject(entry._meta) && isObject(entry._meta[OFFICIAL_META]) ? entry._meta[OFFICIAL_META] : {};
  const name = server.name;
  if (typeof name !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(name)) {
    return invalidDraft(raw, 'mcp', 'server.name is missing or not of the form namespace/name');
  }
  if (official.isLatest === false) return null;
  const missing = ['version', 'description'].filter((k) => typeof server[k] !== 'string');
  if (missing.length > 0) return invalidDraft(raw, 'mcp', `server.json lacks required string field(s): ${missing.join(', ')}`, name);

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
    raw: raw.raw,
    rawTruncated: raw.rawTruncated,
  };
}

/**
 * The remote an MCP server is reached at: the first probeable streamable-http remote, else the
 * first probeable SSE one. A remote is probeable when its URL passes `httpUrl` as it is: a URL
 * that still holds a `{…}` template (server.json allows variables, e.g. `/{tenant}/mcp`) or is not
 * http(s) names no endpoint we can request, so the server is listed without one.
 */
export function pickRemote(remotes: unknown): { type: string; url: string } | null {
  if (!Array.isArray(remotes)) return null;
  const valid: Array<{ type: string; url: string }> = [];
  for (const r of remotes) {
    if (!isObject(r) || typeof r.type !== 'string') continue;
    const url = httpUrl(r.url);
    if (url !== null) valid.push({ type: r.type, url });
  }
  return valid.find((r) => r.type === 'streamable-http') ?? valid.find((r) => r.type === 'sse') ?? null;
}
