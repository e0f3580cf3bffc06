import { sha256Hex } from '../core/canonical-json.js';
import { getDomain } from 'tldts';
import { normalizeUrl } from '../core/canonical-url.js';

// The one URL/host canonicaliser; kept in src/conformance, whose pure rules use it too.
export { canonicalHost, hostKey, normalizeUrl } from '../core/canonical-url.js';

/**
 * Dedupe keys (Methods §1): MCP servers by the normalized endpoint URL; A2A
 * agents by the normalized agent-card URL with the well-known suffix removed
 * (or the endpoint when there is no card). This is the one normalization used
 * everywhere a URL becomes an identity.
 */

const WELL_KNOWN_CARD = /\/\.well-known\/(?:agent-card|agent)\.json$/i;

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
  return sha256Hex(key).slice(0, 16);
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
