/**
 * MCP authorization discovery on real peers: MCP servers of the TypeScript SDK behind
 * requireBearerAuth (RFC 9728 metadata), and authorization servers of our own with each
 * metadata layout — CIMD; DCR only; OIDC only; RFC 8414 only; a dead issuer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildInspectReport } from '../../src/conformance/inspect/index.js';
import { observeInspect } from '../../src/inspect/index.js';
import { INSPECT_TEST_SETTINGS as SETTINGS, startAuthorizationServer, startProtectedMcp, type AsLayout } from '../helpers/inspect-peers.js';
import { expectEvidenceOnEveryVerdict } from '../helpers/inspect-evidence.js';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function protectedPeer(
  layout: AsLayout,
  o: { advertiseMetadata?: boolean; rootMetadata?: boolean; acceptToken?: string; claimedIssuer?: string } = {},
) {
  const as = await startAuthorizationServer(layout, { claimedIssuer: o.claimedIssuer });
  const mcp = await startProtectedMcp({ issuer: as.issuer, ...o });
  closers.push(as.close, mcp.close);
  return { as, mcp };
}

describe('authorization discovery on a 401', () => {
  const layouts: Array<[AsLayout, { openidConfiguration: boolean; oauthMetadata: boolean; registration: string }, string[]]> = [
    ['cimd', { openidConfiguration: true, oauthMetadata: true, registration: 'cimd' }, []],
    ['dcr', { openidConfiguration: true, oauthMetadata: true, registration: 'dcr' }, ['INS-AUTH-008']],
    ['both', { openidConfiguration: true, oauthMetadata: true, registration: 'both' }, []],
    ['none', { openidConfiguration: true, oauthMetadata: true, registration: 'none' }, ['INS-AUTH-009']],
    ['oidc-only', { openidConfiguration: true, oauthMetadata: false, registration: 'dcr' }, ['INS-AUTH-008', 'INS-AUTH-010']],
    ['oauth-only', { openidConfiguration: false, oauthMetadata: true, registration: 'cimd' }, []],
  ];
  for (const [layout, expected, findings] of layouts) {
    it(`classifies the ${layout} layout`, async () => {
      const { as, mcp } = await protectedPeer(layout);
      const obs = await observeInspect(mcp.url, 'mcp', SETTINGS);
      const r = buildInspectReport(obs);
      expect(r.protocols.mcp).toEqual({
        state: 'indicated',
        era: null,
        toolsListStable: null,
        cacheMetadata: null,
        extensions: [],
        auth: {
          required: true,
          resourceMetadataUrl: `${mcp.origin}/.well-known/oauth-protected-resource/mcp`,
          issuer: as.issuer,
          ...expected,
        },
      });
      expect(r.findings.map((f) => f.ruleId).sort()).toEqual(findings);
      // Fetched independently: both documents were asked for, whatever the other answered.
      expect(as.paths).toEqual(
        expect.arrayContaining(['GET /.well-known/openid-configuration', 'GET /.well-known/oauth-authorization-server']),
      );
      if (layout === 'dcr') expect(r.findings[0]!.message).toMatch(/Dynamic Client Registration only/);
      expectEvidenceOnEveryVerdict(r);
    });
  }

  it('a dead issuer: neither document readable is a failure, and the summary says so', async () => {
    const { as, mcp } = await protectedPeer('dead');
    const r = buildInspectReport(await observeInspect(mcp.url, 'mcp', SETTINGS));
    expect(r.protocols.mcp.auth).toEqual({
      required: true,
      resourceMetadataUrl: `${mcp.origin}/.well-known/oauth-protected-resource/mcp`,
      issuer: as.issuer,
      openidConfiguration: false,
      oauthMetadata: false,
      registration: 'none',
    });
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([['INS-AUTH-006', 'fail']]);
    const check = r.checks.find((c) => c.ruleId === 'INS-AUTH-006')!;
    expect(check.evidence.map((e) => e.errorClass)).toEqual(['refused', 'refused']);
    expect(r.exitCode).toBe(1);
  });

  it('metadata naming another issuer is not used: not counted as found, and no registration read from it (RFC 8414 §3.3)', async () => {
    const { as, mcp } = await protectedPeer('cimd', { claimedIssuer: 'https://login.other-tenant.example' });
    const r = buildInspectReport(await observeInspect(mcp.url, 'mcp', SETTINGS));
    expect(as.paths).toEqual(
      expect.arrayContaining(['GET /.well-known/openid-configuration', 'GET /.well-known/oauth-authorization-server']),
    );
    expect(r.protocols.mcp.auth).toEqual({
      required: true,
      resourceMetadataUrl: `${mcp.origin}/.well-known/oauth-protected-resource/mcp`,
      issuer: as.issuer,
      openidConfiguration: false,
      oauthMetadata: false,
      registration: 'none',
    });
    // two INS-AUTH-007 failures; not a dead issuer (006), not a missing registration (009)
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['INS-AUTH-007', 'fail'],
      ['INS-AUTH-007', 'fail'],
    ]);
    expect(r.findings[0]!.message).toMatch(
      /issuer is "https:\/\/login\.other-tenant\.example", not "http:\/\/127\.0\.0\.1:\d+" \(a client must not use it\)/,
    );
    expect(r.exitCode).toBe(1);
    expectEvidenceOnEveryVerdict(r);
  });

  it('a challenge without resource_metadata is a finding; the root well-known metadata is found after the path-inserted one', async () => {
    const { mcp } = await protectedPeer('cimd', { advertiseMetadata: false, rootMetadata: true });
    const obs = await observeInspect(mcp.url, 'mcp', SETTINGS);
    const prm = obs.exchanges.filter((e) => e.step === 'auth.prm');
    expect(prm.map((e) => [e.form, e.status])).toEqual([
      ['path-inserted', 404],
      ['root', 200],
    ]);
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp.auth).toMatchObject({
      resourceMetadataUrl: `${mcp.origin}/.well-known/oauth-protected-resource`,
      registration: 'cimd',
    });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['INS-AUTH-002']);
    expect(r.checks.find((c) => c.ruleId === 'INS-AUTH-002')!.evidence[0]!.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it("with the owner's token the handshake completes (confirmed), and the token is never recorded nor sent elsewhere", async () => {
    const token = 'owner-token-4d1c9a7e2b';
    const { as, mcp } = await protectedPeer('cimd', { acceptToken: token });
    const obs = await observeInspect(mcp.url, 'mcp', { ...SETTINGS, ownerHeaders: { authorization: `Bearer ${token}` } });
    const r = buildInspectReport(obs);
    expect(r.protocols.mcp).toMatchObject({ state: 'confirmed', era: 'legacy', auth: null });
    expect(JSON.stringify(obs)).not.toContain(token);
    expect(JSON.stringify(r)).not.toContain(token);
    expect(obs.exchanges[0]!.requestHeaders.authorization).toBe('[redacted]');
    // the MCP server got it; the authorization server never did
    expect(mcp.headers.some((h) => h.authorization === `Bearer ${token}`)).toBe(true);
    expect(as.paths).toEqual([]);
  });
});
