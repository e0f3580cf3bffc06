/**
 * The A2A lint on real peers: an agent of @a2a-js/sdk (its card at the current path, or only at
 * the legacy path), and small servers serving crafted cards with each defect of the lint.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildInspectReport, type InspectReport } from '../../src/conformance/inspect/index.js';
import { observeInspect } from '../../src/inspect/index.js';
import { craftedCard, deadOrigin, INSPECT_TEST_SETTINGS as SETTINGS, startCardServer, type Listening } from '../helpers/inspect-peers.js';
import { expectEvidenceOnEveryVerdict } from '../helpers/inspect-evidence.js';
import { startA2AAgent, type Peer } from '../helpers/peers.js';

const open: Array<Peer | Listening> = [];
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
});

async function inspectCard(
  card: unknown,
  paths?: string[],
  extra?: Record<string, unknown>,
): Promise<{ r: InspectReport; server: Listening }> {
  const server = await startCardServer(card, paths, extra);
  open.push(server);
  const r = buildInspectReport(await observeInspect(`${server.origin}/`, 'a2a', SETTINGS));
  return { r, server };
}

const ids = (r: InspectReport): string[] =>
  r.findings
    .filter((f) => f.ruleId.startsWith('INS-'))
    .map((f) => f.ruleId)
    .sort();

describe('A2A agents of @a2a-js/sdk', () => {
  it('a card at /.well-known/agent-card.json: confirmed, nothing to lint', async () => {
    const p = await startA2AAgent();
    open.push(p);
    const r = buildInspectReport(await observeInspect(p.url, 'a2a', SETTINGS));
    expect(r.protocols.a2a).toEqual({
      state: 'confirmed',
      cardUrl: `${p.origin}/.well-known/agent-card.json`,
      legacyPathOnly: false,
      secretsFound: 0,
      oidc: 'absent',
      skillsWithoutDescription: 0,
      securitySchemesDeclared: false,
    });
    expect(r.findings).toEqual([]);
    // the index's suites ran on the same card, with the seed 001 attribution
    expect(r.details.a2a!.suites.map((v) => [v.suite.id, v.result])).toEqual([
      ['veronikai-a2a-get-card', 'pass'],
      ['veronikai-a2a-structure', 'pass'],
    ]);
    expect(r.details.a2a!.attribution).toMatchObject({ route: 'inferred', family: '1.0' });
    expectEvidenceOnEveryVerdict(r);
  });

  it('a card served only at the legacy /.well-known/agent.json gets the legacy-path warning', async () => {
    const p = await startA2AAgent({ wellKnown: false, legacy: true });
    open.push(p);
    const r = buildInspectReport(await observeInspect(p.url, 'a2a', SETTINGS));
    expect(r.protocols.a2a).toMatchObject({ state: 'confirmed', cardUrl: `${p.origin}/.well-known/agent.json`, legacyPathOnly: true });
    expect(r.findings.filter((f) => f.ruleId.startsWith('INS-')).map((f) => [f.ruleId, f.severity])).toEqual([['INS-A2A-001', 'warn']]);
    // The SDK's legacy rendering adds a top-level protocolVersion beside supportedInterfaces: the
    // reused seed 001 attribution reads it as a conflict (warning A2A-STRUCT-004).
    expect(r.findings.filter((f) => !f.ruleId.startsWith('INS-')).map((f) => f.ruleId)).toEqual(['A2A-STRUCT-004']);
    expect(r.details.a2a!.attribution).toMatchObject({ route: 'conflict' });
    expect(r.exitCode).toBe(0);
    expectEvidenceOnEveryVerdict(r);
  });
});

describe('crafted cards, one defect each', () => {
  it('a clean crafted card passes every lint rule', async () => {
    const { r } = await inspectCard(craftedCard());
    expect(r.protocols.a2a.state).toBe('confirmed');
    expect(r.findings).toEqual([]);
    expectEvidenceOnEveryVerdict(r);
    // each lint pass rests on the card fetch itself
    const lint = r.checks.filter((c) => /^INS-A2A-00[2-7]$/.test(c.ruleId ?? ''));
    expect(lint.map((c) => [c.ruleId, c.outcome])).toEqual([
      ['INS-A2A-002', 'pass'],
      ['INS-A2A-003', 'pass'],
      ['INS-A2A-004', 'pass'],
      ['INS-A2A-005', 'pass'],
      ['INS-A2A-006', 'pass'],
      ['INS-A2A-007', 'pass'],
    ]);
    for (const c of lint)
      expect(c.evidence.map((e) => [e.request.method, e.request.url, e.status])).toEqual([['GET', r.protocols.a2a.cardUrl, 200]]);
  });

  it('no skill: INS-A2A-002 (and the index suites agree the card is incomplete: indicated, not confirmed)', async () => {
    const { r } = await inspectCard(craftedCard({ skills: [] }));
    expect(ids(r)).toEqual(['INS-A2A-002']);
    expect(r.findings.map((f) => f.ruleId)).toContain('A2A-CARD-012');
    expect(r.protocols.a2a.state).toBe('indicated');
  });

  it('skills without a description are counted', async () => {
    const { r } = await inspectCard(
      craftedCard({
        skills: [
          { id: 'a', name: 'A', description: '', tags: [] },
          { id: 'b', name: 'B', description: 'Does B.', tags: [] },
          { id: 'c', name: 'C', description: '  ', tags: [] },
        ],
      }),
    );
    expect(ids(r)).toEqual(['INS-A2A-003']);
    expect(r.protocols.a2a.skillsWithoutDescription).toBe(2);
  });

  it('no default input or output modes', async () => {
    const { r } = await inspectCard(craftedCard({ defaultInputModes: undefined, defaultOutputModes: [] }));
    expect(ids(r)).toEqual(['INS-A2A-004', 'INS-A2A-005']);
  });

  it('a production-shaped card (public https endpoint) without securitySchemes', async () => {
    const { r } = await inspectCard(craftedCard({ securitySchemes: undefined, security: undefined }));
    expect(ids(r)).toEqual(['INS-A2A-006']);
    expect(r.protocols.a2a.securitySchemesDeclared).toBe(false);
  });

  it('an embedded secret is found and reported redacted, in findings and evidence alike', async () => {
    const key = `ghp_${'Zq81mXv0Lw27Rt5Yb94Kc3Nd6Pf1Hs8Gj0Ae'}`;
    const { r } = await inspectCard(craftedCard({ description: `An agent. Debug with token ${key}` }));
    expect(ids(r)).toEqual(['INS-A2A-007']);
    expect(r.protocols.a2a.secretsFound).toBe(1);
    expect(r.findings.find((f) => f.ruleId === 'INS-A2A-007')!.message).toMatch(/GitHub token .*ghp_…\[redacted, 40 chars\]/);
    expect(JSON.stringify(r)).not.toContain(key);
    expectEvidenceOnEveryVerdict(r);
    // the evidence shows the card text with the secret redacted
    expect(r.checks.find((c) => c.ruleId === 'INS-A2A-007')!.evidence[0]!.excerpt).toMatch(/Debug with token \[redacted GitHub token\]/);
  });

  it('a declared openIdConnectUrl that resolves to an OpenID configuration', async () => {
    const schemes = { oidc: { type: 'openIdConnect', openIdConnectUrl: '{{ORIGIN}}/.well-known/openid-configuration' } };
    const { r } = await inspectCard(craftedCard({ securitySchemes: schemes, security: [{ oidc: [] }] }), undefined, {
      '/.well-known/openid-configuration': { issuer: '{{ORIGIN}}', authorization_endpoint: '{{ORIGIN}}/authorize' },
    });
    expect(r.protocols.a2a).toMatchObject({ oidc: 'resolves', securitySchemesDeclared: true });
    expect(r.findings).toEqual([]);
  });

  it('a declared openIdConnectUrl that is dead, or not an OpenID configuration', async () => {
    const dead = `${await deadOrigin()}/.well-known/openid-configuration`;
    const schemes = {
      a: { type: 'openIdConnect', openIdConnectUrl: dead },
      b: { type: 'openIdConnect', openIdConnectUrl: '{{ORIGIN}}/not-oidc.json' },
    };
    const { r } = await inspectCard(craftedCard({ securitySchemes: schemes }), undefined, { '/not-oidc.json': { hello: 'world' } });
    expect(r.protocols.a2a.oidc).toBe('dead');
    const msgs = r.findings.filter((f) => f.ruleId === 'INS-A2A-008').map((f) => f.message);
    expect(msgs).toHaveLength(2);
    expect(msgs[0]).toMatch(/no answer \(refused\)/);
    expect(msgs[1]).toMatch(/neither issuer nor authorization_endpoint/);
    expect(r.exitCode).toBe(1);
    expectEvidenceOnEveryVerdict(r);
  });

  it('1.0 cards: an openIdConnectUrl inside the oneof wrapper is found too', async () => {
    const card = {
      name: 'One',
      description: 'A 1.0 card',
      version: '1',
      supportedInterfaces: [{ url: '{{ORIGIN}}/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'S.', tags: [] }],
      securitySchemes: { o: { openIdConnectSecurityScheme: { openIdConnectUrl: '{{ORIGIN}}/oidc' } } },
    };
    const { r, server } = await inspectCard(card, undefined, { '/oidc': { issuer: '{{ORIGIN}}' } });
    expect(r.protocols.a2a.oidc).toBe('resolves');
    expect(server.paths).toContain('GET /oidc');
  });

  it('nothing card-like at either path: not_detected', async () => {
    const { r } = await inspectCard({ error: 'not here' });
    expect(r.protocols.a2a.state).toBe('not_detected');
    expect(r.findings.map((f) => f.ruleId)).toEqual(['INS-GEN-001']);
  });
});
