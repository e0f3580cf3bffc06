/**
 * The MCP transport probe: one GET with `Accept: text/event-stream`, read at most 2 KB, close.
 * On 401 or 403 the RFC 9728 protected-resource metadata is fetched too: from the
 * `resource_metadata` parameter of WWW-Authenticate when present (checked by the same SSRF
 * guard as every request), else `/.well-known/oauth-protected-resource` + the endpoint's path
 * (RFC 9728 §3.1), then the origin-level well-known URL.
 *
 * Observations only: whether the server is up or conformant is decided by processors.
 */
import { fetchBounded, type FetchOptions } from '../../http/client.js';
import { MCP_BODY_WINDOW_MS, MCP_MAX_BYTES, METADATA_MAX_BYTES } from '../../http/limits.js';
import { parseProbeUrl } from '../../http/ssrf-guard.js';
import { hasCompleteSseEvent, isEventStream } from '../../core/sse.js';
import { jsonObjectOrNull } from '../../util/text.js';
import type { Exchange } from '../../http/types.js';

export { hasCompleteSseEvent } from '../../core/sse.js';

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export type McpProbeOptions = Omit<FetchOptions, 'accept' | 'maxBytes' | 'overCap' | 'stopWhen' | 'bodyWindowMs'> & {
  /** Bytes read from the GET; default MCP_MAX_BYTES (2 KB). */
  maxBytes?: number;
  /** How long the body is read after the headers; default MCP_BODY_WINDOW_MS. */
  bodyWindowMs?: number;
  /** Cap on each metadata read; default METADATA_MAX_BYTES. */
  metadataMaxBytes?: number;
  /** Follow redirects on the MCP GET; default false (one GET; a 3xx is itself the observation). */
  followRedirects?: boolean;
};

export type MetadataSource = 'www-authenticate' | 'path' | 'root';

export interface McpProbeResult {
  /** The MCP GET (its redirect hops too, when following is enabled). */
  exchanges: Exchange[];
  /** The last exchange of the MCP GET. */
  final: Exchange;
  /** Final exchange of the metadata document that was found, or of the last one tried. */
  metadata?: Exchange;
  /** Where `metadata` came from. */
  metadataSource?: MetadataSource;
  /** Every metadata exchange, in order (empty unless the GET answered 401/403). */
  metadataExchanges: Exchange[];
}

/**
 * The `resource_metadata` parameter of a WWW-Authenticate header (any challenge), unescaped,
 * or null. Bounded: the header is already capped by the client.
 */
export function resourceMetadataFromWwwAuthenticate(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /(?:^|[\s,])resource_metadata\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/i.exec(header);
  if (!m) return null;
  const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? '');
  return raw === '' ? null : raw;
}

/** Candidate metadata URLs for an endpoint without a resource_metadata parameter (RFC 9728 §3.1). */
export function protectedResourceMetadataUrls(endpoint: string): Array<{ url: string; source: MetadataSource }> {
  const parsed = parseProbeUrl(endpoint);
  if (!parsed.ok) return [];
  const u = parsed.url;
  const root = new URL(PROTECTED_RESOURCE_WELL_KNOWN, u.origin).href;
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const out: Array<{ url: string; source: MetadataSource }> = [];
  if (path !== '' || u.search !== '') {
    out.push({ url: `${u.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}${u.search}`, source: 'path' });
  }
  out.push({ url: root, source: 'root' });
  return out;
}

export async function probeMcpEndpoint(url: string, opts: McpProbeOptions): Promise<McpProbeResult> {
  const { metadataMaxBytes, ...rest } = opts;
  const get = await fetchBounded(url, {
    ...rest,
    accept: 'text/event-stream',
    maxBytes: opts.maxBytes ?? MCP_MAX_BYTES,
    overCap: 'truncate',
    followRedirects: opts.followRedirects ?? false,
    bodyWindowMs: opts.bodyWindowMs ?? MCP_BODY_WINDOW_MS,
    stopWhen: (body, headers) => isEventStream(headers) && hasCompleteSseEvent(body),
  });
  const result: McpProbeResult = { exchanges: get.exchanges, final: get.final, metadataExchanges: [] };
  if (get.final.status !== 401 && get.final.status !== 403) return result;

  const candidates: Array<{ url: string; source: MetadataSource }> = [];
  const fromHeader = resourceMetadataFromWwwAuthenticate(get.final.headers['www-authenticate']);
  if (fromHeader !== null) {
    let resolved: string;
    try {
      resolved = new URL(fromHeader, get.final.url).href;
    } catch {
      resolved = fromHeader;
    }
    candidates.push({ url: resolved, source: 'www-authenticate' });
  } else {
    candidates.push(...protectedResourceMetadataUrls(get.final.url));
  }

  const metaOpts: FetchOptions = {
    ...rest,
    accept: 'application/json',
    maxBytes: metadataMaxBytes ?? METADATA_MAX_BYTES,
    overCap: 'error',
    followRedirects: true,
  };
  for (const c of candidates) {
    const res = await fetchBounded(c.url, metaOpts);
    result.metadataExchanges.push(...res.exchanges);
    result.metadata = res.final;
    result.metadataSource = c.source;
    if (res.final.status === 200 && res.final.errorClass === null && jsonObjectOrNull(res.final) !== null) break;
  }
  return result;
}
