import { describe, expect, it } from 'vitest';
import { MCP_MAX_BYTES } from '../../../src/http/limits.js';
import { jsonObjectOrNull } from '../../../src/util/text.js';
import {
  hasCompleteSseEvent,
  probeMcpEndpoint,
  protectedResourceMetadataUrls,
  resourceMetadataFromWwwAuthenticate,
  type McpProbeOptions,
} from '../../../src/producers/probe/index.js';
import { usePeers } from '../../helpers/peer-lifecycle.js';
import { startMcpLegacySse, startMcpStreamableStateful, startMcpStreamableStateless, startMcpWithBearerAuth } from '../../helpers/peers.js';

const opts: McpProbeOptions = {
  contact: 'probes@veronikai.test',
  allowLoopback: true,
  timeoutMs: 2000,
  bodyWindowMs: 300,
  maxRetries: 0,
};

const { track: peer, hostile: hostileServer } = usePeers();

describe('probeMcpEndpoint against real MCP SDK servers', () => {
  it('Streamable HTTP, stateless: an SSE stream opens; read for the window, then closed', async () => {
    const p = await peer(startMcpStreamableStateless());
    const t0 = Date.now();
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.exchanges).toHaveLength(1);
    expect(r.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true, method: 'GET' });
    expect(r.final.headers['content-type']).toBe('text/event-stream');
    expect(r.final.requestHeaders.accept).toBe('text/event-stream');
    expect(r.metadata).toBeUndefined();
    expect(r.metadataExchanges).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('Streamable HTTP, stateful: the GET without a session gets the SDK JSON-RPC error, read whole', async () => {
    const p = await peer(startMcpStreamableStateful());
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.final).toMatchObject({ status: 400, errorClass: null, bodyTruncated: false });
    expect(jsonObjectOrNull(r.final)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('legacy HTTP+SSE: reading stops after the first complete event (the endpoint event)', async () => {
    const p = await peer(startMcpLegacySse());
    const t0 = Date.now();
    const r = await probeMcpEndpoint(p.url, { ...opts, bodyWindowMs: 5000 });
    expect(r.final).toMatchObject({ status: 200, errorClass: null });
    expect(r.final.body.toString()).toMatch(/^event: endpoint\ndata: \/messages\?sessionId=[0-9a-f-]+\n\n$/);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('bearer auth: 401 with resource_metadata → the RFC 9728 metadata is fetched', async () => {
    const p = await peer(startMcpWithBearerAuth());
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.final.status).toBe(401);
    expect(r.final.headers['www-authenticate']).toMatch(/^Bearer .*resource_metadata="/);
    expect(r.metadataSource).toBe('www-authenticate');
    expect(r.metadata).toMatchObject({ status: 200, errorClass: null, url: `${p.origin}/.well-known/oauth-protected-resource/mcp` });
    expect(r.metadata!.requestHeaders.accept).toBe('application/json');
    expect(jsonObjectOrNull(r.metadata!)).toMatchObject({ resource: p.url, authorization_servers: [`${p.origin}/`] });
    expect(r.metadataExchanges).toHaveLength(1);
  });

  it('bearer auth without resource_metadata: the path-specific well-known URL is found', async () => {
    const p = await peer(startMcpWithBearerAuth({ advertiseMetadata: false }));
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.final.status).toBe(401);
    expect(r.final.headers['www-authenticate']).not.toContain('resource_metadata');
    expect(r.metadataSource).toBe('path');
    expect(r.metadata).toMatchObject({ status: 200 });
  });

  it('403 insufficient_scope also fetches the metadata', async () => {
    const p = await peer(startMcpWithBearerAuth({ forbid: true }));
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.final.status).toBe(403);
    expect(r.metadata).toMatchObject({ status: 200 });
  });

  it('a resource_metadata URL on a blocked address is refused by the guard', async () => {
    const p = await peer(startMcpWithBearerAuth({ resourceMetadataUrl: 'http://169.254.169.254/latest/meta-data/iam' }));
    const r = await probeMcpEndpoint(p.url, opts);
    expect(r.final.status).toBe(401);
    expect(r.metadataSource).toBe('www-authenticate');
    expect(r.metadata).toMatchObject({ status: null, errorClass: 'blocked_address', remoteAddress: null });
    expect(r.metadata!.errorMessage).toContain('cloud-metadata');
  });
});

describe('probeMcpEndpoint against hostile and plain servers', () => {
  it('401 with no metadata anywhere: path-specific then root are tried, the last is kept', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/mcp-401`, opts);
    expect(r.final.status).toBe(401);
    expect(r.metadataExchanges.map((e) => [e.url, e.status])).toEqual([
      [`${hostileServer().url}/.well-known/oauth-protected-resource/mcp-401`, 404],
      [`${hostileServer().url}/.well-known/oauth-protected-resource`, 404],
    ]);
    expect(r.metadataSource).toBe('root');
    expect(r.metadata).toBe(r.metadataExchanges[1]);
  });

  it('405 is read whole and no metadata is fetched', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/mcp-405`, opts);
    expect(r.final).toMatchObject({ status: 405, errorClass: null, bodyTruncated: false });
    expect(r.final.headers.allow).toBe('POST');
    expect(r.metadataExchanges).toEqual([]);
  });

  it('an SSE event that never completes is cut at 2 KB (normal path, no error)', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/sse-one-long-line`, { ...opts, bodyWindowMs: 5000 });
    expect(r.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true });
    expect(r.final.body.length).toBe(MCP_MAX_BYTES);
  });

  it('an endless SSE stream stops after its first event', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/sse-endless`, opts);
    expect(r.final).toMatchObject({ status: 200, errorClass: null, bodyTruncated: true });
    expect(r.final.body.toString()).toMatch(/^event: tick\ndata: 0123456789abcdef\n\n/);
    expect(r.final.body.length).toBeLessThanOrEqual(MCP_MAX_BYTES);
  });

  it('an HTML 404 is read up to 2 KB', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/nothing-here`, opts);
    expect(r.final).toMatchObject({ status: 404, errorClass: null });
    expect(r.final.headers['content-type']).toBe('text/html');
  });

  it('one GET: a redirect is the observation, not followed', async () => {
    const r = await probeMcpEndpoint(`${hostileServer().url}/redirect?to=/mcp-405`, opts);
    expect(r.exchanges).toHaveLength(1);
    expect(r.final.status).toBe(302);
    const followed = await probeMcpEndpoint(`${hostileServer().url}/redirect?to=/mcp-405`, { ...opts, followRedirects: true });
    expect(followed.exchanges.map((e) => e.status)).toEqual([302, 405]);
  });

  it('a blocked endpoint is refused without a request', async () => {
    const r = await probeMcpEndpoint('http://10.1.2.3/mcp', opts);
    expect(r.final).toMatchObject({ status: null, errorClass: 'blocked_address' });
  });
});

describe('helpers', () => {
  it('resourceMetadataFromWwwAuthenticate', () => {
    expect(resourceMetadataFromWwwAuthenticate('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource"')).toBe(
      'https://a.example/.well-known/oauth-protected-resource',
    );
    expect(resourceMetadataFromWwwAuthenticate('Bearer error="invalid_token", scope="a b", Resource_Metadata="https://x/\\"q\\""')).toBe(
      'https://x/"q"',
    );
    expect(resourceMetadataFromWwwAuthenticate('Basic realm="x", Bearer resource_metadata=https://t/m')).toBe('https://t/m');
    expect(resourceMetadataFromWwwAuthenticate('Bearer realm="x"')).toBeNull();
    expect(resourceMetadataFromWwwAuthenticate('Bearer xresource_metadata="https://no/"')).toBeNull();
    expect(resourceMetadataFromWwwAuthenticate(undefined)).toBeNull();
    expect(resourceMetadataFromWwwAuthenticate('Bearer resource_metadata=""')).toBeNull();
  });

  it('protectedResourceMetadataUrls follows RFC 9728 §3.1', () => {
    expect(protectedResourceMetadataUrls('https://api.example.com/mcp')).toEqual([
      { url: 'https://api.example.com/.well-known/oauth-protected-resource/mcp', source: 'path' },
      { url: 'https://api.example.com/.well-known/oauth-protected-resource', source: 'root' },
    ]);
    expect(protectedResourceMetadataUrls('https://api.example.com/v1/mcp/')).toEqual([
      { url: 'https://api.example.com/.well-known/oauth-protected-resource/v1/mcp', source: 'path' },
      { url: 'https://api.example.com/.well-known/oauth-protected-resource', source: 'root' },
    ]);
    expect(protectedResourceMetadataUrls('https://api.example.com/')).toEqual([
      { url: 'https://api.example.com/.well-known/oauth-protected-resource', source: 'root' },
    ]);
    expect(protectedResourceMetadataUrls('not a url')).toEqual([]);
  });

  it('hasCompleteSseEvent ignores comment-only blocks and incomplete events', () => {
    expect(hasCompleteSseEvent(Buffer.from('event: endpoint\ndata: /m\n\n'))).toBe(true);
    expect(hasCompleteSseEvent(Buffer.from('data: x\r\n\r\n'))).toBe(true);
    expect(hasCompleteSseEvent(Buffer.from(': keepalive\n\n'))).toBe(false);
    expect(hasCompleteSseEvent(Buffer.from(': keepalive\n\ndata: x\n'))).toBe(false);
    expect(hasCompleteSseEvent(Buffer.from('data: x'))).toBe(false);
    expect(hasCompleteSseEvent(Buffer.from(''))).toBe(false);
  });
});
