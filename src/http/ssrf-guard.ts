/**
 * SSRF guard: probes reach public addresses only (DESIGN principle 4).
 *
 * A host is resolved once; if ANY of its addresses is non-public the request is refused.
 * The checked addresses are then pinned for the connection (see client.ts), and the socket's
 * remote address is checked again after connecting, so DNS rebinding between the check and
 * the connect cannot move a probe onto a private address. Every redirect hop is checked anew.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { canonicalHost } from '../identity/agent-key.js';
import { classifyIp, parseIp, type IpClass } from '../core/ip-ranges.js';
import { MAX_URL_CHARS } from './limits.js';
import type { AddressPolicy, LookupAddress, LookupFn } from './types.js';

export { canonicalHost };

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

/** Host names refused before any lookup (metadata services reachable by name). */
const BLOCKED_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data.ec2.internal', 'instance-data']);

/** The guard's name for a class: a carrier names what it carries ('ipv4-mapped loopback'). */
function rangeLabel(c: IpClass): string {
  if (c.public) return 'public';
  if (c.carried && !c.carried.public) return `${c.range} ${rangeLabel(c.carried)}`;
  return c.cloudMetadata ? 'cloud-metadata' : c.range;
}

/** Classifies one IP address literal (the shared table of src/core/ip-ranges.ts). Unparseable text is not public. */
export function classifyAddress(address: string): AddressClassification {
  const c = classifyIp(address);
  if (!c) return { public: false, range: 'invalid', loopback: false, normalized: '' };
  return { public: c.public, range: rangeLabel(c), loopback: c.loopback, normalized: c.normalized };
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

  const literal = parseIp(hostname);
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
  if (text.length > MAX_URL_CHARS)
    return { ok: false, message: `URL is ${text.length} characters long, over the ${MAX_URL_CHARS}-character limit` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `not an absolute URL: ${text.slice(0, 200)}` };
  }
  if (url.href.length > MAX_URL_CHARS)
    return { ok: false, message: `URL is ${url.href.length} characters long, over the ${MAX_URL_CHARS}-character limit` };
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
