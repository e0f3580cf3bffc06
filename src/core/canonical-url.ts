/**
 * The one URL and host canonicaliser. It lives here because the conformance rules, which are
 * pure and import nothing outside src/conformance, need it too; everything else reaches it
 * through src/identity/agent-key.ts.
 */
import ipaddr from 'ipaddr.js';
import { parseIp } from './ip-ranges.js';

/**
 * The canonical form of a URL host: lowercase, brackets and trailing dots removed, IPv6
 * compressed, and legacy IPv4 spellings (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1,
 * short 127.1) turned into dotted decimal. Returns null when the host is not valid.
 */
export function canonicalHost(host: string): string | null {
  let h = host.trim();
  if (h === '') return null;
  const bracketed = h.startsWith('[') && h.endsWith(']');
  const inner = bracketed ? h.slice(1, -1) : h;
  if (inner.includes(':')) {
    const p = parseIp(inner);
    return p && p.kind() === 'ipv6' ? p.toString() : null;
  }
  try {
    h = new URL(`http://${inner}/`).hostname;
  } catch {
    return null;
  }
  h = h.toLowerCase().replace(/\.+$/, '');
  if (h === '') return null;
  // After the trailing dots are gone a host may read as an IPv4 literal in a legacy spelling.
  if (/^[0-9a-fx.]+$/i.test(h) && ipaddr.IPv4.isValid(h)) {
    try {
      return ipaddr.IPv4.parse(h).toString();
    } catch {
      return h;
    }
  }
  return h;
}

/**
 * A host as a lookup key: its canonical form, or for text that is no valid host the same
 * spelling rules (trimmed, lowercase, no brackets, no trailing dots), so it never fails.
 */
export function hostKey(host: string): string {
  return (
    canonicalHost(host) ??
    host
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.+$/, '')
  );
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
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
