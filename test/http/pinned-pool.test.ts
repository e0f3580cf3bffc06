/**
 * Kept-alive connections through the SSRF guard (pinned-pool.ts): reused only for the same
 * origin checked to the same addresses, only after an answer read to its end, and bounded.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBounded, type FetchOptions } from '../../src/http/client.js';
import { PinnedConnections } from '../../src/http/pinned-pool.js';
import type { LookupFn } from '../../src/http/types.js';

interface Srv {
  port: number;
  /** Connections accepted, with the local address each was made to. */
  accepted: string[];
  /** Connections still open. */
  open: Set<Socket>;
  close: () => Promise<void>;
}

let srv: Srv;

beforeAll(async () => {
  const accepted: string[] = [];
  const open = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(64 * 1024));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  server.on('connection', (s: Socket) => {
    accepted.push(s.localAddress ?? '');
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  srv = {
    port: (server.address() as AddressInfo).port,
    accepted,
    open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
});
afterAll(() => srv.close());

const opts = (connections: PinnedConnections, lookup: LookupFn, extra: Partial<FetchOptions> = {}): FetchOptions => ({
  contact: 'pool@veronikai.test',
  allowLoopback: true,
  lookup,
  maxRetries: 0,
  timeoutMs: 3000,
  connections,
  ...extra,
});

describe('kept-alive connections through the guard', () => {
  it('one host, three hops read to the end: one connection, each exchange records the checked address', async () => {
    const pool = new PinnedConnections();
    const before = srv.accepted.length;
    const lookup: LookupFn = async () => [{ address: '127.0.0.2', family: 4 }];
    for (const path of ['/robots.txt', '/a', '/b']) {
      const r = await fetchBounded(`http://one.pool.test:${srv.port}${path}`, opts(pool, lookup));
      expect(r.final.status).toBe(200);
      expect(r.final.remoteAddress).toBe('127.0.0.2');
    }
    expect(srv.accepted.length - before).toBe(1);
    expect(pool.made).toBe(1);
    pool.closeIdle();
  });

  it('the host now resolves elsewhere: a new connection to the newly checked address, never the old socket', async () => {
    const pool = new PinnedConnections();
    const before = srv.accepted.length;
    let address = '127.0.0.3';
    const lookup: LookupFn = async () => [{ address, family: 4 }];
    const a = await fetchBounded(`http://moving.pool.test:${srv.port}/a`, opts(pool, lookup));
    address = '127.0.0.4';
    const b = await fetchBounded(`http://moving.pool.test:${srv.port}/a`, opts(pool, lookup));
    expect(a.final.remoteAddress).toBe('127.0.0.3');
    expect(b.final.remoteAddress).toBe('127.0.0.4');
    expect(srv.accepted.slice(before)).toEqual(['127.0.0.3', '127.0.0.4']);
    pool.closeIdle();
  });

  it('another host name at the same address, or another policy, does not share a connection', async () => {
    const pool = new PinnedConnections();
    const before = srv.accepted.length;
    const lookup: LookupFn = async () => [{ address: '127.0.0.5', family: 4 }];
    await fetchBounded(`http://x.pool.test:${srv.port}/a`, opts(pool, lookup));
    await fetchBounded(`http://y.pool.test:${srv.port}/a`, opts(pool, lookup));
    await fetchBounded(`http://x.pool.test:${srv.port}/a`, opts(pool, lookup, { allowAddress: () => true }));
    expect(srv.accepted.length - before).toBe(3);
    pool.closeIdle();
  });

  it('an answer not read to its end (cut at the cap) closes its connection', async () => {
    const pool = new PinnedConnections();
    const before = srv.accepted.length;
    const lookup: LookupFn = async () => [{ address: '127.0.0.6', family: 4 }];
    const cut = await fetchBounded(`http://cut.pool.test:${srv.port}/big`, opts(pool, lookup, { maxBytes: 1024, overCap: 'truncate' }));
    expect(cut.final.bodyTruncated).toBe(true);
    expect(pool.idle).toBe(0);
    await fetchBounded(`http://cut.pool.test:${srv.port}/a`, opts(pool, lookup));
    expect(srv.accepted.length - before).toBe(2);
    pool.closeIdle();
  });

  it('a request given no pool uses a connection of its own and closes it when it ends', async () => {
    const before = srv.accepted.length;
    const lookup: LookupFn = async () => [{ address: '127.0.0.8', family: 4 }];
    const { connections: _, ...own } = opts(new PinnedConnections(), lookup);
    for (let i = 0; i < 2; i++) expect((await fetchBounded(`http://own.pool.test:${srv.port}/a`, own)).final.status).toBe(200);
    expect(srv.accepted.slice(before)).toEqual(['127.0.0.8', '127.0.0.8']);
    const openTo = () => [...srv.open].filter((s) => s.localAddress === '127.0.0.8').length;
    for (let i = 0; i < 50 && openTo() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(openTo()).toBe(0);
  });

  it('idle connections are bounded over all hosts', async () => {
    const pool = new PinnedConnections(3);
    const lookup: LookupFn = async () => [{ address: '127.0.0.7', family: 4 }];
    for (let i = 0; i < 10; i++) await fetchBounded(`http://h${i}.pool.test:${srv.port}/a`, opts(pool, lookup));
    expect(pool.idle).toBe(3);
    pool.closeIdle();
    expect(pool.idle).toBe(0);
  });
});
