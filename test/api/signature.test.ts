import { createPrivateKey, createPublicKey } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAttestation } from '../../src/api/responses.js';
import { buildApi } from '../../src/api/server.js';
import { CHECKER_VERSION, generateSigningKeyPair, signVerdict, verifyAttestation, type Verdict } from '../../src/conformance/index.js';
import { AGENTS, idOf, openFilledWarehouse, type AgentName } from './fixture.js';
import { verifyTreeAttestation } from '../../src/conformance/tree-attestation.js';
import { signJudged, treeAttestation } from '../../src/processors/verdicts/batch-sign.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { judgeProbe, latestRow } from '../../src/processors/verdicts/judge-probe.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { probeEvent, probeExchange } from '../helpers/probe-events.js';

/**
 * The verdict's signature in GET /agents/:id is the attestation as a JSON object (stored as JSON
 * text in agent_latest.signature), exactly as signed: the served object verifies with the public
 * key. A stored value that is not an attestation is served as null, with the reason logged under
 * the request id, never a 500; no stored signature is null without a warning.
 */

const keys = generateSigningKeyPair();
const verdictOf = (subject: string) =>
  ({
    subject,
    observedAt: new Date().toISOString(),
    checker: CHECKER_VERSION,
    suite: { id: 'veronikai-mcp', version: 1 },
    result: 'pass',
    reasons: ['n/a: transport rules not run: no live GET'],
    scope: 'observation',
    inputsHash: 'b'.repeat(64),
  }) as unknown as Verdict;
const ATTESTATION = signVerdict(verdictOf(AGENTS.beta.key), keys.privateKeyPem);

/** What each agent's latest verdict carries (newer than the fixture's own, batch-signed rows). */
const STORED: Partial<Record<AgentName, string>> = {
  alpha: 'sig',
  beta: JSON.stringify(ATTESTATION),
  hostile: JSON.stringify({ payload: 1 }),
  unchecked: JSON.stringify({ ...ATTESTATION, extra: 'x' }),
  gone: '',
};

describe('the verdict signature in agent responses', () => {
  let close: () => Promise<void>;
  let wh: Warehouse;
  let app: ReturnType<typeof buildApi>;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const filled = await openFilledWarehouse('signature');
    close = filled.close;
    wh = filled.wh;
    const now = new Date();
    await filled.wh.insert(
      'agent_latest',
      Object.entries(STORED).map(([name, signature]) => ({
        checker_version: CHECKER_VERSION,
        agent_key: AGENTS[name as AgentName].key,
        agent_id: idOf(name as AgentName),
        protocol: AGENTS[name as AgentName].protocol,
        source: '',
        event_id: `sig-${name}`,
        observed_at: now,
        uptime: 'up',
        reason: '',
        http_status: 200,
        latency_ms: 10,
        in_sample: 0,
        our_side: 0,
        suite_id: 'veronikai-mcp',
        suite_version: '1',
        result: 'pass',
        reasons: [],
        warnings: [],
        a2a_version: '',
        a2a_route: '',
        signature,
      })),
    );
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    app = buildApi({ warehouse: filled.wh, logger });
    await app.ready();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  const agent = async (name: AgentName) => {
    const res = await app.inject({ method: 'GET', url: `/agents/${idOf(name)}` });
    expect(res.statusCode, name).toBe(200);
    const requestId = String(res.headers['x-request-id']);
    return {
      body: res.json() as { latestVerdict: { result: string; signature: unknown } },
      warnings: lines.filter((l) => l.reqId === requestId && l.level === 40),
    };
  };

  it('is the attestation as an object, exactly as signed: the served object verifies with the public key', async () => {
    const { body, warnings } = await agent('beta');
    const served = body.latestVerdict.signature;
    expect(typeof served).toBe('object');
    expect(served).toEqual(ATTESTATION);
    expect(verifyAttestation(served, createPublicKey(keys.publicKeyPem))).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('is null, with the reason logged under the request id, when the stored text is not an attestation', async () => {
    for (const [name, problem] of [
      ['alpha', 'not JSON'],
      ['hostile', 'fields payload instead of alg, canonicalization, keyId, payload, signature'],
      [
        'unchecked',
        'fields alg, canonicalization, extra, keyId, payload, signature instead of alg, canonicalization, keyId, payload, signature',
      ],
    ] as const) {
      const { body, warnings } = await agent(name);
      expect(body.latestVerdict, name).toMatchObject({ result: 'pass', signature: null });
      expect(warnings, name).toHaveLength(1);
      expect(warnings[0], name).toMatchObject({
        agentKey: AGENTS[name].key,
        problem,
        msg: 'stored verdict signature is not an attestation: served as null',
      });
    }
  });

  it('is null without a warning when none is stored', async () => {
    const { body, warnings } = await agent('gone');
    expect(body.latestVerdict.signature).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('accepts only the attestation shape (parseAttestation)', () => {
    expect(parseAttestation(JSON.stringify(ATTESTATION))).toEqual({ attestation: ATTESTATION, problem: null });
    expect(parseAttestation('[1]').problem).toBe('not a JSON object');
    expect(parseAttestation('null').problem).toBe('not a JSON object');
    expect(parseAttestation(JSON.stringify({ ...ATTESTATION, alg: 'RS256' })).problem).toMatch(/wrong type/);
    const { scope: _scope, ...withoutScope } = ATTESTATION.payload;
    expect(parseAttestation(JSON.stringify({ ...ATTESTATION, payload: withoutScope })).problem).toBe('a payload of another shape');
  });

  // Last: it stores a newer verdict for beta.
  it('is a batch-signed verdict with its leaf, proof and head, as the verdict writer stores it: the served object verifies', async () => {
    const ev = probeEvent(Date.now(), 'sig-tree', AGENTS.beta.key, 'a2a', [
      probeExchange('card', `${AGENTS.beta.key}/.well-known/agent-card.json`, 404, ''),
    ]);
    const other = probeEvent(Date.now(), 'sig-other', AGENTS.alpha.key, 'mcp', [probeExchange('mcp-get', AGENTS.alpha.key, 405, '')]);
    const judged = [judgeProbe(other, null, CURRENT_CHECKER), judgeProbe(ev, null, CURRENT_CHECKER)];
    const heads = signJudged(judged, CURRENT_CHECKER.version, createPrivateKey(keys.privateKeyPem));
    const head = heads[0]!;
    await wh.insert('agent_latest', [
      { ...latestRow(judged[1]!), observed_at: new Date(Date.now() + 60_000), signature: treeAttestation(judged[1]!, heads) },
    ]);
    const { body, warnings } = await agent('beta');
    expect(warnings).toEqual([]);
    expect(body.latestVerdict.signature).toMatchObject({
      leafIndex: 1,
      head: { id: head.head_id, size: 2 },
      payload: { eventId: 'sig-tree', subject: AGENTS.beta.key },
    });
    expect(verifyTreeAttestation(body.latestVerdict.signature, createPublicKey(keys.publicKeyPem))).toBe(true);
    expect(verifyTreeAttestation(body.latestVerdict.signature, createPublicKey(generateSigningKeyPair().publicKeyPem))).toBe(false);
  });
});
