/**
 * SSRF guard: probes reach public addresses only (DESIGN principle 4).
 *
 * A host is resolved once; if ANY of its addresses is non-public the request is refused.
 * The checked addresses are then pinned for the connection (see client.ts), and the socket's
 * remote address is checked again after connecting, so DNS rebinding between the check and
 * the connect cannot move a probe onto a private address. Every redirect hop is checked anew.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { MAX_URL_CHARS } from './limits.js';
import type { AddressPolicy, LookupAddress, LookupFn } from './types.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressClassification {
  /** True for a public unicast address. */
  public: boolean;
  /** Address class, e.g. 'public', 'private', 'loopback', 'cloud-metadata', 'ipv4-mapped loopback'. */
  range: string;
  /** True for 127.0.0.0/8 and ::1 (also written as IPv4-mapped ::ffff:127.x.y.z). */
  loopback: boolean;
  /** Canonical text form of the address ('' when unparseable). */
  normalized: string;
}

type Rule = { cidr: [IP, number]; range: string; embedded?: (a: ipaddr.IPv6) => ipaddr.IPv4[] };

function cidr(text: string): [IP, number] {
  return ipaddr.parseCIDR(text);
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);
}

/** Order matters: the first matching rule names the class. Anything unmatched is public. */
const V4_RULES: Rule[] = [
  // Cloud metadata services, named before their enclosing ranges.
  { cidr: cidr('169.254.169.254/32'), range: 'cloud-metadata' },
  { cidr: cidr('169.254.170.2/32'), range: 'cloud-metadata' },
  { cidr: cidr('100.100.100.200/32'), range: 'cloud-metadata' },
  { cidr: cidr('168.63.129.16/32'), range: 'cloud-metadata' },
  { cidr: cidr('192.0.0.192/32'), range: 'cloud-metadata' },
  { cidr: cidr('0.0.0.0/8'), range: 'unspecified' },
  { cidr: cidr('10.0.0.0/8'), range: 'private' },
  { cidr: cidr('100.64.0.0/10'), range: 'cgnat' },
  { cidr: cidr('127.0.0.0/8'), range: 'loopback' },
  { cidr: cidr('169.254.0.0/16'), range: 'link-local' },
  { cidr: cidr('172.16.0.0/12'), range: 'private' },
  { cidr: cidr('192.0.0.0/24'), range: 'reserved' },
  { cidr: cidr('192.0.2.0/24'), range: 'documentation' },
  { cidr: cidr('192.31.196.0/24'), range: 'reserved' },
  { cidr: cidr('192.52.193.0/24'), range: 'reserved' },
  { cidr: cidr('192.88.99.0/24'), range: 'reserved' },
  { cidr: cidr('192.168.0.0/16'), range: 'private' },
  { cidr: cidr('192.175.48.0/24'), range: 'reserved' },
  { cidr: cidr('198.18.0.0/15'), range: 'benchmarking' },
  { cidr: cidr('198.51.100.0/24'), range: 'documentation' },
  { cidr: cidr('203.0.113.0/24'), range: 'documentation' },
  { cidr: cidr('224.0.0.0/4'), range: 'multicast' },
  { cidr: cidr('255.255.255.255/32'), range: 'broadcast' },
  { cidr: cidr('240.0.0.0/4'), range: 'reserved' },
];

const V6_RULES: Rule[] = [
  { cidr: cidr('fd00:ec2::254/128'), range: 'cloud-metadata' },
  { cidr: cidr('::/128'), range: 'unspecified' },
  { cidr: cidr('::1/128'), range: 'loopback' },
  // Addresses that carry an IPv4 address: judged by the embedded address.
  { cidr: cidr('::ffff:0:0/96'), range: 'ipv4-mapped', embedded: (a) => [v4FromWords(a.parts[6]!, a.parts[7]!)] },
  { cidr: cidr('::ffff:0:0:0/96'), range: 'ipv4-translated', embedded: (a) => [v4FromWords(a.parts[6]!, a.parts[7]!)] },
  { cidr: cidr('64:ff9b::/96'), range: 'nat64', embedded: (a) => [v4FromWords(a.parts[6]!, a.parts[7]!)] },
  { cidr: cidr('64:ff9b:1::/48'), range: 'private' },
  { cidr: cidr('::/96'), range: 'ipv4-compatible' },
  { cidr: cidr('100::/64'), range: 'reserved' },
  {
    cidr: cidr('2001::/32'),
    range: 'teredo',
    embedded: (a) => [
      v4FromWords(a.parts[2]!, a.parts[3]!),
      v4FromWords(~a.parts[6]! & 0xffff, ~a.parts[7]! & 0xffff),
    ],
  },
  { cidr: cidr('2001:2::/48'), range: 'benchmarking' },
  { cidr: cidr('2001:db8::/32'), range: 'documentation' },
  { cidr: cidr('2001::/23'), range: 'reserved' },
  { cidr: cidr('2002::/16'), range: '6to4', embedded: (a) => [v4FromWords(a.parts[1]!, a.parts[2]!)] },
  { cidr: cidr('3fff::/20'), range: 'documentation' },
  { cidr: cidr('5f00::/16'), range: 'reserved' },
  { cidr: cidr('fc00::/7'), range: 'unique-local' },
  { cidr: cidr('fe80::/10'), range: 'link-local' },
  { cidr: cidr('fec0::/10'), range: 'site-local' },
  { cidr: cidr('ff00::/8'), range: 'multicast' },
];

const V6_GLOBAL_UNICAST = cidr('2000::/3');

/** Host names refused before any lookup (metadata services reachable by name). */
const BLOCKED_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data.ec2.internal', 'instance-data']);

function matches(addr: IP, rule: Rule): boolean {
  return addr.kind() === rule.cidr[0].kind() && addr.match(rule.cidr);
}

function classifyV4(addr: ipaddr.IPv4): { range: string; loopback: boolean } {
  for (const rule of V4_RULES) {
    if (matches(addr, rule)) return { range: rule.range, loopback: rule.range === 'loopback' };
  }
  return { range: 'public', loopback: false };
}

function classifyParsed(addr: IP): { range: string; loopback: boolean } {
  if (addr.kind() === 'ipv4') return classifyV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  for (const rule of V6_RULES) {
    if (!matches(v6, rule)) continue;
    if (!rule.embedded) return { range: rule.range, loopback: rule.range === 'loopback' };
    const inner = rule.embedded(v6).map(classifyV4);
    const bad = inner.find((c) => c.range !== 'public');
    if (!bad) {
      // A mapped or translated public IPv4 is that public address; 6to4/teredo/NAT64 of a
      // public address are routable too.
      return { range: 'public', loopback: false };
    }
    return { range: `${rule.range} ${bad.range}`, loopback: rule.range === 'ipv4-mapped' && bad.loopback };
  }
  if (!v6.match(V6_GLOBAL_UNICAST)) return { range: 'reserved', loopback: false };
  return { range: 'public', loopback: false };
}

/** Parses an address literal (no brackets, no zone), or returns null. */
function parseAddress(text: string): IP | null {
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const zone = t.indexOf('%');
  if (zone >= 0 && t.includes(':')) t = t.slice(0, zone);
  try {
    if (ipaddr.IPv6.isValid(t)) return ipaddr.IPv6.parse(t);
    if (ipaddr.IPv4.isValid(t)) return ipaddr.IPv4.parse(t);
  } catch {
    return null;
  }
  return null;
}

/** Classifies one IP address literal. Unparseable text is not public. */
export function classifyAddress(address: string): AddressClassification {
  const parsed = parseAddress(address);
  if (!parsed) return { public: false, range: 'invalid', loopback: false, normalized: '' };
  const { range, loopback } = classifyParsed(parsed);
  return { public: range === 'public', range, loopback, normalized: parsed.toString() };
}

/**
 * True for the addresses an operator may point a configured source at: loopback (127.0.0.0/8,
 * ::1), RFC 1918 private IPv4 (also IPv4-mapped) and IPv6 unique-local (fc00::/7). Never
 * link-local, cloud metadata, CGNAT or any other non-public class.
 */
export function isLocalNetworkAddress(address: string): boolean {
  const c = classifyAddress(address);
  if (c.loopback) return true;
  const v6 = c.normalized.includes(':');
  return (c.range === 'private' && !v6) || c.range === 'ipv4-mapped private' || c.range === 'unique-local';
}

/**
 * Whether one resolved address may be contacted under the policy. `allowLoopback` adds
 * 127.0.0.0/8 and ::1 (also IPv4-mapped) and nothing else; `allowAddress` is a test hook.
 */
export function isAddressPermitted(
  address: string,
  hostname: string,
  policy: AddressPolicy = {},
): { ok: boolean; range: string; normalized: string } {
  const c = classifyAddress(address);
  if (c.public) return { ok: true, range: c.range, normalized: c.normalized };
  if (c.normalized && policy.allowAddress?.(c.normalized, hostname)) return { ok: true, range: c.range, normalized: c.normalized };
  if (policy.allowLoopback && c.loopback) return { ok: true, range: c.range, normalized: c.normalized };
  return { ok: false, range: c.range, normalized: c.normalized || address };
}

/**
 * The canonical form of a URL host: lowercase, brackets and trailing dots removed, and legacy
 * IPv4 spellings (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1) turned into
 * dotted decimal. Returns null when the host is not valid.
 */
export function canonicalHost(host: string): string | null {
  let h = host.trim();
  if (h === '') return null;
  const bracketed = h.startsWith('[') && h.endsWith(']');
  const inner = bracketed ? h.slice(1, -1) : h;
  if (inner.includes(':')) {
    const p = parseAddress(inner);
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

export type HostCheck =
  | { ok: true; hostname: string; addresses: LookupAddress[] }
  | {
      ok: false;
      errorClass: 'blocked_address' | 'dns' | 'invalid_url';
      message: string;
      /** A temporary DNS failure (worth a retry). */
      temporary: boolean;
    };

const defaultLookup: LookupFn = async (hostname) => {
  const res = await dnsLookup(hostname, { all: true, verbatim: true });
  return res.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
};

const TEMPORARY_DNS = new Set(['EAI_AGAIN', 'ESERVFAIL', 'ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED', 'EAI_FAIL']);

/**
 * Resolves `host` (a URL hostname, any spelling) and checks every address. Never throws.
 */
export async function checkHost(host: string, policy: AddressPolicy = {}): Promise<HostCheck> {
  const hostname = canonicalHost(host);
  if (hostname === null) return { ok: false, errorClass: 'invalid_url', message: `invalid host "${host}"`, temporary: false };

  if (BLOCKED_NAMES.has(hostname)) {
    return { ok: false, errorClass: 'blocked_address', message: `refused ${hostname}: cloud-metadata host name`, temporary: false };
  }

  const literal = parseAddress(hostname);
  if (literal) {
    const p = isAddressPermitted(hostname, hostname, policy);
    if (!p.ok) {
      return { ok: false, errorClass: 'blocked_address', message: `refused ${p.normalized}: ${p.range} address`, temporary: false };
    }
    return { ok: true, hostname, addresses: [{ address: p.normalized, family: literal.kind() === 'ipv6' ? 6 : 4 }] };
  }

  if ((hostname === 'localhost' || hostname.endsWith('.localhost')) && !policy.allowLoopback) {
    return { ok: false, errorClass: 'blocked_address', message: `refused ${hostname}: loopback host name`, temporary: false };
  }

  let resolved: LookupAddress[];
  try {
    resolved = await (policy.lookup ?? defaultLookup)(hostname);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const codeText = typeof code === 'string' ? code : 'ERR_DNS';
    return {
      ok: false,
      errorClass: 'dns',
      message: `${codeText}: could not resolve ${hostname}`,
      temporary: TEMPORARY_DNS.has(codeText),
    };
  }
  if (!Array.isArray(resolved) || resolved.length === 0) {
    return { ok: false, errorClass: 'dns', message: `ENODATA: no addresses for ${hostname}`, temporary: false };
  }

  const addresses: LookupAddress[] = [];
  for (const r of resolved) {
    const p = isAddressPermitted(String(r.address), hostname, policy);
    if (!p.ok) {
      return {
        ok: false,
        errorClass: 'blocked_address',
        message: `refused ${hostname} → ${p.normalized}: ${p.range} address`,
        temporary: false,
      };
    }
    const family = p.normalized.includes(':') ? 6 : 4;
    if (!addresses.some((a) => a.address === p.normalized)) addresses.push({ address: p.normalized, family });
  }
  return { ok: true, hostname, addresses };
}

export type UrlCheck =
  | { ok: true; url: URL; hostname: string; addresses: LookupAddress[] }
  | { ok: false; errorClass: 'blocked_address' | 'dns' | 'invalid_url'; message: string; temporary: boolean };

/** Parses a URL, requires http(s) without credentials, and checks its host. Never throws. */
export async function checkUrl(input: string | URL, policy: AddressPolicy = {}): Promise<UrlCheck> {
  const url = parseProbeUrl(input);
  if (!url.ok) return { ok: false, errorClass: 'invalid_url', message: url.message, temporary: false };
  const host = await checkHost(url.url.hostname, policy);
  if (!host.ok) return host;
  return { ok: true, url: url.url, hostname: host.hostname, addresses: host.addresses };
}

/** The URL rules shared by the guard and the client: absolute http(s), no user info, at most MAX_URL_CHARS. */
export function parseProbeUrl(input: string | URL): { ok: true; url: URL } | { ok: false; message: string } {
  const text = String(input instanceof URL ? input.href : input);
  if (text.length > MAX_URL_CHARS) return { ok: false, message: `URL is ${text.length} characters long, over the ${MAX_URL_CHARS}-character limit` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `not an absolute URL: ${text.slice(0, 200)}` };
  }
  if (url.href.length > MAX_URL_CHARS) return { ok: false, message: `URL is ${url.href.length} characters long, over the ${MAX_URL_CHARS}-character limit` };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `unsupported scheme ${url.protocol}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'URL carries credentials; we never authenticate' };
  }
  if (url.hostname === '') return { ok: false, message: 'URL has no host' };
  url.hash = '';
  return { ok: true, url };
}
