/**
 * Where @modelcontextprotocol/conformance (0.1.13, the newest release that runs on Node 20:
 * 0.1.14+ import fs.globSync, Node 22) checks the same thing against the same peer, the two
 * agree: its `server-initialize` scenario and our INS-MCP-003 (the initialize result), its
 * `tools-list` scenario and our INS-MCP-006 (the tool list) — on a conformant TypeScript SDK
 * peer (both pass) and on a peer whose initialize result lacks serverInfo (both fail).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { buildInspectReport } from '../../src/conformance/inspect/index.js';
import { observeInspect } from '../../src/inspect/index.js';
import { ROOT } from '../helpers/cli.js';
import { INSPECT_TEST_SETTINGS, listenApp, type Listening } from '../helpers/inspect-peers.js';
import { startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const HAVE = existsSync(CLI);

interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
}

/** Runs one server scenario of the conformance CLI (asynchronously: the peer lives in this process). */
async function scenario(url: string, name: string): Promise<ConformanceCheck[]> {
  const out = mkdtempSync(join(tmpdir(), 'veronikai-conformance-'));
  try {
    await promisify(execFile)(process.execPath, [CLI, 'server', '--url', url, '--scenario', name, '-o', out], {
      cwd: out,
      timeout: 60_000,
    }).catch(() => undefined);
    const dir = readdirSync(out).find((d) => d.startsWith(`server-${name}-`));
    if (!dir) throw new Error(`the conformance CLI wrote no results for ${name}`);
    return JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as ConformanceCheck[];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A JSON-answering MCP server whose initialize result lacks serverInfo (and otherwise answers tools/list). */
async function brokenInitializePeer(): Promise<Listening & { url: string }> {
  const app = express();
  app.use(express.json());
  app.post('/mcp', (req, res) => {
    const m = req.body as { id?: number; method?: string };
    if (m.id === undefined) return void res.status(202).end();
    if (m.method === 'initialize')
      return void res.json({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} } } });
    if (m.method === 'tools/list')
      return void res.json({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
    res.status(404).json({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  });
  const l = await listenApp(app);
  return { ...l, url: `${l.origin}/mcp` };
}

const open: Array<Peer | Listening> = [];
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
});

describe.skipIf(!HAVE)('agreement with @modelcontextprotocol/conformance', () => {
  it('a conformant TypeScript SDK peer (stateless Streamable HTTP, one instance for both tools): server-initialize and tools-list succeed, INS-MCP-003 and INS-MCP-006 pass', async () => {
    const p = await startMcpStreamableStateless();
    open.push(p);
    const [init, tools] = [await scenario(p.url, 'server-initialize'), await scenario(p.url, 'tools-list')];
    const r = buildInspectReport(await observeInspect(p.url, 'mcp', INSPECT_TEST_SETTINGS));
    const ours = (id: string): string | undefined => r.checks.find((c) => c.ruleId === id)?.outcome;
    expect(init.find((c) => c.id === 'server-initialize')?.status).toBe('SUCCESS');
    expect(ours('INS-MCP-003')).toBe('pass');
    expect(tools.find((c) => c.id === 'tools-list')?.status).toBe('SUCCESS');
    expect(ours('INS-MCP-006')).toBe('pass');
  });

  it('an initialize result without serverInfo: server-initialize fails, and so does INS-MCP-003', async () => {
    const p = await brokenInitializePeer();
    open.push(p);
    const init = await scenario(p.url, 'server-initialize');
    const r = buildInspectReport(await observeInspect(p.url, 'mcp', INSPECT_TEST_SETTINGS));
    expect(init.find((c) => c.id === 'server-initialize')?.status).toBe('FAILURE');
    const ours = r.checks.find((c) => c.ruleId === 'INS-MCP-003')!;
    expect(ours.outcome).toBe('fail');
    expect(ours.message).toMatch(/serverInfo is missing/);
    expect(r.protocols.mcp.state).toBe('indicated');
  });
});

if (!HAVE) {
  describe('agreement with @modelcontextprotocol/conformance', () => {
    it.skip('@modelcontextprotocol/conformance is not installed (npm install adds it as a devDependency)', () => undefined);
  });
}
