/**
 * `veronikai probe` spawned as a user runs it, against a real MCP SDK peer on loopback.
 * Exit codes: 0 the probe got its answer, 1 the event carries an error class, 2 usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startA2AAgent, startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

const cli = (args: string[]) => runCli(args);

let mcp: Peer;
let a2a: Peer;
beforeAll(async () => {
  mcp = await startMcpStreamableStateless();
  a2a = await startA2AAgent();
});
afterAll(async () => {
  await Promise.all([mcp.close(), a2a.close()]);
});

describe('veronikai probe', () => {
  it('--json --allow-loopback against a real MCP peer: exit 0, a Probe event as JSON', async () => {
    const r = await cli(['probe', mcp.url, '--protocol', 'mcp', '--json', '--allow-loopback', '--timeout', '3s']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ev = JSON.parse(r.stdout) as Record<string, unknown> & { exchanges: Array<Record<string, unknown>> };
    expect(ev).toMatchObject({ protocol: 'mcp', targetUrl: mcp.url, robots: 'allowed', canary: 'unknown', errorClass: null, retries: 0 });
    for (const k of ['id', 'observedAt', 'runId', 'requestId', 'agentKey', 'transport', 'inSample']) expect(ev).toHaveProperty(k);
    expect(ev.exchanges).toHaveLength(1);
    expect(ev.exchanges[0]).toMatchObject({ role: 'mcp-get', url: mcp.url, status: 200, errorClass: null });
    expect(typeof ev.exchanges[0]!.body).toBe('string'); // base64
    expect(mcp.paths).toEqual(['/robots.txt', '/mcp']);
  }, 30_000);

  it('without --allow-loopback the loopback target is refused: blocked_address recorded, exit 1, nothing sent', async () => {
    mcp.paths.length = 0;
    const r = await cli(['probe', mcp.url, '--protocol', 'mcp', '--json']);
    expect(r.code).toBe(1);
    const ev = JSON.parse(r.stdout) as { errorClass: string; robots: string; exchanges: Array<{ errorClass: string; status: null }> };
    expect(ev).toMatchObject({ errorClass: 'blocked_address', robots: 'not_checked' });
    expect(ev.exchanges[0]).toMatchObject({ status: null, errorClass: 'blocked_address' });
    expect(mcp.paths).toEqual([]);
  }, 30_000);

  it('human output for an A2A card; usage errors exit 2', async () => {
    const r = await cli(['probe', a2a.url, '--protocol', 'a2a', '--allow-loopback']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('robots: allowed');
    expect(r.stdout).toContain('[well-known] GET');
    expect(r.stdout).toContain('HTTP 200');

    const missing = await cli(['probe', a2a.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--protocol/);
    const badTimeout = await cli(['probe', a2a.url, '--protocol', 'a2a', '--timeout', '1h']);
    expect(badTimeout.code).toBe(2);
  }, 30_000);
});
