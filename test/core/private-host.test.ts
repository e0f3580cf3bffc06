import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { classifyHost, isPrivateHost } from '../../src/conformance/index.js';

const hostOf = (url: string) => new URL(url).hostname;

describe('private hosts', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['localhost', 'loopback'],
    ['api.localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['[fc00::1]', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:100.64.0.1', 'cgnat'],
    ['::ffff:192.168.1.1', 'private'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:0a00:0001::1', 'private'],
    ['ff02::1', 'multicast'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['mcp-server', 'local-name'],
    ['db.internal', 'local-name'],
    ['printer.local', 'local-name'],
    ['example.com', 'placeholder'],
    ['mcp.example.org', 'placeholder'],
    ['my.test', 'placeholder'],
    ['x.invalid', 'placeholder'],
    ['192.0.2.5', 'placeholder'],
    ['2001:db8::1', 'placeholder'],
  ])('%s is %s', (host, cls) => {
    expect(classifyHost(host)?.class).toBe(cls);
  });

  // IPv6 counterparts of IPv4 ranges already handled: documentation (RFC 9637, like 192.0.2/24),
  // benchmarking (like 198.18/15), IETF protocol assignments incl. Teredo (like 192.0.0/24), SRv6 SIDs.
  it.each([
    ['3fff::1', 'placeholder'],
    ['[3fff::]', 'placeholder'],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'placeholder'],
    ['2001:2::1', 'reserved'],
    ['2001:2:0:ffff::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001:1::1', 'reserved'],
    ['2001:1ff:ffff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['5f00:ffff::1', 'reserved'],
    ['2001:db8::1', 'placeholder'],
  ])('%s is %s (IPv6 special-purpose ranges)', (host, cls) => {
    expect(classifyHost(host)?.class).toBe(cls);
    expect(classifyHost(`[${host.replace(/^\[|\]$/g, '')}]`)?.class).toBe(cls);
  });

  it.each(['3fff:1000::1', '2001:200::1', '2001:4860:4860::8888', '2c0f:fb50::1'])('%s, just outside those ranges, is public', (host) => {
    expect(classifyHost(host)).toBeNull();
  });

  // Outside global unicast 2000::/3 nothing is routed (IANA IPv6 address space); the SSRF guard refuses it too.
  it.each(['4000::1', '5eff::1', '5f01::1', '1::1', 'e000::1', '::8.8.8.8', '[::0808:0808]'])(
    '%s, outside global unicast or IPv4-compatible, is reserved',
    (host) => {
      expect(classifyHost(host)?.class).toBe('reserved');
    },
  );

  it('the IPv4 counterparts stay covered in their IPv4-mapped and translated forms', () => {
    for (const [v4, cls] of [
      ['192.0.2.1', 'placeholder'],
      ['198.18.0.1', 'reserved'],
      ['198.19.255.254', 'reserved'],
      ['192.0.0.8', 'reserved'],
    ] as const) {
      expect(classifyHost(v4)?.class, v4).toBe(cls);
      for (const form of [`::ffff:${v4}`, `[::ffff:${v4}]`, `::ffff:0:${v4}`, `64:ff9b::${v4}`]) {
        expect(classifyHost(form), form).toMatchObject({ class: cls });
      }
      expect(isPrivateHost(hostOf(`https://[::ffff:${v4}]/`))).toBe(cls !== 'placeholder');
    }
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.169.0.1',
    'api.github.com',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    'mcp.acme-weather.dev',
  ])('%s is public', (host) => {
    expect(classifyHost(host)).toBeNull();
    expect(isPrivateHost(host)).toBe(false);
  });

  it('sees through the forms the URL parser normalises (decimal, hex, octal IPv4; IPv4-mapped IPv6)', () => {
    for (const u of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0177.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://[0:0:0:0:0:ffff:7f00:0001]/',
      'https://10.1/',
    ]) {
      expect(isPrivateHost(hostOf(u)), u).toBe(true);
    }
  });

  const ipv4Private = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'carrierGradeNat', 'private', 'reserved']);
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
  const v4Biased = fc.oneof(
    v4,
    fc
      .constantFrom('10', '127', '169.254', '172.16', '172.31', '100.64', '100.127', '192.168', '192.0.0', '198.18', '224', '240', '0')
      .chain((p) => fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map((r) => [...p.split('.'), ...r].slice(0, 4).join('.'))),
  );

  it('agrees with ipaddr.js on every IPv4 address (differential property)', () => {
    fc.assert(
      fc.property(v4Biased, (a) => {
        const theirs = ipv4Private.has(ipaddr.parse(a).range());
        expect(classifyHost(a) !== null).toBe(theirs);
      }),
      { numRuns: 5000 },
    );
  });

  it('an IPv4 address and its IPv4-mapped IPv6 forms classify alike', () => {
    fc.assert(
      fc.property(v4Biased, (a) => {
        const mine = classifyHost(a)?.class ?? null;
        const mapped = ipaddr.parse(a) as ipaddr.IPv4;
        const v6 = mapped.toIPv4MappedAddress();
        for (const form of [`::ffff:${a}`, v6.toString(), v6.toNormalizedString(), hostOf(`http://[::ffff:${a}]/`)]) {
          expect(classifyHost(form)?.class ?? null, form).toBe(mine);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        classifyHost(s);
      }),
    );
  });
});
