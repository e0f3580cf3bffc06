import { createHash } from 'node:crypto';
import { getDomain } from 'tldts';

/**
 * Dedupe keys (Methods §1): MCP servers by the normalized endpoint URL; A2A
 * agents by the normalized agent-card URL with the well-known suffix removed
 * (or the endpoint when there is no card). This is the one normalization used
 * everywhere a URL becomes an identity.
 */

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
const WELL_KNOWN_CARD = /\/\.well-known\/(?:agent-card|agent)\.json$/i;
// RFC 3986 §2.3 unreserved characters never need percent-encoding.
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Decodes percent-encoded unreserved characters and upper-cases the remaining escapes (RFC 3986 §6.2.2). */
function normalizePercentEncoding(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/**
 * Normalizes an http(s) URL for identity: scheme and host case, default port,
 * trailing slashes, percent-encoding and fragment. The query string is kept.
 * Returns null for anything that is not an absolute http(s) URL.
 */
export function normalizeUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  // WHATWG URL already lower-cases scheme and host; a default port is already dropped,
  // but an explicit one survives in some spellings, so clear it explicitly.
  if (url.port === DEFAULT_PORTS[url.protocol]) url.port = '';
  let path = normalizePercentEncoding(url.pathname).replace(/\/{2,}/g, '/');
  path = path.replace(/\/+$/, '');
  const query = url.search ? normalizePercentEncoding(url.search) : '';
  return `${url.protocol}//${url.host}${path}${query}`;
}

export type Protocol = 'a2a' | 'mcp';

/** The dedupe key of an agent, or null when no usable URL was given. */
export function agentKey(protocol: Protocol, urls: { cardUrl?: string | null; endpointUrl?: string | null }): string | null {
  if (protocol === 'a2a') {
    const card = urls.cardUrl ? normalizeUrl(urls.cardUrl) : null;
    if (card) {
      // The origin (or base path) a card describes, whichever well-known spelling was listed.
      const stripped = card.includes('?') ? card : card.replace(WELL_KNOWN_CARD, '');
      return stripped;
    }
    return urls.endpointUrl ? normalizeUrl(urls.endpointUrl) : null;
  }
  return urls.endpointUrl ? normalizeUrl(urls.endpointUrl) : null;
}

/** A stable short id for URLs and API paths, derived from the key alone. */
export function agentId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** The registrable domain (site) a URL belongs to, per the public-suffix list; the host for IPs and unknown suffixes. */
export function siteOf(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return '';
  }
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}
