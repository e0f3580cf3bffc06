import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../config.js';
import { keyIdOf } from '../conformance/attestation.js';

/**
 * The Ed25519 key that signs verdicts (attestations), from configuration:
 *
 * 1. `VERONIKAI_SIGNING_KEY`: a PKCS#8 PEM private key (literal "\n" sequences are accepted,
 *    for environments that cannot hold a multi-line value);
 * 2. `VERONIKAI_SIGNING_KEY_FILE`: a path to such a PEM file;
 * 3. otherwise `<data dir>/keys/attestation-ed25519.pem`, generated on first use for the
 *    embedded default (mode 0600 in a 0700 directory), with the public key beside it as
 *    `attestation-ed25519.pub.pem` for anyone who verifies. Two processes starting at once
 *    cannot end up with different keys: the file is created by an atomic link that fails
 *    when another process won.
 */
export const SIGNING_KEY_FILE = join('keys', 'attestation-ed25519.pem');
export const SIGNING_PUBLIC_KEY_FILE = join('keys', 'attestation-ed25519.pub.pem');

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  keyId: string;
  source: 'env' | 'env-file' | 'data-dir' | 'generated';
  /** The file the key came from, when it came from one. */
  path: string | null;
}

function parsePrivate(pem: string, from: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem);
  } catch {
    throw new UsageError(`${from} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new UsageError(`${from} must be an Ed25519 key, got ${key.asymmetricKeyType ?? 'an unknown type'}`);
  }
  return key;
}

function done(privateKey: KeyObject, source: SigningKey['source'], path: string | null): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), source, path };
}

export function loadSigningKey(opts: { dataDir: string; key?: { pem: string | null; file: string | null } }): SigningKey {
  const inline = opts.key?.pem;
  if (inline) return done(parsePrivate(inline, 'VERONIKAI_SIGNING_KEY'), 'env', null);

  const file = opts.key?.file;
  if (file) {
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch {
      throw new UsageError(`VERONIKAI_SIGNING_KEY_FILE: cannot read ${file}`);
    }
    return done(parsePrivate(pem, `VERONIKAI_SIGNING_KEY_FILE (${file})`), 'env-file', file);
  }

  const path = join(opts.dataDir, SIGNING_KEY_FILE);
  if (existsSync(path)) return done(parsePrivate(readFileSync(path, 'utf8'), path), 'data-dir', path);

  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  let won = true;
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    won = false;
  } finally {
    rmSync(tmp, { force: true });
  }
  if (!won) return done(parsePrivate(readFileSync(path, 'utf8'), path), 'data-dir', path);
  chmodSync(path, 0o600);
  const pubPath = join(opts.dataDir, SIGNING_PUBLIC_KEY_FILE);
  writeFileSync(pubPath, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  return done(privateKey, 'generated', path);
}
