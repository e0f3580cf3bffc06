/**
 * Each hostile server must give an Exchange with the right errorClass in bounded time and
 * bounded memory. Memory is checked through the bytes read (bodyBytes, body.length), never
 * heap snapshots; time with generous margins (a 1 s limit ends well under 3 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBounded, type FetchOptions } from '../../src/http/client.js';
import { CARD_MAX_BYTES, MCP_MAX_BYTES, WIRE_SLACK_BYTES } from '../../src/http/limits.js';
import {
  startHostileServer,
  startPlainTextOnTlsPortServer,
  startSelfSignedTlsServer,
  startSlowHeadersServer,
  type TestServer,
} from '../helpers/hostile-servers.js';

const base: FetchOptions = { contact: 'probes@veronikai.test', allowLoopback: true, timeoutMs: 1000, maxRetries: 0 };
/** One decoded chunk may overshoot the cap before reading stops. */
const SLACK = 128 * 1024;

let srv: TestServer;
beforeAll(async () => {
  srv = await startHostileServer();
});
afterAll(async () => {
  await srv.close();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - t0 };
}

describe('slow answers end at the exchange limit', () => {
  it('slowloris in the header block: timeout, no status', async () => {
    const slow = await startSlowHeadersServer();
    try {
      const { value, ms } = await timed(() => fetchBounded(`${slow.url}/`, base));
      expect(value.final).toMatchObject({ status: null, errorClass: 'timeout', retries: 0 });
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(3000);
    } finally {
      await slow.close();
    }
  });

  it('slowloris in the body: timeout, status and the bytes so far recorded', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/slow-body`, base));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'timeout', bodyTruncated: true });
    expect(value.final.body.length).toBeGreaterThan(0);
    expect(value.final.body.length).toBeLessThan(100);
    expect(ms).toBeLessThan(3000);
  });

  it('a silent SSE stream: timeout with the 200 and its headers recorded', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/sse-silent`, { ...base, accept: 'text/event-stream' }));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'timeout' });
    expect(value.final.headers['content-type']).toBe('text/event-stream');
    expect(ms).toBeLessThan(3000);
  });

  it('a silent SSE stream with a read window: no error, truncated', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/sse-silent`, { ...base, bodyWindowMs: 200, overCap: 'truncate' }));
    expect(value.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true, bodyBytes: 0 });
    expect(ms).toBeLessThan(900);
  });
});

describe('endless and huge bodies end at the cap', () => {
  it('an endless SSE stream stops at 2 KB (truncate: normal path)', async () => {
    const { value, ms } = await timed(() =>
      fetchBounded(`${srv.url}/sse-endless`, { ...base, timeoutMs: 5000, maxBytes: MCP_MAX_BYTES, overCap: 'truncate' }),
    );
    expect(value.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true });
    expect(value.final.body.length).toBe(MCP_MAX_BYTES);
    expect(value.final.bodyBytes).toBeLessThan(MCP_MAX_BYTES + SLACK);
    expect(ms).toBeLessThan(3000);
  });

  it('an endless SSE stream read as a card: body_too_large', async () => {
    const { value } = await timed(() => fetchBounded(`${srv.url}/sse-endless`, { ...base, timeoutMs: 5000, maxBytes: 4096 }));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true });
    expect(value.final.body.length).toBe(4096);
  });

  it('a 4 GiB announced body is refused from its Content-Length without reading it', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/huge-length`, base));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true, bodyBytes: 0 });
    expect(value.final.errorMessage).toContain('content-length 4294967296');
    expect(ms).toBeLessThan(3000);
  });

  it('a 4 GiB announced body read in truncate mode keeps exactly the cap', async () => {
    const r = await fetchBounded(`${srv.url}/huge-length`, { ...base, maxBytes: MCP_MAX_BYTES, overCap: 'truncate' });
    expect(r.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true });
    expect(r.final.body.length).toBe(MCP_MAX_BYTES);
    expect(r.final.bodyBytes).toBeLessThan(MCP_MAX_BYTES + SLACK);
  });

  it('a 4 GiB chunked body stops at 512 KB', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/huge-chunked`, { ...base, timeoutMs: 5000 }));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true });
    expect(value.final.body.length).toBe(CARD_MAX_BYTES);
    expect(value.final.bodyBytes).toBeLessThan(CARD_MAX_BYTES + SLACK);
    expect(ms).toBeLessThan(3000);
  });

  it.each(['/gzip-bomb', '/br-bomb', '/deflate-bomb'])('%s stops at the decoded cap', async (path) => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}${path}`, { ...base, timeoutMs: 5000 }));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true });
    expect(value.final.body.length).toBe(CARD_MAX_BYTES);
    expect(value.final.bodyBytes).toBeLessThan(CARD_MAX_BYTES + SLACK);
    expect(ms).toBeLessThan(3000);
  });

  it('a gzip bomb in truncate mode keeps 2 KB and reports no error', async () => {
    const r = await fetchBounded(`${srv.url}/gzip-bomb`, { ...base, maxBytes: MCP_MAX_BYTES, overCap: 'truncate' });
    expect(r.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true });
    expect(r.final.body.length).toBe(MCP_MAX_BYTES);
    expect(r.final.bodyBytes).toBeLessThan(MCP_MAX_BYTES + SLACK);
  });

  it('a compressed stream that decodes to nothing stops after a bounded number of wire bytes', async () => {
    const { value, ms } = await timed(() =>
      fetchBounded(`${srv.url}/gzip-empty-blocks`, { ...base, timeoutMs: 5000, maxBytes: MCP_MAX_BYTES }),
    );
    expect(value.final).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true, bodyBytes: 0 });
    expect(value.final.errorMessage).toContain(`${MCP_MAX_BYTES + WIRE_SLACK_BYTES} bytes`);
    expect(ms).toBeLessThan(3000);
  });
});

describe('broken connections and TLS', () => {
  it('a connection reset mid-body: reset, with status and partial body recorded, not retried', async () => {
    const { value, ms } = await timed(() => fetchBounded(`${srv.url}/reset-mid-body`, { ...base, maxRetries: 3 }));
    expect(value.final).toMatchObject({ status: 200, errorClass: 'reset', bodyTruncated: true, retries: 0 });
    expect(value.final.body.length).toBeLessThanOrEqual(1000);
    expect(ms).toBeLessThan(3000);
  });

  it('a connection closed mid-body (short of Content-Length): reset', async () => {
    const r = await fetchBounded(`${srv.url}/close-mid-body`, base);
    expect(r.final).toMatchObject({ status: 200, errorClass: 'reset', bodyTruncated: true });
  });

  it('a self-signed certificate: tls', async () => {
    const tls = await startSelfSignedTlsServer();
    try {
      const { value, ms } = await timed(() => fetchBounded(`${tls.url}/`, { ...base, maxRetries: 3 }));
      expect(value.final).toMatchObject({ status: null, errorClass: 'tls', retries: 0 });
      expect(value.final.errorMessage).toMatch(/SELF_SIGNED|self.signed/i);
      expect(ms).toBeLessThan(3000);
    } finally {
      await tls.close();
    }
  });

  it('plain text where TLS was expected: tls', async () => {
    const plain = await startPlainTextOnTlsPortServer();
    try {
      const r = await fetchBounded(`${plain.url}/`, base);
      expect(r.final).toMatchObject({ status: null, errorClass: 'tls' });
    } finally {
      await plain.close();
    }
  });
});
