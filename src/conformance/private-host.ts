/**
 * Is a host name or IP literal private, i.e. not a public Internet destination?
 *
 * Pure string logic: no DNS. Takes a host as `new URL(u).hostname` gives it (IPv6 in
 * brackets, IPv4 already normalised from decimal/hex/octal forms by the URL parser), or a
 * bare IP literal.
 *
 * Private here: unspecified, loopback, RFC 1918, link-local (incl. the 169.254.169.254 cloud
 * metadata address), CGNAT 100.64/10, IETF protocol assignments 192.0.0/24, the deprecated
 * 6to4 relay 192.88.99/24, benchmarking 198.18/15, multicast, reserved 240/4 and broadcast;
 * IPv6 unspecified, loopback, ULA fc00::/7, link-local fe80::/10, deprecated site-local
 * fec0::/10, multicast ff00::/8, discard 100::/64, NAT64 local-use 64:ff9b:1::/48, the IETF
 * protocol assignments 2001::/23 (the IPv6 counterpart of 192.0.0/24; it includes Teredo
 * 2001::/32 and the benchmarking range 2001:2::/48, the counterpart of 198.18/15) and SRv6
 * SIDs 5f00::/16 (RFC 9602), all as `reserved`; and every
 * IPv4 class above when embedded in IPv6 as IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) or 6to4 (2002::/16).
 * Host names: localhost and *.localhost, *.local, *.internal, *.lan, *.home.arpa, *.intranet,
 * *.corp, *.localdomain, and single-label names.
 *
 * Documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20 of
 * RFC 9637) and the
 * reserved example names (example.com/.net/.org, *.example, *.test, *.invalid) are
 * reported as `placeholder`.
 */
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

/** Parses a dotted-quad IPv4 literal to a 32-bit number, or null. */
export function parseIPv4(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

const in4 = (n: number, base: string, bits: number): boolean => {
  const b = parseIPv4(base)!;
  const size = 2 ** (32 - bits);
  return n >= b && n < b + size;
};

export function classifyIPv4(n: number): HostClass | null {
  if (in4(n, '0.0.0.0', 8)) return 'unspecified';
  if (in4(n, '127.0.0.0', 8)) return 'loopback';
  if (in4(n, '10.0.0.0', 8) || in4(n, '172.16.0.0', 12) || in4(n, '192.168.0.0', 16)) return 'private';
  if (in4(n, '169.254.0.0', 16)) return 'link-local';
  if (in4(n, '100.64.0.0', 10)) return 'cgnat';
  if (in4(n, '192.0.0.0', 24) || in4(n, '192.88.99.0', 24) || in4(n, '198.18.0.0', 15)) return 'reserved';
  if (in4(n, '192.0.2.0', 24) || in4(n, '198.51.100.0', 24) || in4(n, '203.0.113.0', 24)) return 'placeholder';
  if (in4(n, '224.0.0.0', 4)) return 'multicast';
  if (in4(n, '240.0.0.0', 4)) return 'reserved'; // includes 255.255.255.255
  return null;
}

/** Parses an IPv6 literal (no brackets, optional zone) into 8 16-bit groups, or null. */
export function parseIPv6(input: string): number[] | null {
  let s = input;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s.length === 0 || s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return null;
  // An embedded dotted IPv4 tail becomes two groups.
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    s = s.slice(0, lastColon + 1); // ends with ':'
    if (!s.endsWith('::')) s = s.slice(0, -1);
  }
  const dbl = s.indexOf('::');
  if (dbl !== s.lastIndexOf('::')) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  let groups: number[];
  if (dbl >= 0) {
    const head = parseGroups(s.slice(0, dbl));
    const rest = parseGroups(s.slice(dbl + 2));
    if (!head || !rest) return null;
    const fill = 8 - tail.length - head.length - rest.length;
    if (fill < 1) return null;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest, ...tail];
  } else {
    const all = parseGroups(s);
    if (!all) return null;
    groups = [...all, ...tail];
  }
  return groups.length === 8 ? groups : null;
}

function classifyIPv6(g: number[]): HostVerdict | null {
  const v4 = (hi: number, lo: number): number => hi * 65536 + lo;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const [g0 = 0, g1 = 0, g2 = 0, , , g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (n: number, via: HostVerdict['via']): HostVerdict | null => {
    const c = classifyIPv4(n);
    return c ? { class: c, via } : null;
  };
  if (zeros(0, 8)) return { class: 'unspecified' };
  if (zeros(0, 7) && g7 === 1) return { class: 'loopback' };
  if (zeros(0, 5) && g5 === 0xffff) return embedded(v4(g6, g7), 'ipv4-mapped');
  if (zeros(0, 4) && g[4] === 0xffff && g5 === 0) return embedded(v4(g6, g7), 'ipv4-translated');
  if (zeros(0, 6)) return embedded(v4(g6, g7), 'ipv4-compatible');
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return embedded(v4(g6, g7), 'nat64');
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return { class: 'private' };
  if (g0 === 0x2002) return embedded(v4(g1, g2), '6to4');
  if ((g0 & 0xfe00) === 0xfc00) return { class: 'unique-local' };
  if ((g0 & 0xffc0) === 0xfe80) return { class: 'link-local' };
  if ((g0 & 0xffc0) === 0xfec0) return { class: 'site-local' };
  if ((g0 & 0xff00) === 0xff00) return { class: 'multicast' };
  if (g0 === 0x100 && zeros(1, 4)) return { class: 'reserved' };
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32, benchmarking 2001:2::/48, …); 2001:db8::/32 is outside it.
  if (g0 === 0x2001 && g1 < 0x200) return { class: 'reserved' };
  if (g0 === 0x2001 && g1 === 0xdb8) return { class: 'placeholder' };
  if (g0 === 0x3fff && g1 < 0x1000) return { class: 'placeholder' }; // 3fff::/20 documentation (RFC 9637)
  if (g0 === 0x5f00) return { class: 'reserved' }; // 5f00::/16 SRv6 SIDs (RFC 9602)
  return null;
}

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa', '.intranet', '.corp', '.localdomain'];
const PLACEHOLDER_SUFFIXES = ['.example', '.test', '.invalid'];
const PLACEHOLDER_NAMES = new Set(['example.com', 'example.net', 'example.org', 'example']);
const PLACEHOLDER_LABEL = /^your[-_]?(domain|server|host|hostname|site|app|company|mcp|api|org)\b/;

/** Classifies a host; null means public (as far as a string can tell). */
export function classifyHost(hostname: string): HostVerdict | null {
  let h = hostname.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  if (h === '') return { class: 'placeholder' };
  if (h.includes(':')) {
    const g = parseIPv6(h);
    return g ? classifyIPv6(g) : { class: 'reserved' };
  }
  const v4 = parseIPv4(h);
  if (v4 !== null) {
    const c = classifyIPv4(v4);
    return c ? { class: c } : null;
  }
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
