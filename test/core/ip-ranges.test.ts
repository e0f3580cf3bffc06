import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { classifyHost } from '../../src/core/private-host.js';
import { CLOUD_METADATA, IPV4_RANGES, IPV6_RANGES, classifyIp, type IP } from '../../src/core/ip-ranges.js';
import { classifyAddress } from '../../src/http/ssrf-guard.js';

/** The first and last address of a range, and the addresses just outside it. */
function edges([base, bits]: [IP, number]): string[] {
  const bytes = base.toByteArray();
  const first = [...bytes];
  const last = bytes.map((b, i) => {
    const hostBits = Math.min(8, Math.max(0, (i + 1) * 8 - bits));
    return b | ((1 << hostBits) - 1);
  });
  const step = (arr: number[], delta: 1 | -1): number[] | null => {
    const out = [...arr];
    for (let i = out.length - 1; i >= 0; i--) {
      const v = out[i]! + delta;
      if (v >= 0 && v <= 255) {
        out[i] = v;
        return out;
      }
      out[i] = delta === 1 ? 0 : 255;
    }
    return null;
  };
  return [first, last, step(first, -1), step(last, 1)]
    .filter((a): a is number[] => a !== null)
    .map((a) => ipaddr.fromByteArray(a).toString());
}

/** The guard may connect exactly to the addresses the conformance rules do not call private or placeholder. */
function expectAgreement(address: string): void {
  const guard = classifyAddress(address).public;
  const rules = classifyHost(address) === null;
  expect(rules, `${address}: guard says ${classifyAddress(address).range}, rules say ${classifyHost(address)?.class}`).toBe(guard);
}

describe('one IP table for the SSRF guard and the conformance rules', () => {
  const table = [...IPV4_RANGES.map((r) => r.cidr), ...IPV6_RANGES.map((r) => r.cidr), ...CLOUD_METADATA];

  it('classifies the edges of every range in the table alike', () => {
    for (const range of table) for (const a of edges(range)) expectAgreement(a);
  });

  it('classifies every IPv4 range alike when it is carried in IPv6 (mapped, translated, NAT64, 6to4, compatible)', () => {
    for (const range of [...IPV4_RANGES.map((r) => r.cidr), ...CLOUD_METADATA].filter(([b]) => b.kind() === 'ipv4')) {
      for (const v4 of edges(range)) {
        const [a, b, c, d] = ipaddr.IPv4.parse(v4).octets;
        const hi = ((a! << 8) | b!).toString(16);
        const lo = ((c! << 8) | d!).toString(16);
        for (const form of [`::ffff:${v4}`, `::ffff:0:${v4}`, `64:ff9b::${v4}`, `2002:${hi}:${lo}::1`, `::${hi}:${lo}`])
          expectAgreement(form);
      }
    }
  });

  it('reconciles the ranges the two tables once disagreed on', () => {
    // Globally reachable per the IANA IPv4 special-purpose registry (AS112, AMT).
    for (const a of ['192.31.196.1', '192.52.193.1', '192.175.48.1']) {
      expect(classifyAddress(a).public, a).toBe(true);
      expect(classifyHost(a), a).toBeNull();
    }
    // Never routed: outside 2000::/3, IPv4-compatible, Teredo (2001::/23), a metadata service.
    for (const a of [
      '4000::1',
      '::808:808',
      '::8.8.8.8',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
      '168.63.129.16',
      '::ffff:168.63.129.16',
    ]) {
      expect(classifyAddress(a).public, a).toBe(false);
      expect(classifyHost(a), a).not.toBeNull();
    }
  });

  it('agrees on arbitrary IPv4 and IPv6 addresses', () => {
    const v4 = fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }).map((o) => o.join('.'));
    const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => new ipaddr.IPv6(g).toString());
    // Bias towards the carriers and the special /16s, where the rules are densest.
    const v6Special = fc
      .tuple(
        fc.constantFrom(0, 0x64, 0x100, 0x2001, 0x2002, 0x3fff, 0x5f00, 0xfc00, 0xfe80, 0xff00),
        fc.array(fc.nat(0xffff), { minLength: 7, maxLength: 7 }),
      )
      .map(([g0, rest]) => new ipaddr.IPv6([g0, ...rest]).toString());
    fc.assert(
      fc.property(fc.oneof(v4, v6, v6Special), (a) => expectAgreement(a)),
      { numRuns: 5000 },
    );
  });

  it('reads "::a.b.c.d" as IPv4-compatible, as the URL parser does', () => {
    expect(classifyIp('::8.8.8.8')?.range).toBe('ipv4-compatible');
    expect(classifyIp(new URL('http://[::8.8.8.8]/').hostname)?.normalized).toBe(classifyIp('::8.8.8.8')?.normalized);
    expect(classifyIp('::ffff:8.8.8.8')?.range).toBe('ipv4-mapped');
  });

  it('returns null for text that is no IP literal', () => {
    for (const t of ['', 'example.com', '1.2.3.4.5', 'g::1', '[::1']) expect(classifyIp(t), t).toBeNull();
  });
});
