/**
 * The one table of special IP ranges, read by the SSRF guard (may we connect?) and by the
 * conformance rules (is this a private host?) alike, so the two can never disagree. Pure: no
 * DNS, no I/O.
 *
 * Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (a range whose
 * "Globally Reachable" is True stays public: AS112 192.31.196/24 and 192.175.48/24, AMT
 * 192.52.193/24), the IPv6 address space registry (only 2000::/3 is global unicast), and the
 * cloud metadata services, which are flagged apart because they sit in public as well as in
 * special ranges.
 */
import ipaddr from 'ipaddr.js';

export type IP = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv6 forms that carry IPv4 addresses. */
export type Ipv4Carrier = 'ipv4-mapped' | 'ipv4-translated' | 'ipv4-compatible' | 'nat64' | '6to4' | 'teredo';

/** The class of an address by itself (for a carrier, the carrier's name). */
export type IpRange =
  | 'public'
  | 'unspecified'
  | 'private'
  | 'cgnat'
  | 'loopback'
  | 'link-local'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'unique-local'
  | 'site-local'
  | Ipv4Carrier;

export interface IpClass {
  /** Canonical text of the address. */
  normalized: string;
  range: IpRange;
  /** A known cloud metadata service (also inside ranges that are otherwise public). */
  cloudMetadata: boolean;
  /** For a carrier: the first non-public IPv4 address it carries, else the first one. */
  carried?: IpClass;
  /** Public unicast: may be contacted, and is no private host. */
  public: boolean;
  /** 127.0.0.0/8, ::1, and IPv4-mapped loopback. */
  loopback: boolean;
}

type Rule = {
  cidr: [IP, number];
  range: IpRange;
  /** The IPv4 addresses a carrier holds. */
  carries?: (a: ipaddr.IPv6) => ipaddr.IPv4[];
  /** A carrier of public addresses is itself public (mapped, translated, NAT64, 6to4). */
  publicWhenCarriedPublic?: boolean;
};

const cidr = (text: string): [IP, number] => ipaddr.parseCIDR(text);

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);
}
const lastTwoWords = (a: ipaddr.IPv6): ipaddr.IPv4[] => [v4FromWords(a.parts[6]!, a.parts[7]!)];

/** Anything unmatched is public. The ranges do not overlap, except 255.255.255.255 inside 240/4 (listed first). */
export const IPV4_RANGES: readonly Rule[] = [
  { cidr: cidr('0.0.0.0/8'), range: 'unspecified' },
  { cidr: cidr('10.0.0.0/8'), range: 'private' },
  { cidr: cidr('100.64.0.0/10'), range: 'cgnat' },
  { cidr: cidr('127.0.0.0/8'), range: 'loopback' },
  { cidr: cidr('169.254.0.0/16'), range: 'link-local' },
  { cidr: cidr('172.16.0.0/12'), range: 'private' },
  { cidr: cidr('192.0.0.0/24'), range: 'reserved' },
  { cidr: cidr('192.0.2.0/24'), range: 'documentation' },
  { cidr: cidr('192.88.99.0/24'), range: 'reserved' },
  { cidr: cidr('192.168.0.0/16'), range: 'private' },
  { cidr: cidr('198.18.0.0/15'), range: 'benchmarking' },
  { cidr: cidr('198.51.100.0/24'), range: 'documentation' },
  { cidr: cidr('203.0.113.0/24'), range: 'documentation' },
  { cidr: cidr('224.0.0.0/4'), range: 'multicast' },
  { cidr: cidr('255.255.255.255/32'), range: 'broadcast' },
  { cidr: cidr('240.0.0.0/4'), range: 'reserved' },
];

/** The first match names the class; an address outside 2000::/3 that matches none is reserved. */
export const IPV6_RANGES: readonly Rule[] = [
  { cidr: cidr('::/128'), range: 'unspecified' },
  { cidr: cidr('::1/128'), range: 'loopback' },
  { cidr: cidr('::ffff:0:0/96'), range: 'ipv4-mapped', carries: lastTwoWords, publicWhenCarriedPublic: true },
  { cidr: cidr('::ffff:0:0:0/96'), range: 'ipv4-translated', carries: lastTwoWords, publicWhenCarriedPublic: true },
  { cidr: cidr('64:ff9b::/96'), range: 'nat64', carries: lastTwoWords, publicWhenCarriedPublic: true },
  { cidr: cidr('64:ff9b:1::/48'), range: 'private' },
  // Deprecated (RFC 4291 §2.5.5.1) and never routed, whatever it carries.
  { cidr: cidr('::/96'), range: 'ipv4-compatible', carries: lastTwoWords },
  { cidr: cidr('100::/64'), range: 'reserved' },
  // Inside 2001::/23, which is not globally reachable; named for the addresses it carries.
  {
    cidr: cidr('2001::/32'),
    range: 'teredo',
    carries: (a) => [v4FromWords(a.parts[2]!, a.parts[3]!), v4FromWords(~a.parts[6]! & 0xffff, ~a.parts[7]! & 0xffff)],
  },
  { cidr: cidr('2001:2::/48'), range: 'benchmarking' },
  { cidr: cidr('2001:db8::/32'), range: 'documentation' },
  { cidr: cidr('2001::/23'), range: 'reserved' },
  { cidr: cidr('2002::/16'), range: '6to4', carries: (a) => [v4FromWords(a.parts[1]!, a.parts[2]!)], publicWhenCarriedPublic: true },
  { cidr: cidr('3fff::/20'), range: 'documentation' },
  { cidr: cidr('5f00::/16'), range: 'reserved' },
  { cidr: cidr('fc00::/7'), range: 'unique-local' },
  { cidr: cidr('fe80::/10'), range: 'link-local' },
  { cidr: cidr('fec0::/10'), range: 'site-local' },
  { cidr: cidr('ff00::/8'), range: 'multicast' },
];

const V6_GLOBAL_UNICAST = cidr('2000::/3');

/** Cloud metadata services (AWS, ECS, Alibaba, Azure wireserver, Oracle; AWS over IPv6). */
export const CLOUD_METADATA: readonly [IP, number][] = [
  '169.254.169.254/32',
  '169.254.170.2/32',
  '100.100.100.200/32',
  '168.63.129.16/32',
  '192.0.0.192/32',
  'fd00:ec2::254/128',
].map(cidr);

function matches(addr: IP, range: [IP, number]): boolean {
  return addr.kind() === range[0].kind() && addr.match(range);
}

function ownRange(addr: IP): Rule | null {
  const rules = addr.kind() === 'ipv4' ? IPV4_RANGES : IPV6_RANGES;
  return rules.find((r) => matches(addr, r.cidr)) ?? null;
}

/** Classifies a parsed address. */
export function classifyParsedIp(addr: IP): IpClass {
  const normalized = addr.toString();
  const cloudMetadata = CLOUD_METADATA.some((m) => matches(addr, m));
  const rule = ownRange(addr);
  if (rule?.carries) {
    const inner = rule.carries(addr as ipaddr.IPv6).map(classifyParsedIp);
    const carried = inner.find((c) => !c.public) ?? inner[0]!;
    const isPublic = rule.publicWhenCarriedPublic === true && carried.public && !cloudMetadata;
    return {
      normalized,
      range: rule.range,
      cloudMetadata,
      carried,
      public: isPublic,
      loopback: rule.range === 'ipv4-mapped' && carried.loopback,
    };
  }
  let range: IpRange = rule?.range ?? 'public';
  if (!rule && addr.kind() === 'ipv6' && !addr.match(V6_GLOBAL_UNICAST)) range = 'reserved';
  return { normalized, range, cloudMetadata, public: range === 'public' && !cloudMetadata, loopback: range === 'loopback' };
}

/**
 * ipaddr.js reads '::a.b.c.d' as IPv4-mapped (::ffff:a.b.c.d); RFC 4291 §2.2, and the URL
 * parser, read it as the IPv4-compatible ::a.b:c.d. Writes it so.
 */
function compatibleAsWords(t: string): string {
  const m = /^::(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(t);
  if (!m) return t;
  const o = m.slice(1).map(Number);
  if (o.some((x) => x > 255)) return t;
  return `::${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
}

const IPV4_CHARS = /^[0-9a-fx.]+$/i;

/** Parses an IP literal (brackets and an IPv6 zone allowed), or returns null. */
export function parseIp(text: string): IP | null {
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const zone = t.indexOf('%');
  if (zone >= 0 && t.includes(':')) t = t.slice(0, zone);
  t = compatibleAsWords(t);
  try {
    if (ipaddr.IPv6.isValid(t)) return ipaddr.IPv6.parse(t);
    // Every IPv4 spelling ipaddr.js reads (decimal, octal, 0x hex) is made of these characters;
    // anything else (every host name) is refused here, before isValid pays for a thrown error.
    if (IPV4_CHARS.test(t) && ipaddr.IPv4.isValid(t)) return ipaddr.IPv4.parse(t);
  } catch {
    return null;
  }
  return null;
}

/** Classifies an IP literal; null when the text is not one. */
export function classifyIp(text: string): IpClass | null {
  const parsed = parseIp(text);
  return parsed ? classifyParsedIp(parsed) : null;
}
