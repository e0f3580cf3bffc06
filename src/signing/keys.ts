import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SETTINGS, UsageError } from '../config.js';
import { keyIdOf } from '../conformance/attestation.js';

/**
 * The Ed25519 key that signs verdicts (attestations), from configuration:
 *
 * 1. `VERONIKAI_SIGNING_KEY`: a PKCS#8 PEM private key (literal "\n" sequences are accepted,
 *    for environments that cannot hold a multi-line value);
 * 2. `VERONIKAI_SIGNING_KEY_FILE`: a path to such a PEM file;
 * 3. otherwise `<data dir>/keys/attestation-ed25519.pem`, generated on first use for the
 *    embedded default (mode 0600 in a 0700 directory), with the public key beside it as
 *    `attestation-ed25519.pub.pem` for anyone who verifies (0600 as well, like everything the
 *    owner-only data directory holds: copy it out to publish it). Two processes starting at once
 *    cannot end up with different keys: the file is created by an atomic link that fails
 *    when another process won.
 *
 * A key file (2 or 3) that group or others can read or write is refused, as ssh refuses an
 * unprotected private key, unless `VERONIKAI_SIGNING_KEY_ALLOW_OPEN` says to use it anyway.
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

/** Permission bits a private key file must not have: any access by group or others. */
const OPEN_BITS = 0o077;

/**
 * Reads a key file, judging its mode on the descriptor it is read from (no stat-then-read race).
 * POSIX modes only: elsewhere the bits mean nothing.
 */
function readKeyFile(path: string, label: string, allowOpen: boolean): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new UsageError(`${label}: cannot read ${path}`);
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (!allowOpen && process.platform !== 'win32' && (mode & OPEN_BITS) !== 0) {
      throw new UsageError(
        `${label}: the signing key ${path} can be read or written by group or others (mode ${mode.toString(8).padStart(4, '0')}); ` +
          `make it private with \`chmod 600 ${path}\`, or set ${SETTINGS.signingKeyAllowOpen.env}=1 to use it anyway`,
      );
    }
    return readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${label}: cannot read ${path}`);
  } finally {
    closeSync(fd);
  }
}

function done(privateKey: KeyObject, source: SigningKey['source'], path: string | null): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), source, path };
}

export function loadSigningKey(opts: {
  dataDir: string;
  key?: { pem: string | null; file: string | null; allowOpen?: boolean };
}): SigningKey {
  const inline = opts.key?.pem;
  if (inline) return done(parsePrivate(inline, 'VERONIKAI_SIGNING_KEY'), 'env', null);
  const allowOpen = opts.key?.allowOpen === true;

  const file = opts.key?.file;
  if (file) {
    const pem = readKeyFile(file, 'VERONIKAI_SIGNING_KEY_FILE', allowOpen);
    return done(parsePrivate(pem, `VERONIKAI_SIGNING_KEY_FILE (${file})`), 'env-file', file);
  }

  const path = join(opts.dataDir, SIGNING_KEY_FILE);
  const fromDataDir = () => done(parsePrivate(readKeyFile(path, 'signing key in the data dir', allowOpen), path), 'data-dir', path);
  if (existsSync(path)) return fromDataDir();

  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask; the directory must end exactly owner-only.
  chmodSync(dirname(path), 0o700);
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
  if (!won) return fromDataDir();
  chmodSync(path, 0o600);
  const pubPath = join(opts.dataDir, SIGNING_PUBLIC_KEY_FILE);
  writeFileSync(pubPath, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o600 });
  chmodSync(pubPath, 0o600);
  return done(privateKey, 'generated', path);
}

/**
 * The public key that checks verdict signatures, for `verify`: from `publicKeyFile` when given (a
 * SPKI PEM), else the configured signing key's (1 or 2 above), else the data directory's public
 * key file, else its private key's. Never generates one: with no key there is nothing to check against.
 */
export function loadVerifyingKey(opts: {
  dataDir: string;
  key?: { pem: string | null; file: string | null; allowOpen?: boolean };
  publicKeyFile?: string | null;
}): KeyObject {
  const fromPem = (pem: string, from: string): KeyObject => {
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch {
      throw new UsageError(`${from} is not a PEM public key`);
    }
    if (key.asymmetricKeyType !== 'ed25519')
      throw new UsageError(`${from} must be an Ed25519 key, got ${key.asymmetricKeyType ?? 'an unknown type'}`);
    return key;
  };
  const readText = (path: string, label: string): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      throw new UsageError(`${label}: cannot read ${path}`);
    }
  };
  if (opts.publicKeyFile) return fromPem(readText(opts.publicKeyFile, '--public-key'), opts.publicKeyFile);
  if (opts.key?.pem || opts.key?.file) return loadSigningKey(opts).publicKey;
  const pub = join(opts.dataDir, SIGNING_PUBLIC_KEY_FILE);
  if (existsSync(pub)) return fromPem(readText(pub, 'public key in the data dir'), pub);
  if (existsSync(join(opts.dataDir, SIGNING_KEY_FILE))) return loadSigningKey(opts).publicKey;
  throw new UsageError(`no signing key in ${join(opts.dataDir, 'keys')} and none configured: give the public key with --public-key <file>`);
}
