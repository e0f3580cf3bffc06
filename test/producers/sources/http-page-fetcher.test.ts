/**
 * Operator-configured source hosts may live on loopback or a private network, and nowhere else
 * that is not public: never link-local, never cloud metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLocalNetworkAddress } from '../../../src/http/ssrf-guard.js';
import type { LookupFn } from '../../../src/http/types.js';
import { createPageFetcher } from '../../../src/producers/sources/http-page-fetcher.js';
import { startHttpServer, type TestServer } from '../../helpers/hostile-servers.js';

describe('trusted source hosts', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"servers":[]}');
    });
  });
  afterAll(() => srv.close());

  const fetcherFor = (address: string) => {
    const lookup: LookupFn = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    return createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: ['source-mirror.test'], lookup, maxRetries: 0 });
  };
  const get = (address: string) =>
    fetcherFor(address)(`http://source-mirror.test:${srv.port}/v0.1/servers`, { maxBytes: 1024, timeoutMs: 1000 });

  it('a trusted host on loopback is read', async () => {
    expect(await get('127.0.0.1')).toMatchObject({ status: 200, errorClass: null });
  });

  it.each([
    ['cloud metadata', '169.254.169.254'],
    ['link-local', '169.254.10.10'],
    ['CGNAT', '100.64.0.1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 cloud metadata (inside fc00::/7)', 'fd00:ec2::254'],
  ])('a trusted host resolving to %s is refused (blocked_address), nothing sent', async (_name, address) => {
    const before = srv.connections();
    expect(await get(address)).toMatchObject({ status: null, errorClass: 'blocked_address' });
    expect(srv.connections()).toBe(before);
  });

  it('an untrusted host on loopback is refused', async () => {
    const lookup: LookupFn = async () => [{ address: '127.0.0.1', family: 4 }];
    const fetch = createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: [], lookup, maxRetries: 0 });
    expect(await fetch(`http://source-mirror.test:${srv.port}/`, { maxBytes: 1024, timeoutMs: 1000 })).toMatchObject({
      errorClass: 'blocked_address',
    });
  });

  it('isLocalNetworkAddress: loopback, RFC 1918 and ULA only', () => {
    const yes = [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      'fd12:3456::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
    ];
    const no = [
      '169.254.169.254',
      '169.254.1.1',
      'fe80::1',
      'fd00:ec2::254',
      '100.100.100.200',
      '100.64.0.1',
      '0.0.0.0',
      '192.0.2.1',
      '224.0.0.1',
      '64:ff9b:1::1',
      '8.8.8.8',
      'not an address',
    ];
    expect(yes.filter((a) => !isLocalNetworkAddress(a))).toEqual([]);
    expect(no.filter((a) => isLocalNetworkAddress(a))).toEqual([]);
  });
});
