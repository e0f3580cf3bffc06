import { describe, expect, it } from 'vitest';
import {
  checkServerJson,
  judgeMcpEndpoint,
  judgeMcpObservation,
  type HttpExchange,
  type McpObservation,
} from '../../src/conformance/index.js';
import { isPlaceholderDescription, repeatsName, SEMVER } from '../../src/conformance/mcp-quality.js';
import { firstSseEvent, isJsonRpcError, offersBearer } from '../../src/conformance/mcp-transport.js';
import { ctxOf, ruleIds, weatherServerJson } from './helpers.js';

const ctx = ctxOf('t');
const good = weatherServerJson();
const q = (over: Record<string, unknown>) => checkServerJson({ value: weatherServerJson(over) }, ctx);
const remote = (url: string, type = 'streamable-http') => ({ remotes: [{ type, url }] });

describe('MCP quality (suite veronikai-mcp-conformance v2)', () => {
  it('passes a good server.json', () => {
    const v = q({});
    expect(v.result).toBe('pass');
    expect(v.suite).toEqual({ id: 'veronikai-mcp-conformance', version: 3 });
    expect(v.scope).toBe('document');
  });

  it.each([
    [{ description: 12 }, ['MCP-Q-002']],
    [{ description: 'Weather tools.' }, ['MCP-Q-003']],
    [{ description: 'Weather MCP' }, ['MCP-Q-003', 'MCP-Q-005']],
    [{ description: 'hello world' }, ['MCP-Q-003', 'MCP-Q-004']],
    [{ description: 'An MCP server' }, ['MCP-Q-003', 'MCP-Q-004']],
    [{ description: 'Lorem ipsum dolor sit amet, consectetur' }, ['MCP-Q-004']],
    [{ description: 'io.github.acme/weather-forecasts', name: 'io.github.acme/weather-forecasts' }, ['MCP-Q-005']],
    [{ version: 3 }, ['MCP-Q-006']],
    [{ version: '1.2' }, ['MCP-Q-007']],
    [{ version: '${VERSION}' }, ['MCP-Q-007']],
    [{ version: '0.0.0' }, ['MCP-Q-102']],
    [{ remotes: [] }, ['MCP-Q-008']],
    [remote('https://mcp.acme-weather.dev/mcp', 'websocket'), ['MCP-Q-009']],
    [remote('ftp://mcp.acme-weather.dev/mcp'), ['MCP-Q-010']],
    [remote('https://127.0.0.1/mcp'), ['MCP-Q-011']],
    [remote('https://10.0.0.7/mcp'), ['MCP-Q-011']],
    [remote('https://[fd12::1]/mcp'), ['MCP-Q-011']],
    [remote('https://[::ffff:192.168.1.1]/mcp'), ['MCP-Q-011']],
    [remote('https://169.254.169.254/latest'), ['MCP-Q-011']],
    [remote('https://your-server.com/mcp'), ['MCP-Q-011']],
    [remote('https://mcp-server/mcp'), ['MCP-Q-011']],
    [remote('https://{host}/mcp'), ['MCP-Q-104']],
    [remote('{baseUrl}/mcp'), ['MCP-Q-104']],
    [remote('http://{host}/mcp'), ['MCP-Q-104', 'MCP-Q-010']],
    [{ repository: { url: 'github.com/acme/weather' } }, ['MCP-Q-012']],
    [{ repository: 'https://github.com/acme/weather' }, ['MCP-Q-012']],
    [{ repository: { url: '', source: '' } }, ['MCP-Q-101']],
    [{ title: 'forecasts, radar maps and severe weather alerts for any city' }, ['MCP-Q-103']],
  ])('%j → %j', (over, expected) => {
    expect(ruleIds(q(over))).toEqual(expected);
  });

  it('a website URL alone is enough to avoid the repository warning', () => {
    expect(ruleIds(q({ repository: undefined, websiteUrl: 'https://acme-weather.dev' }))).toEqual([]);
  });

  it('helpers', () => {
    for (const s of ['1.0.0', '0.1.0-beta', '2.3.4+build.5', '1.0.0-rc.1']) expect(SEMVER.test(s), s).toBe(true);
    for (const s of ['1.0', 'v1.0.0', '01.0.0', '1.0.0.0', 'latest']) expect(SEMVER.test(s), s).toBe(false);
    expect(isPlaceholderDescription('A Model Context Protocol server for Figma')).toBe(false);
    expect(isPlaceholderDescription('TODO: write a description')).toBe(true);
    expect(isPlaceholderDescription('{{description}}')).toBe(true);
    expect(repeatsName('Weather', 'io.github.acme/weather')).toBe(true);
    expect(repeatsName('Weather alerts for your city', 'io.github.acme/weather')).toBe(false);
  });
});

const ex = (
  status: number | null,
  headers: Record<string, string> = {},
  body?: string,
  extra: Partial<HttpExchange> = {},
): HttpExchange => ({
  url: 'https://mcp.acme-weather.dev/mcp',
  status,
  headers,
  ...(body !== undefined ? { body } : {}),
  ...extra,
});
const o = (get: HttpExchange | null, extra: Partial<McpObservation> = {}): McpObservation => ({
  remote: { type: 'streamable-http', url: 'https://mcp.acme-weather.dev/mcp' },
  get,
  metadata: null,
  robots: 'allowed',
  canary: 'ok',
  serverJson: good,
  ...extra,
});
const t = (get: HttpExchange | null, extra: Partial<McpObservation> = {}) => judgeMcpObservation(o(get, extra), ctx);

describe('MCP transport on the one GET', () => {
  it('streamable HTTP: SSE or 405 pass', () => {
    expect(t(ex(200, { 'content-type': 'text/event-stream; charset=utf-8' }, '')).verdict.result).toBe('pass');
    expect(t(ex(405)).verdict.result).toBe('pass');
    expect(t(ex(405)).verdict.scope).toBe('observation');
  });
  it('HTML, 404 and 5xx fail', () => {
    expect(ruleIds(t(ex(200, {}, '<!DOCTYPE html><html>')).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(400, { 'content-type': 'text/html' }, 'x')).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(404)).verdict)).toEqual(['MCP-T-005']);
    expect(ruleIds(t(ex(503)).verdict)).toEqual(['MCP-T-006']);
  });
  it('401 needs Bearer or RFC 9728 metadata; missing metadata alone warns', () => {
    const meta = ex(200, { 'content-type': 'application/json' }, '{"resource":"https://mcp.acme-weather.dev/mcp"}');
    expect(ruleIds(t(ex(401)).verdict)).toEqual(['MCP-T-003']);
    expect(ruleIds(t(ex(401, { 'www-authenticate': 'Basic realm="x"' })).verdict)).toEqual(['MCP-T-003']);
    expect(ruleIds(t(ex(401, { 'www-authenticate': 'Basic realm="x", Bearer' })).verdict)).toEqual(['MCP-T-101']);
    expect(t(ex(401, { 'www-authenticate': 'Bearer' })).verdict.result).toBe('pass');
    expect(ruleIds(t(ex(401, { 'www-authenticate': 'Bearer' }), { metadata: meta }).verdict)).toEqual([]);
    expect(ruleIds(t(ex(401), { metadata: meta }).verdict)).toEqual([]);
    expect(ruleIds(t(ex(401), { metadata: ex(200, {}, '{"authorization_servers":[]}') }).verdict)).toEqual(['MCP-T-003']);
  });
  it('403 is judged like 401 (seed 000 "on 401/403"): neither Bearer nor metadata fails, Bearer alone warns', () => {
    const meta = ex(200, { 'content-type': 'application/json' }, '{"resource":"https://mcp.acme-weather.dev/mcp"}');
    const bare = t(ex(403, {}, 'Forbidden')).verdict;
    expect(ruleIds(bare)).toEqual(['MCP-T-003']);
    expect(bare.result).toBe('fail');
    expect(bare.reasons[0]).toContain('HTTP 403 without WWW-Authenticate: Bearer');
    const bearer = t(ex(403, { 'www-authenticate': 'Bearer' })).verdict;
    expect(ruleIds(bearer)).toEqual(['MCP-T-101']);
    expect(bearer.result).toBe('pass');
    expect(ruleIds(t(ex(403), { metadata: meta }).verdict)).toEqual([]);
    expect(ruleIds(t(ex(403, { 'www-authenticate': 'Bearer' }), { metadata: meta }).verdict)).toEqual([]);
    expect(ruleIds(t(ex(403, { 'www-authenticate': 'Basic' })).verdict)).toEqual(['MCP-T-003']);
  });
  it('an HTML page fails before the 401/403/405 branches (a login or WAF page is still an HTML page)', () => {
    const html = '<!DOCTYPE html><html><body>Sign in</body></html>';
    const bearer = { 'www-authenticate': 'Bearer' };
    expect(ruleIds(t(ex(401, bearer, html)).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(401, { ...bearer, 'content-type': 'text/html' }, 'x')).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(403, bearer, html)).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(403, { 'content-type': 'text/html; charset=utf-8' }, 'Access denied')).verdict)).toEqual(['MCP-T-004']);
    expect(ruleIds(t(ex(405, {}, html)).verdict)).toEqual(['MCP-T-004']);
    expect(t(ex(405, {}, html)).verdict.result).toBe('fail');
    // not HTML: the status branches still decide
    expect(t(ex(405, { 'content-type': 'text/plain' }, 'Method Not Allowed')).verdict.result).toBe('pass');
    expect(ruleIds(t(ex(401, bearer, '{"error":"unauthorized"}')).verdict)).toEqual(['MCP-T-101']);
  });
  it('a sessionless JSON-RPC error instead of 405 warns', () => {
    const body = '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}';
    expect(ruleIds(t(ex(400, { 'content-type': 'application/json' }, body)).verdict)).toEqual(['MCP-T-102']);
    expect(ruleIds(t(ex(406, {}, body.slice(0, 60), { bodyTruncated: true })).verdict)).toEqual(['MCP-T-102']);
    expect(ruleIds(t(ex(400, {}, 'Bad Request')).verdict)).toEqual(['MCP-T-001']);
  });
  it('legacy SSE must open with an endpoint event', () => {
    const legacy = { remote: { type: 'sse', url: 'https://mcp.acme-weather.dev/mcp' } };
    const sse = { 'content-type': 'text/event-stream' };
    expect(t(ex(200, sse, 'event: endpoint\ndata: /messages\n\n'), legacy).verdict.result).toBe('pass');
    expect(t(ex(200, sse, ':ping\n\nevent:endpoint\r\ndata:/m\r\n\r\n'), legacy).verdict.result).toBe('pass');
    expect(ruleIds(t(ex(200, sse, 'event: message\ndata: {}\n\n'), legacy).verdict)).toEqual(['MCP-T-002']);
    expect(ruleIds(t(ex(200, { 'content-type': 'application/json' }, '{}'), legacy).verdict)).toEqual(['MCP-T-002']);
    expect(t(ex(200, sse, 'event: endp'), legacy).verdict.result).toBe('unknown');
  });
  it('402, 429, no answer, robots, a failed canary and a URL template are unknown', () => {
    for (const [get, extra] of [
      [ex(402), {}],
      [ex(429), {}],
      [ex(null, {}, undefined, { errorClass: 'timeout' }), {}],
      [ex(null, {}, undefined, { errorClass: 'refused' }), { canary: 'failed' }],
      [null, { robots: 'disallowed' }],
      [ex(405), { remote: { type: 'streamable-http', url: 'https://{tenant}.acme.dev/mcp' } }],
    ] as Array<[HttpExchange | null, Partial<McpObservation>]>) {
      expect(t(get, extra).verdict.result).toBe('unknown');
    }
  });
  it('a quality failure is not hidden by an unknown transport', () => {
    const r = t(ex(402), { serverJson: weatherServerJson({ version: 'one' }) });
    expect(r.verdict.result).toBe('fail');
    expect(r.verdict.reasons.some((x) => x.startsWith('unknown:'))).toBe(true);
  });
  it('conformance is n/a without a server.json; uptime is still recorded', () => {
    const r = t(ex(405), { serverJson: null });
    expect(r.verdict.result).toBe('n/a');
    expect(r.uptime.state).toBe('up');
  });
  it('warns when the probed endpoint differs from the declared remote', () => {
    expect(
      ruleIds(t(ex(405), { remote: { type: 'streamable-http', url: 'https://mcp.acme-weather.dev/other' }, serverJson: good }).verdict),
    ).toEqual(['MCP-T-103']);
    expect(ruleIds(t(ex(405), { remote: null, serverJson: weatherServerJson(remote('https://mcp.acme-weather.dev/v2')) }).verdict)).toEqual(
      ['MCP-T-103'],
    );
    expect(ruleIds(t(ex(405, {}, undefined, { url: 'https://MCP.acme-weather.dev:443/mcp/' })).verdict)).toEqual([]);
  });
  it('judgeMcpEndpoint runs the transport rules alone', () => {
    expect(judgeMcpEndpoint(o(ex(404), { serverJson: null }), ctx).verdict.result).toBe('fail');
    expect(judgeMcpEndpoint(o(ex(405), { serverJson: null }), ctx).verdict.result).toBe('pass');
  });
  it('a verdict that judged one half of suite v2 says which half did not run, without changing the result', () => {
    const endpoint = judgeMcpEndpoint(o(ex(405), { serverJson: null }), ctx).verdict;
    expect(endpoint.result).toBe('pass');
    expect(endpoint.scope).toBe('observation');
    expect(endpoint.reasons).toEqual(['n/a: quality rules not run: no server.json']);
    expect(judgeMcpEndpoint(o(ex(402), { serverJson: null }), ctx).verdict.reasons).toEqual([
      'unknown: HTTP 402 Payment Required: a paid server answered; we do not pay to look inside',
      'n/a: quality rules not run: no server.json',
    ]);
    const file = q({});
    expect(file.result).toBe('pass');
    expect(file.scope).toBe('document');
    expect(file.reasons).toEqual(['n/a: transport rules not run: no live GET']);
    expect(checkServerJson({ text: '{' }, ctx).reasons).toEqual([
      'MCP-Q-001 #: server.json does not parse as JSON',
      'n/a: transport rules not run: no live GET',
    ]);
    const noGet = t(null);
    expect(noGet.verdict).toMatchObject({ result: 'pass', scope: 'document' });
    expect(noGet.verdict.reasons).toEqual(['n/a: transport rules not run: no live GET']);
    // the whole suite ran: no such line
    expect(t(ex(405)).verdict.reasons).toEqual([]);
  });
  it('helpers', () => {
    expect(offersBearer('Bearer')).toBe(true);
    expect(offersBearer('bearer realm="x"')).toBe(true);
    expect(offersBearer('Basic realm="Bearer"')).toBe(false);
    expect(firstSseEvent('data: x\n\n')).toBe('message');
    expect(firstSseEvent('event: endpoint\n')).toBeNull();
    expect(isJsonRpcError('[{"jsonrpc":"2.0","error":{"code":1}}]', false)).toBe(true);
    expect(isJsonRpcError('{"jsonrpc":"2.0","result":{}}', false)).toBe(false);
  });
});
