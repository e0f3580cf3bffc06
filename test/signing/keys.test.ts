import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkA2ACard, generateSigningKeyPair, keyIdOf, signVerdict, verifyVerdict } from '../../src/conformance/index.js';
import { loadConfig, UsageError } from '../../src/config.js';
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
    // Everything it writes in the data directory is owner-only, the public key and its directory too.
    expect(statSync(join(dir, 'keys', 'attestation-ed25519.pub.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'keys')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(dir, 'keys', 'attestation-ed25519.pub.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    const again = loadSigningKey({ dataDir: dir });
    expect(again.source).toBe('data-dir');
    expect(again.keyId).toBe(first.keyId);
    const att = signVerdict(verdict, again.privateKey);
    expect(verifyVerdict(verdict, att, first.publicKey)).toBe(true);
  });

  it('prefers VERONIKAI_SIGNING_KEY (PEM, also with \\n escapes), then VERONIKAI_SIGNING_KEY_FILE', () => {
    const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();
    expect(loadSigningKey({ dataDir: dir, key: { pem: privateKeyPem, file: null } })).toMatchObject({
      source: 'env',
      keyId: keyIdOf(publicKeyPem),
    });
    expect(loadSigningKey({ dataDir: dir, key: { pem: privateKeyPem.replace(/\n/g, '\\n'), file: null } }).keyId).toBe(
      keyIdOf(publicKeyPem),
    );
    const f = join(dir, 'k.pem');
    writeFileSync(f, privateKeyPem, { mode: 0o600 });
    expect(loadSigningKey({ dataDir: dir, key: { pem: null, file: f } })).toMatchObject({
      source: 'env-file',
      keyId: keyIdOf(publicKeyPem),
    });
  });

  it('rejects a malformed or non-Ed25519 key with a usage error', () => {
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: 'nope', file: null } })).toThrow(/PEM private key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: rsa, file: null } })).toThrow(/Ed25519/);
    expect(() => loadSigningKey({ dataDir: dir, key: { pem: null, file: join(dir, 'missing.pem') } })).toThrow(/cannot read/);
  });

  describe.skipIf(process.platform === 'win32')('a key file that group or others can read', () => {
    const open = mkdtempSync(join(tmpdir(), 'veronikai-keys-open-'));
    afterAll(() => rmSync(open, { recursive: true, force: true }));

    it('is refused in the data dir unless told, with how to fix it', () => {
      const first = loadSigningKey({ dataDir: open });
      chmodSync(first.path!, 0o644);
      const err = (() => {
        try {
          loadSigningKey({ dataDir: open });
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toContain(`chmod 600 ${first.path}`);
      expect((err as Error).message).toMatch(/mode 0644.*VERONIKAI_SIGNING_KEY_ALLOW_OPEN=1/);
      // told through the configuration: used as it is
      const config = loadConfig({ dataDir: open }, { VERONIKAI_SIGNING_KEY_ALLOW_OPEN: '1' });
      expect(loadSigningKey({ dataDir: config.dataDir, key: config.signingKey }).keyId).toBe(first.keyId);
      chmodSync(first.path!, 0o600);
      expect(loadSigningKey({ dataDir: open }).keyId).toBe(first.keyId);
    });

    it('is refused from VERONIKAI_SIGNING_KEY_FILE unless told, group-writable too', () => {
      const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();
      const f = join(open, 'shared.pem');
      writeFileSync(f, privateKeyPem);
      for (const mode of [0o640, 0o604, 0o620]) {
        chmodSync(f, mode);
        const config = loadConfig({ dataDir: open }, { VERONIKAI_SIGNING_KEY_FILE: f });
        expect(() => loadSigningKey({ dataDir: config.dataDir, key: config.signingKey })).toThrow(`chmod 600 ${f}`);
      }
      const told = loadConfig({ dataDir: open }, { VERONIKAI_SIGNING_KEY_FILE: f, VERONIKAI_SIGNING_KEY_ALLOW_OPEN: 'true' });
      expect(loadSigningKey({ dataDir: told.dataDir, key: told.signingKey }).keyId).toBe(keyIdOf(publicKeyPem));
      expect(() => loadConfig({ dataDir: open }, { VERONIKAI_SIGNING_KEY_ALLOW_OPEN: 'maybe' })).toThrow(
        /VERONIKAI_SIGNING_KEY_ALLOW_OPEN must be 1 or 0/,
      );
    });
  });
});
