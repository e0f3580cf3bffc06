/**
 * Is a host name or IP literal private, i.e. not a public Internet destination?
 *
 * Pure string logic: no DNS. Takes a host as `new URL(u).hostname` gives it (IPv6 in
 * brackets), or a bare IP literal; the host is canonicalised first (canonical-url.ts), so
 * decimal/hex/octal IPv4 spellings are read as the URL parser reads them. IP literals are
 * judged by the table the SSRF guard uses (ip-ranges.ts), so a host the guard would refuse is
 * a private host here and the other way round.
 *
 * Private here: unspecified, loopback, RFC 1918, link-local (incl. the 169.254.169.254 cloud
 * metadata address), CGNAT 100.64/10, IETF protocol assignments 192.0.0/24, the deprecated
 * 6to4 relay 192.88.99/24, benchmarking 198.18/15, multicast, reserved 240/4 and broadcast;
 * IPv6 unspecified, loopback, ULA fc00::/7, link-local fe80::/10, deprecated site-local
 * fec0::/10, multicast ff00::/8, discard 100::/64, NAT64 local-use 64:ff9b:1::/48, the IETF
 * protocol assignments 2001::/23 (the IPv6 counterpart of 192.0.0/24; it includes Teredo
 * 2001::/32 and the benchmarking range 2001:2::/48, the counterpart of 198.18/15) and SRv6
 * SIDs 5f00::/16 (RFC 9602) and everything outside global unicast 2000::/3, all as `reserved`;
 * the cloud metadata addresses (as `reserved` when not inside a range above); and every IPv4
 * class above when embedded in IPv6 as IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, `reserved` even when what it carries is
 * public), NAT64 (64:ff9b::/96) or 6to4 (2002::/16).
 * Host names: localhost and *.localhost, *.local, *.internal, *.lan, *.home.arpa, *.intranet,
 * *.corp, *.localdomain, and single-label names.
 *
 * Documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20 of
 * RFC 9637) and the
 * reserved example names (example.com/.net/.org, *.example, *.test, *.invalid) are
 * reported as `placeholder`.
 */
import { hostKey } from './canonical-url.js';
import { classifyIp, type IpClass, type IpRange, type Ipv4Carrier } from './ip-ranges.js';

export type HostClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'reserved'
  | 'local-name'
  | 'placeholder';

export interface HostVerdict {
  class: HostClass;
  /** The IPv6 wrapper when an IPv4 class was found inside an IPv6 address. */
  via?: 'ipv4-mapped' | 'ipv4-translated' | 'ipv4-compatible' | 'nat64' | '6to4';
}

const HOST_CLASS: Record<Exclude<IpRange, Ipv4Carrier>, HostClass | null> = {
  public: null,
  unspecified: 'unspecified',
  private: 'private',
  cgnat: 'cgnat',
  loopback: 'loopback',
  'link-local': 'link-local',
  reserved: 'reserved',
  documentation: 'placeholder',
  benchmarking: 'reserved',
  multicast: 'multicast',
  broadcast: 'reserved',
  'unique-local': 'unique-local',
  'site-local': 'site-local',
};

/** The class of an address that is no carrier; a metadata address in a public range is reserved. */
function plainClass(c: IpClass): HostClass | null {
  const cls = HOST_CLASS[c.range as Exclude<IpRange, Ipv4Carrier>] ?? null;
  return cls === null && c.cloudMetadata ? 'reserved' : cls;
}

/** The verdict on an IP literal, from the table shared with the SSRF guard. */
function classifyIpHost(c: IpClass): HostVerdict | null {
  if (c.public) return null;
  if (!c.carried) return { class: plainClass(c) ?? 'reserved' };
  // Teredo sits in 2001::/23 (IETF protocol assignments): reserved, whatever it carries.
  if (c.range === 'teredo') return { class: 'reserved' };
  const via = c.range as NonNullable<HostVerdict['via']>;
  return { class: plainClass(c.carried) ?? 'reserved', via };
}

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa', '.intranet', '.corp', '.localdomain'];
const PLACEHOLDER_SUFFIXES = ['.example', '.test', '.invalid'];
const PLACEHOLDER_NAMES = new Set(['example.com', 'example.net', 'example.org', 'example']);
const PLACEHOLDER_LABEL = /^your[-_]?(domain|server|host|hostname|site|app|company|mcp|api|org)\b/;

/** Classifies a host; null means public (as far as a string can tell). */
export function classifyHost(hostname: string): HostVerdict | null {
  const h = hostKey(hostname);
  if (h === '') return { class: 'placeholder' };
  const ip = classifyIp(h);
  if (ip) return classifyIpHost(ip);
  if (h.includes(':')) return { class: 'reserved' }; // not a valid IPv6 literal: not a real host
  if (/^[\d.]+$/.test(h)) return { class: 'reserved' }; // numeric but not a dotted quad: not a real host
  if (h === 'localhost') return { class: 'loopback' };
  if (PLACEHOLDER_NAMES.has(h)) return { class: 'placeholder' };
  for (const s of PLACEHOLDER_SUFFIXES) if (h.endsWith(s)) return { class: 'placeholder' };
  for (const n of PLACEHOLDER_NAMES) if (h.endsWith('.' + n)) return { class: 'placeholder' };
  if (PLACEHOLDER_LABEL.test(h) || h.includes('<') || h.includes('>') || h.includes('{')) return { class: 'placeholder' };
  if (h.endsWith('.localhost')) return { class: 'loopback' };
  for (const s of LOCAL_SUFFIXES) if (h.endsWith(s)) return { class: 'local-name' };
  if (!h.includes('.')) return { class: 'local-name' };
  return null;
}

/** Private (non-public) in the sense of the MCP quality rules; placeholders are reported apart. */
export function isPrivateHost(hostname: string): boolean {
  const v = classifyHost(hostname);
  return v !== null && v.class !== 'placeholder';
}
