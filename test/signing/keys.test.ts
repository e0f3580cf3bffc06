import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkA2ACard, generateSigningKeyPair, keyIdOf, signVerdict, verifyVerdict } from '../../src/conformance/index.js';
import { loadSigningKey } from '../../src/signing/keys.js';

/** src/signing/keys.ts: where the attestation key comes from, and what it refuses. */

const verdict = checkA2ACard({ text: '{"name": "x"}' }, { subject: 'https://agent.acme.dev', observedAt: '2026-01-01T00:00:00.000Z' }).card;

describe('signing keys from configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generates the embedded default on first use (0600) and loads the same key after', () => {
    const first = loadSigningKey({ dataDir: dir });
    expect(first.source).toBe('generated');
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'keys', 'attestation-ed25519.pub.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    const again = loadSigningKey({ dataDir: dir });
    expect(again.source).toBe('data-dir');
    expect(again.keyId).toBe(first.keyId);
    const att = signVerdict(verdict, again.privateKey);
    expect(verifyVerdict(verdict, att, first.publicKey)).toBe(true);
  });

  it('prefers VERONIKAI_SIGNING_KEY (PEM, also with \\n escapes), then VERONIKAI_SIGNING_KEY_FILE', () => {
    const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();
    expect(loadSigningKey({ dataDir: dir, key: { pem: privateKeyPem, file: null } })).toMatchObject({ source: 'env', keyId: keyIdOf(publicKeyPem) });
    expect(loadSigningKey({ dataDir: dir, key: { pem: privateKeyPem.replace(/\n/g, '\\n'), file: null } }).keyId).toBe(keyIdOf(publicKeyPem));
    const f = join(dir, 'k.pem');
    writeFileSync(f, privateKeyPem);
    expect(loadSigningKey({ dataDir: dir, key: { pem: null, file: f } })).toMatchObject({ source: 'env-file', keyId: keyIdOf(publicKeyPem) });
  });

  it('rejects a malformed or non-Ed25519 key with a usage error', () => {
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: 'nope', file: null } })).toThrow(/PEM private key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: rsa, file: null } })).toThrow(/Ed25519/);
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: null, file: join(dir, 'missing.pem') } })).toThrow(/cannot read/);
  });
});
