import { describe, expect, it } from 'vitest';
import { canonicalHost, checkHost, checkUrl, classifyAddress, isAddressPermitted } from '../../src/http/ssrf-guard.js';
import type { LookupFn } from '../../src/http/types.js';

const staticLookup =
  (table: Record<string, string[]>): LookupFn =>
  async (hostname) => {
    const list = table[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
  };

describe('classifyAddress', () => {
  const table: Array<[string, string]> = [
    // IPv4 public
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    // IPv4 refused
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.170.2', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['168.63.129.16', 'cloud-metadata'],
    ['192.0.0.192', 'cloud-metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    // Neighbours of refused ranges stay public
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['198.20.0.1', 'public'],
    // Globally reachable per the IANA special-purpose registry (AS112, AMT)
    ['192.31.196.1', 'public'],
    ['192.52.193.1', 'public'],
    ['192.175.48.1', 'public'],
    ['11.0.0.1', 'public'],
    // IPv6 public
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    // IPv6 refused
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::7f00:1', 'ipv4-compatible loopback'],
    ['::808:808', 'ipv4-compatible'],
    ['64:ff9b:1::1', 'private'],
    // IPv4 embedded in IPv6
    ['::ffff:127.0.0.1', 'ipv4-mapped loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'ipv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'ipv4-mapped private'],
    ['::ffff:169.254.169.254', 'ipv4-mapped cloud-metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:7f00:1', 'ipv4-translated loopback'],
    ['64:ff9b::7f00:1', 'nat64 loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64 cloud-metadata'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['2002:0a00:0005::1', '6to4 private'],
    ['2002:a9fe:a9fe::1', '6to4 cloud-metadata'],
    ['2002:808:808::1', 'public'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 obfuscated (XOR 0xffffffff = 80ff:fffe)
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffa', 'teredo private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo documentation'],
    // Teredo lies in 2001::/23, which the IANA registry marks not globally reachable.
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo'],
    // Garbage
    ['not-an-ip', 'invalid'],
    ['', 'invalid'],
  ];
  it.each(table)('%s is %s', (address, range) => {
    const c = classifyAddress(address);
    expect(c.range).toBe(range);
    expect(c.public).toBe(range === 'public');
  });

  it('marks loopback (including IPv4-mapped loopback) and nothing else as loopback', () => {
    expect(classifyAddress('127.0.0.1').loopback).toBe(true);
    expect(classifyAddress('::1').loopback).toBe(true);
    expect(classifyAddress('::ffff:127.0.0.2').loopback).toBe(true);
    expect(classifyAddress('10.0.0.1').loopback).toBe(false);
    expect(classifyAddress('169.254.169.254').loopback).toBe(false);
    expect(classifyAddress('2002:7f00:1::').loopback).toBe(false);
  });
});

describe('isAddressPermitted', () => {
  it('allowLoopback permits 127.0.0.0/8 and ::1, nothing else', () => {
    const p = { allowLoopback: true };
    expect(isAddressPermitted('127.0.0.1', 'h', p).ok).toBe(true);
    expect(isAddressPermitted('127.3.2.1', 'h', p).ok).toBe(true);
    expect(isAddressPermitted('::1', 'h', p).ok).toBe(true);
    for (const a of ['10.0.0.1', '192.168.0.1', '169.254.169.254', '0.0.0.0', 'fe80::1', 'fd00::1', '100.64.0.1', '::', '2002:7f00:1::']) {
      expect(isAddressPermitted(a, 'h', p).ok, a).toBe(false);
    }
  });
  it('allowAddress permits exactly what it says', () => {
    const p = { allowAddress: (a: string, h: string) => a === '127.0.0.1' && h === 'allowed.test' };
    expect(isAddressPermitted('127.0.0.1', 'allowed.test', p).ok).toBe(true);
    expect(isAddressPermitted('127.0.0.1', 'other.test', p).ok).toBe(false);
    expect(isAddressPermitted('127.0.0.2', 'allowed.test', p).ok).toBe(false);
  });
});

describe('canonicalHost', () => {
  const table: Array<[string, string | null]> = [
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.000.000.001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['127.0.0.1..', '127.0.0.1'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::1]', '::1'],
    ['LOCALHOST', 'localhost'],
    ['Metadata.Google.Internal.', 'metadata.google.internal'],
    ['example.com', 'example.com'],
    ['1.2.3.4.5', null],
    ['exa mple.com', null],
    ['', null],
  ];
  it.each(table)('%s → %s', (host, expected) => {
    expect(canonicalHost(host)).toBe(expected);
  });
});

describe('checkHost / checkUrl', () => {
  const never: LookupFn = async () => {
    throw new Error('lookup must not be called');
  };

  const refusedUrls = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0251.0376.0251.0376/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata.google.internal./',
    'http://10.0.0.5/',
    'http://0/',
    'http://[::]/',
    'http://localhost/',
    'http://api.localhost/',
    'http://[2002:7f00:1::]/',
    'http://[64:ff9b::a9fe:a9fe]/',
  ];
  it.each(refusedUrls)('refuses %s without a lookup', async (url) => {
    const r = await checkUrl(url, { lookup: never });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errorClass).toBe('blocked_address');
      expect(r.message).toMatch(/loopback|private|link-local|cloud-metadata|unspecified|6to4|nat64/);
    }
  });

  it('names the address class in the refusal', async () => {
    const r = await checkUrl('http://169.254.169.254/', {});
    expect(r.ok || r.message).toBe('refused 169.254.169.254: cloud-metadata address');
    const m = await checkUrl('http://[::ffff:10.1.2.3]/', {});
    expect(m.ok || m.message).toMatch(/ipv4-mapped private/);
  });

  it('refuses a name that resolves to a private address', async () => {
    const r = await checkHost('evil.test', { lookup: staticLookup({ 'evil.test': ['10.0.0.5'] }) });
    expect(r).toMatchObject({ ok: false, errorClass: 'blocked_address' });
    expect(!r.ok && r.message).toContain('10.0.0.5: private');
  });

  it('refuses when ANY resolved address is blocked', async () => {
    const lookup = staticLookup({ 'mixed.test': ['93.184.216.34', '2606:4700::1', '169.254.169.254'] });
    const r = await checkHost('mixed.test', { lookup });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('cloud-metadata');
  });

  it('accepts a name whose addresses are all public, and returns them all for pinning', async () => {
    const lookup = staticLookup({ 'good.test': ['93.184.216.34', '2606:4700::1'] });
    const r = await checkHost('good.test', { lookup });
    expect(r).toEqual({
      ok: true,
      hostname: 'good.test',
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
  });

  it('refuses mapped and embedded forms returned by DNS', async () => {
    for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '2002:a00:5::1', '::7f00:1', '0.0.0.0']) {
      const r = await checkHost('x.test', { lookup: staticLookup({ 'x.test': [a] }) });
      expect(r.ok, a).toBe(false);
    }
  });

  it('allowLoopback admits names resolving to loopback, but not to private addresses', async () => {
    const lookup = staticLookup({ 'lo.test': ['127.0.0.1', '::1'], 'priv.test': ['127.0.0.1', '192.168.0.2'] });
    expect((await checkHost('lo.test', { lookup, allowLoopback: true })).ok).toBe(true);
    expect((await checkHost('priv.test', { lookup, allowLoopback: true })).ok).toBe(false);
    expect((await checkHost('lo.test', { lookup })).ok).toBe(false);
  });

  it('classifies lookup failures as dns, temporary or not', async () => {
    const notFound = await checkHost('nx.test', { lookup: staticLookup({}) });
    expect(notFound).toMatchObject({ ok: false, errorClass: 'dns', temporary: false });
    const again = await checkHost('tmp.test', {
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
      },
    });
    expect(again).toMatchObject({ ok: false, errorClass: 'dns', temporary: true });
    const empty = await checkHost('empty.test', { lookup: async () => [] });
    expect(empty).toMatchObject({ ok: false, errorClass: 'dns' });
  });

  it('rejects non-http schemes, credentials and garbage as invalid_url', async () => {
    for (const u of [
      'file:///etc/passwd',
      'gopher://x/',
      'ftp://example.com/',
      'http://user:pw@example.com/',
      'not a url',
      'javascript:alert(1)',
    ]) {
      const r = await checkUrl(u, { lookup: never });
      expect(r.ok, u).toBe(false);
      expect(!r.ok && r.errorClass, u).toBe('invalid_url');
    }
  });
});
