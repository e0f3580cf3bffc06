/**
 * `veronikai inspect <url>` as a user runs it, against real peers on loopback: the JSON report's
 * `protocols` summary has exactly the fields of issue 11, the terminal prints the states first,
 * SARIF carries the findings, exit codes follow `check`, and a --header value is never printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  HAVE_PYTHON_MCP,
  startAuthorizationServer,
  startCardServer,
  craftedCard,
  startProtectedMcp,
  startPythonModernPeer,
  type Listening,
} from '../helpers/inspect-peers.js';
import { startA2AAgent, startMcpLegacySse, startMcpStreamableStateful, type Peer } from '../helpers/peers.js';

let legacy: Peer;
let sse: Peer;
let a2a: Peer;
let bad: Listening;
let as: { issuer: string; close: () => Promise<void> };
let guarded: Listening & { url: string };
const TOKEN = 'cli-owner-token-93f1e2';
beforeAll(async () => {
  [legacy, sse, a2a, bad] = await Promise.all([
    startMcpStreamableStateful(),
    startMcpLegacySse(),
    startA2AAgent(),
    startCardServer(craftedCard({ skills: [] })),
  ]);
  as = await startAuthorizationServer('dcr');
  guarded = await startProtectedMcp({ issuer: as.issuer, acceptToken: TOKEN });
});
afterAll(async () => {
  await Promise.all([legacy.close(), sse.close(), a2a.close(), bad.close(), as.close(), guarded.close()]);
});

const MCP_KEYS = ['auth', 'cacheMetadata', 'era', 'extensions', 'state', 'toolsListStable'];
const A2A_KEYS = ['cardUrl', 'legacyPathOnly', 'oidc', 'secretsFound', 'securitySchemesDeclared', 'skillsWithoutDescription', 'state'];
const AUTH_KEYS = ['issuer', 'oauthMetadata', 'openidConfiguration', 'registration', 'required', 'resourceMetadataUrl'];

interface Summary {
  protocols: { mcp: Record<string, unknown> & { auth: Record<string, unknown> | null }; a2a: Record<string, unknown> };
  result: string;
  exitCode: number;
}

describe('veronikai inspect', () => {
  it("--json: the protocols summary has exactly the issue's fields (legacy MCP, confirmed; exit 0)", async () => {
    const r = await runCli(['inspect', legacy.url, '--allow-loopback', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Summary;
    expect(Object.keys(j.protocols).sort()).toEqual(['a2a', 'mcp']);
    expect(Object.keys(j.protocols.mcp).sort()).toEqual(MCP_KEYS);
    expect(Object.keys(j.protocols.a2a).sort()).toEqual(A2A_KEYS);
    expect(j.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'legacy',
      toolsListStable: true,
      cacheMetadata: false,
      extensions: [],
      auth: null,
    });
    expect(j.protocols.a2a).toEqual({
      state: 'not_detected',
      cardUrl: null,
      legacyPathOnly: false,
      secretsFound: 0,
      oidc: 'absent',
      skillsWithoutDescription: 0,
      securitySchemesDeclared: false,
    });
  });

  it('--json on a protected endpoint: auth summary with every field; --header sent but never printed', async () => {
    const r = await runCli(['inspect', guarded.url, '--protocol', 'mcp', '--allow-loopback', '--json']);
    const j = JSON.parse(r.stdout) as Summary;
    expect(j.protocols.mcp.state).toBe('indicated');
    expect(Object.keys(j.protocols.mcp.auth!).sort()).toEqual(AUTH_KEYS);
    expect(j.protocols.mcp.auth).toMatchObject({
      required: true,
      issuer: as.issuer,
      openidConfiguration: true,
      oauthMetadata: true,
      registration: 'dcr',
    });
    expect(r.code).toBe(0); // warnings only (DCR only)

    const withToken = await runCli([
      'inspect',
      guarded.url,
      '--protocol',
      'mcp',
      '--allow-loopback',
      '--json',
      '--header',
      `Authorization: Bearer ${TOKEN}`,
    ]);
    expect(withToken.code, withToken.stderr).toBe(0);
    expect((JSON.parse(withToken.stdout) as Summary).protocols.mcp).toMatchObject({ state: 'confirmed', era: 'legacy' });
    expect(withToken.stdout + withToken.stderr).not.toContain(TOKEN);
    const term = await runCli([
      'inspect',
      guarded.url,
      '--protocol',
      'mcp',
      '--allow-loopback',
      '--header',
      `Authorization: Bearer ${TOKEN}`,
    ]);
    expect(term.stdout + term.stderr).not.toContain(TOKEN);
  });

  it('terminal: the states first, then findings grouped by protocol', async () => {
    const r = await runCli(['inspect', `${sse.url}`, '--allow-loopback']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[3]).toMatch(/^MCP {2}CONFIRMED · era legacy-sse/);
    expect(lines[4]).toMatch(/^A2A {2}not detected/);
    const findings = lines.indexOf('MCP findings');
    expect(findings).toBeGreaterThan(4);
    expect(lines[findings + 1]).toMatch(/! WARN INS-MCP-009/);
    expect(r.stdout).toMatch(/✓ PASS/);
  });

  it('A2A agent in auto mode: A2A confirmed, MCP not detected, exit 0', async () => {
    const r = await runCli(['inspect', a2a.url, '--allow-loopback', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Summary;
    expect(j.protocols.a2a).toMatchObject({ state: 'confirmed', cardUrl: `${a2a.origin}/.well-known/agent-card.json` });
    expect(j.protocols.mcp.state).toBe('not_detected');
  });

  it('a failing rule exits 1, in every format; SARIF names the rule and its spec link', async () => {
    const url = `${bad.origin}/`;
    const json = await runCli(['inspect', url, '--protocol', 'a2a', '--allow-loopback', '--json']);
    expect(json.code).toBe(1);
    const sarif = await runCli(['inspect', url, '--protocol', 'a2a', '--allow-loopback', '--format', 'sarif']);
    expect(sarif.code).toBe(1);
    const s = JSON.parse(sarif.stdout) as {
      version: string;
      runs: Array<{
        tool: { driver: { rules: Array<{ id: string; helpUri: string }> } };
        results: Array<{ ruleId: string; level: string }>;
      }>;
    };
    expect(s.version).toBe('2.1.0');
    expect(s.runs[0]!.results.find((x) => x.ruleId === 'INS-A2A-002')!.level).toBe('error');
    expect(s.runs[0]!.tool.driver.rules.find((x) => x.id === 'INS-A2A-002')!.helpUri).toMatch(/^https:\/\/a2a-protocol\.org\//);
    const term = await runCli(['inspect', url, '--protocol', 'a2a', '--allow-loopback']);
    expect(term.code).toBe(1);
    expect(term.stdout).toMatch(/A2A findings\n {2}✗ FAIL INS-A2A-002 At least one skill/);
  });

  it('usage errors exit 2; without --allow-loopback nothing local is reached (exit 2)', async () => {
    expect((await runCli(['inspect', 'ftp://x'])).code).toBe(2);
    expect((await runCli(['inspect', legacy.url, '--protocol', 'grpc'])).code).toBe(2);
    const bad = await runCli(['inspect', legacy.url, '--header', 'no colon here']);
    expect(bad.code).toBe(2);
    expect((await runCli(['inspect', legacy.url, '--time-limit', 'soon'])).code).toBe(2);
    const guard = await runCli(['inspect', legacy.url, '--protocol', 'mcp']);
    expect(guard.code).toBe(2);
    expect(guard.stdout).toMatch(/UNABLE TO COMPLETE/);
  });

  it.skipIf(!HAVE_PYTHON_MCP)('modern era on the Python SDK peer: --json summary', async () => {
    const p = await startPythonModernPeer({ extension: true });
    try {
      const r = await runCli([
        'inspect',
        p.url,
        '--allow-loopback',
        '--json',
        '--protocol',
        'mcp',
        '--time-limit',
        '30s',
        '--max-requests',
        '10',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Summary).protocols.mcp).toEqual({
        state: 'confirmed',
        era: 'modern',
        toolsListStable: true,
        cacheMetadata: true,
        extensions: ['com.example/inspect-test'],
        auth: null,
      });
    } finally {
      await p.close();
    }
  });
});
