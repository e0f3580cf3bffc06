import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attestationPayload,
  canonicalJson,
  checkA2ACard,
  checkServerJson,
  generateSigningKeyPair,
  judgeMcpEndpoint,
  judgeMcpObservation,
  keyIdOf,
  signVerdict,
  verifyAttestation,
  verifyVerdict,
} from '../../src/conformance/index.js';
import { signedBytes } from '../../src/conformance/attestation.js';
import { ctxOf, weatherServerJson } from './helpers.js';

const verdict = checkA2ACard({ text: '{"name": "x"}' }, ctxOf('https://agent.acme.dev')).card;

describe('canonical JSON', () => {
  it('sorts keys, drops whitespace and writes numbers in shortest form', () => {
    expect(canonicalJson({ b: [1, 2.5, -0, 1e21], a: { d: null, c: 'é\n' }, u: undefined })).toBe(
      '{"a":{"c":"é\\n","d":null},"b":[1,2.5,0,1e+21]}',
    );
    expect(canonicalJson({ '\u00e9': 1, z: 2, A: 3, '\ud83d\ude00': 4, '\ufb33': 5 })).toBe(
      '{"A":3,"z":2,"\u00e9":1,"\ud83d\ude00":4,"\ufb33":5}',
    );
  });
  it('is independent of key order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const c = canonicalJson(v);
        expect(canonicalJson(JSON.parse(c))).toBe(c);
        expect(JSON.parse(c)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
  it('handles nesting far deeper than the call stack allows', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(canonicalJson(deep).length).toBe(400_001);
  });
});

describe('attestations (Ed25519 over the canonical payload)', () => {
  const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();

  it('signs exactly subject, observed-at, inputs hash, checker, suite, scope, result and reasons, and verifies', () => {
    const att = signVerdict(verdict, privateKeyPem);
    expect(Object.keys(att.payload).sort()).toEqual([
      'checker',
      'inputsHash',
      'observedAt',
      'reasons',
      'result',
      'scope',
      'subject',
      'suite',
    ]);
    expect(att.payload.scope).toBe('document');
    expect(att.payload).toEqual(attestationPayload(verdict));
    expect(att.payload.checker).toBe('VeronikAI/0.1+attestations.3');
    expect(att.payload.suite).toEqual({ id: 'veronikai-a2a-get-card', version: 1 });
    expect(att.keyId).toBe(keyIdOf(publicKeyPem));
    expect(verifyAttestation(att, publicKeyPem)).toBe(true);
    expect(verifyVerdict(verdict, att, publicKeyPem)).toBe(true);
  });

  it('rejects any change to the payload, the signature, the key or the verdict', () => {
    const att = signVerdict(verdict, privateKeyPem);
    const tamper = (f: (a: typeof att) => void) => {
      const copy = structuredClone(att);
      f(copy);
      return verifyAttestation(copy, publicKeyPem);
    };
    expect(tamper((a) => (a.payload.result = 'pass'))).toBe(false);
    expect(tamper((a) => a.payload.reasons.pop())).toBe(false);
    expect(tamper((a) => (a.payload.suite.version = 2))).toBe(false);
    expect(tamper((a) => (a.payload.scope = 'observation'))).toBe(false);
    expect(tamper((a) => ((a.payload as unknown as Record<string, unknown>).extra = 1))).toBe(false);
    expect(
      tamper((a) => {
        const sig = Buffer.from(a.signature, 'base64url');
        sig[10] = sig[10]! ^ 1;
        a.signature = sig.toString('base64url');
      }),
    ).toBe(false);
    const other = generateSigningKeyPair();
    expect(verifyAttestation(att, other.publicKeyPem)).toBe(false);
    expect(verifyVerdict({ ...verdict, result: 'pass' }, att, publicKeyPem)).toBe(false);
    for (const junk of [null, 1, 'x', {}, { ...att, alg: 'RS256' }, { ...att, signature: 5 }])
      expect(verifyAttestation(junk, publicKeyPem)).toBe(false);
  });

  it('the signed payload says what was judged: scope, and the half of suite v2 that did not run', () => {
    const ctx = ctxOf('https://mcp.acme.dev/mcp');
    const good = weatherServerJson({ remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' }] });
    const file = signVerdict(checkServerJson({ value: good }, ctx), privateKeyPem).payload;
    expect(file).toMatchObject({ result: 'pass', scope: 'document', reasons: ['n/a: transport rules not run: no live GET'] });
    const obs = {
      remote: { type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' },
      get: { url: 'https://mcp.acme.dev/mcp', status: 405, headers: {} },
      robots: 'allowed',
      canary: 'ok',
      serverJson: null,
    } as const;
    const endpoint = signVerdict(judgeMcpEndpoint(obs, ctx).verdict, privateKeyPem).payload;
    expect(endpoint).toMatchObject({ result: 'pass', scope: 'observation', reasons: ['n/a: quality rules not run: no server.json'] });
    const whole = signVerdict(judgeMcpObservation({ ...obs, serverJson: good }, ctx).verdict, privateKeyPem).payload;
    expect(whole).toMatchObject({ result: 'pass', scope: 'observation', reasons: [] });
  });

  it('rejects a validly signed payload that lacks scope (or has any other shape)', () => {
    const { scope: _scope, ...old } = attestationPayload(verdict);
    const key = createPrivateKey(privateKeyPem);
    const forge = (payload: object) => ({
      payload,
      alg: 'Ed25519',
      canonicalization: 'veronikai-jcs-1',
      keyId: keyIdOf(publicKeyPem),
      signature: sign(null, signedBytes(payload as never), key).toString('base64url'),
    });
    expect(verifyAttestation(forge(old), publicKeyPem)).toBe(false);
    expect(verifyAttestation(forge({ ...old, scope: 'somewhere' }), publicKeyPem)).toBe(false);
    expect(verifyAttestation(forge({ ...old, scope: 'document' }), publicKeyPem)).toBe(true);
  });

  it('refuses keys that are not Ed25519', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => signVerdict(verdict, rsa.privateKey)).toThrow(/Ed25519/);
    expect(verifyAttestation(signVerdict(verdict, privateKeyPem), rsa.publicKey)).toBe(false);
  });
});
