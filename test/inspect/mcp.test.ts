/**
 * The MCP side of `veronikai inspect` against real peers on loopback:
 * - the TypeScript SDK (@modelcontextprotocol/sdk): Streamable HTTP with sessions (legacy era:
 *   initialize, notifications/initialized, tools/list twice, DELETE of the session), stateless,
 *   and the deprecated HTTP+SSE transport (legacy-sse era);
 * - the official Python SDK (`mcp` 2.3.0, .venv): the modern era (server/discover, cache hints,
 *   extensions, a deprecated capability, an unstable tool list).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildInspectReport, MODERN_VERSION, type InspectExchange, type InspectObservation } from '../../src/conformance/inspect/index.js';
import { observeInspect } from '../../src/inspect/index.js';
import { HAVE_PYTHON_MCP, INSPECT_TEST_SETTINGS, PYTHON_MCP_ABSENT_NOTE, startPythonModernPeer } from '../helpers/inspect-peers.js';
import { expectEvidenceOnEveryVerdict } from '../helpers/inspect-evidence.js';
import { startA2AAgent, startMcpLegacySse, startMcpStreamableStateful, startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

const peers: Peer[] = [];
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
});
async function track(p: Promise<Peer>): Promise<Peer> {
  const x = await p;
  peers.push(x);
  return x;
}

const SETTINGS = INSPECT_TEST_SETTINGS;

const steps = (o: InspectObservation): string[] => o.exchanges.map((e) => `${e.method} ${e.step}`);
const body = (e: InspectExchange): Record<string, unknown> => JSON.parse(e.requestBody ?? 'null') as Record<string, unknown>;

describe('legacy Streamable HTTP (TypeScript SDK)', () => {
  it('with sessions: discover falls back to initialize; initialized, tools/list twice, DELETE of the session', async () => {
    const p = await track(startMcpStreamableStateful());
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    expect(steps(obs)).toEqual([
      'POST mcp.discover',
      'POST mcp.initialize',
      'POST mcp.initialized',
      'POST mcp.tools-list',
      'POST mcp.tools-list',
      'DELETE mcp.delete-session',
    ]);
    const init = obs.exchanges[1]!;
    const sid = init.headers['mcp-session-id'];
    expect(sid).toBeTruthy();
    for (const e of obs.exchanges.slice(2)) expect(e.requestHeaders['mcp-session-id']).toBe(sid);
    expect(obs.exchanges[2]!.status).toBe(202);
    expect(obs.exchanges[5]!.status).toBe(200);
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'legacy',
      toolsListStable: true,
      cacheMetadata: false,
      extensions: [],
      auth: null,
    });
    expect(r.checks.filter((c) => c.outcome === 'pass').map((c) => c.ruleId)).toEqual(
      expect.arrayContaining(['INS-MCP-003', 'INS-MCP-004', 'INS-MCP-005', 'INS-MCP-006', 'INS-MCP-007']),
    );
    expect(r.details.mcp!.tools).toEqual([{ name: 'echo', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(r.result).toBe('pass');
    expectEvidenceOnEveryVerdict(r);
    // the stability check rests on both tools/list exchanges
    expect(r.checks.find((c) => c.ruleId === 'INS-MCP-007')!.evidence.map((e) => e.request.body)).toEqual([
      expect.stringContaining('"id":3'),
      expect.stringContaining('"id":4'),
    ]);
    // a later request with the ended session is refused: the DELETE really ended it
    const after = await fetch(p.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(404);
  });

  it('stateless: no session, so no DELETE; still confirmed legacy', async () => {
    const p = await track(startMcpStreamableStateless());
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    expect(steps(obs)).not.toContain('DELETE mcp.delete-session');
    expect(buildInspectReport(obs).protocols.mcp).toMatchObject({ state: 'confirmed', era: 'legacy', toolsListStable: true });
  });

  it('sends server/discover the 2026-07-28 way first: _meta envelope, MCP-Protocol-Version and Mcp-Method headers', async () => {
    const p = await track(startMcpStreamableStateless());
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    const d = obs.exchanges[0]!;
    expect(d.requestHeaders).toMatchObject({
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'server/discover',
      'user-agent': 'VeronikAI-inspect/test',
    });
    const params = body(d).params as { _meta: Record<string, unknown> };
    expect(params._meta['io.modelcontextprotocol/protocolVersion']).toBe(MODERN_VERSION);
    expect(params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({});
    // The TypeScript SDK refuses the unknown version with a non-modern error: a legacy server, not a modern one.
    expect(d.status).toBe(400);
  });
});

describe('legacy HTTP+SSE, 2024-11-05 (TypeScript SDK)', () => {
  it('falls back to GET, reads the endpoint event, POSTs initialize and reads the answers on the stream', async () => {
    const p = await track(startMcpLegacySse());
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    const open = obs.exchanges.find((e) => e.step === 'mcp.sse-open')!;
    expect(open.events![0]!.event).toBe('endpoint');
    const init = obs.exchanges.find((e) => e.step === 'mcp.initialize' && e.streamReply !== undefined)!;
    expect(init.url).toMatch(/\/messages\?sessionId=/);
    expect(init.streamReply).toContain('"serverInfo"');
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'legacy-sse',
      toolsListStable: true,
      cacheMetadata: false,
      extensions: [],
      auth: null,
    });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['INS-MCP-009']);
    expect(r.findings[0]!.severity).toBe('warn');
    expect(r.exitCode).toBe(0);
    expectEvidenceOnEveryVerdict(r);
  });
});

describe('not MCP at all', () => {
  it('an A2A agent (a real SDK peer) reads as not_detected for MCP, and INS-GEN-001 fails with --protocol mcp', async () => {
    const p = await track(startA2AAgent());
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp.state).toBe('not_detected');
    expect(r.findings.map((f) => f.ruleId)).toEqual(['INS-GEN-001']);
    expect(r.exitCode).toBe(1);
  });
});

describe.skipIf(!HAVE_PYTHON_MCP)('modern era, 2026-07-28 (Python SDK mcp 2.3.0)', () => {
  it('confirms with server/discover alone: no initialize, cache metadata, extensions', async () => {
    const p = await track(startPythonModernPeer({ extension: true }));
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    expect(steps(obs)).toEqual(['POST mcp.discover', 'POST mcp.tools-list', 'POST mcp.tools-list']);
    for (const e of obs.exchanges.slice(1))
      expect(e.requestHeaders).toMatchObject({ 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' });
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'modern',
      toolsListStable: true,
      cacheMetadata: true,
      extensions: ['com.example/inspect-test'],
      auth: null,
    });
    expect(r.details.mcp!.supportedVersions).toContain(MODERN_VERSION);
    expect(r.details.mcp!.serverInfo).toMatchObject({ name: 'veronikai-modern-peer' });
    expect(r.details.mcp!.tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);
    expect(r.checks.find((c) => c.ruleId === 'INS-MCP-008')!.message).toBe('ttlMs 60000, cacheScope public');
    expect(r.findings).toEqual([]);
    expect(r.exitCode).toBe(0);
    expectEvidenceOnEveryVerdict(r);
    // the extension check rests on the server/discover answer that declared it
    const ext = r.checks.find((c) => c.ruleId === 'INS-MCP-011')!;
    expect(ext.outcome).toBe('pass');
    expect(ext.evidence.map((e) => e.request.headers['mcp-method'])).toEqual(['server/discover']);
    expect(ext.evidence[0]!.excerpt).toContain('com.example/inspect-test');
  });

  it('flags a tool whose definition changes between identical calls, naming the tool', async () => {
    const p = await track(startPythonModernPeer({ mutate: true }));
    const r = buildInspectReport(await observeInspect(p.url, 'mcp', SETTINGS));
    expect(r.protocols.mcp).toMatchObject({ state: 'confirmed', era: 'modern', toolsListStable: false });
    expect(r.details.mcp!.toolsChanged).toEqual(['echo']);
    const f = r.findings.find((x) => x.ruleId === 'INS-MCP-007')!;
    expect(f.severity).toBe('warn');
    // the order is the same, only echo's definition changed
    expect(f.message).toBe('definitions changed: echo');
    const check = r.checks.find((c) => c.id === f.check)!;
    expect(check.evidence).toHaveLength(2);
    expect(check.evidence[1]!.excerpt).toContain('Echoes its input (changed)');
    expect(check.evidence[0]!.excerpt).not.toContain('(changed)');
    expectEvidenceOnEveryVerdict(r);
  });

  it('flags a tool list that reorders between identical calls, naming the order', async () => {
    const p = await track(startPythonModernPeer({ reorder: true }));
    const r = buildInspectReport(await observeInspect(p.url, 'mcp', SETTINGS));
    expect(r.protocols.mcp.toolsListStable).toBe(false);
    const f = r.findings.find((x) => x.ruleId === 'INS-MCP-007')!;
    expect(f.message).toMatch(/order changed \(echo, add → add, echo\)/);
    expect(r.checks.find((c) => c.id === f.check)!.evidence).toHaveLength(2);
  });

  it('warns when a modern server declares Logging (deprecated by 2026-07-28)', async () => {
    const p = await track(startPythonModernPeer({ logging: true }));
    const r = buildInspectReport(await observeInspect(p.url, 'mcp', SETTINGS));
    expect(r.protocols.mcp.state).toBe('confirmed');
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([['INS-MCP-010', 'warn']]);
    expect(r.findings[0]!.message).toMatch(/logging/);
  });

  it('the same Python server still answers the legacy handshake: the modern path is taken because discover answered', async () => {
    const p = await track(startPythonModernPeer());
    const res = await fetch(p.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    const obs = await observeInspect(p.url, 'mcp', SETTINGS);
    expect(obs.exchanges.some((e) => e.step === 'mcp.initialize')).toBe(false);
  });
});

if (!HAVE_PYTHON_MCP) {
  describe('modern era, 2026-07-28 (Python SDK mcp 2.3.0)', () => {
    it.skip(PYTHON_MCP_ABSENT_NOTE, () => undefined);
  });
}
