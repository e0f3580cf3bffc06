/**
 * `veronikai check <url>`: the crawler's bounded GET-only chain against real SDK peers on
 * loopback, reachable only with --allow-loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startA2AAgent, startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

let a2a: Peer;
let mcp: Peer;
beforeAll(async () => {
  [a2a, mcp] = await Promise.all([startA2AAgent({ legacy: true, wellKnown: false }), startMcpStreamableStateless()]);
});
afterAll(async () => {
  await Promise.all([a2a.close(), mcp.close()]);
});

describe('veronikai check <url>', () => {
  it('follows the card chain to the legacy path of a real A2A peer and passes it, qualified', async () => {
    const r = await runCli(['check', `${a2a.origin}/agents/missing-card.json`, '--allow-loopback', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { result: string; target: { scope: string }; qualification: string };
    expect(report.result).toBe('pass');
    expect(report.qualification).toMatch(/GET-only/);
    // listing URL, then agent-card.json, then the legacy agent.json that answered
    expect(a2a.paths).toEqual(
      expect.arrayContaining(['/agents/missing-card.json', '/.well-known/agent-card.json', '/.well-known/agent.json']),
    );
  });

  it('judges a live MCP endpoint with the transport rules', async () => {
    const r = await runCli(['check', mcp.url, '--kind', 'mcp', '--allow-loopback', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'pass', target: { kind: 'mcp-endpoint' } });
  });

  it('never reaches loopback without the flag: the check cannot complete (exit 2)', async () => {
    const before = mcp.paths.length;
    const r = await runCli(['check', mcp.url, '--kind', 'mcp']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/SSRF guard/);
    expect(mcp.paths.length).toBe(before);
  });
});
