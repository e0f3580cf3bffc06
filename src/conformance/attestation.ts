import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../core/canonical-json.js';
import { isObject } from '../core/json-util.js';
import type { Result } from './types.js';
import type { Verdict } from './verdict.js';
import { CANONICALIZATION } from './version.js';

/**
 * Signed verdicts. The signature is Ed25519 over
 *   "veronikai-attestation/1\n" + canonicalJson(payload)
 * where the payload holds exactly: subject, observedAt, inputsHash, checker, suite {id, version},
 * scope, result and reasons (canonical JSON: sorted keys, see canonical-json.ts). The prefix keeps
 * a signature over a verdict from ever being valid for any other message the key might sign.
 *
 * The payload says what was judged, not only the result: `scope` is `document` (a file or a
 * fetched document, structure only, nothing called) or `observation` (judged from live GET-only
 * exchanges), and the reasons carry an `n/a:` line naming the half of a suite that did not run
 * (e.g. "n/a: transport rules not run: no live GET"), so a signed pass is never read as more
 * than was checked.
 * Keys are passed in (src/signing/keys.ts loads them); nothing here touches the disk.
 */
export interface AttestationPayload {
  subject: string;
  observedAt: string;
  inputsHash: string;
  checker: string;
  suite: { id: string; version: number };
  /** What was judged: `document` (structure only, nothing called) or `observation` (live exchanges). */
  scope: Verdict['scope'];
  result: Result;
  reasons: string[];
}

export interface Attestation {
  payload: AttestationPayload;
  alg: 'Ed25519';
  canonicalization: typeof CANONICALIZATION;
  /** `ed25519:` + first 32 hex digits of the SHA-256 of the public key's SPKI DER. */
  keyId: string;
  /** base64url signature. */
  signature: string;
}

const DOMAIN = 'veronikai-attestation/1\n';

export function attestationPayload(v: Verdict): AttestationPayload {
  return {
    subject: v.subject,
    observedAt: v.observedAt,
    inputsHash: v.inputsHash,
    checker: v.checker,
    suite: { id: v.suite.id, version: v.suite.version },
    scope: v.scope,
    result: v.result,
    reasons: [...v.reasons],
  };
}

export function signedBytes(payload: AttestationPayload): Buffer {
  return Buffer.from(DOMAIN + canonicalJson(payload), 'utf8');
}

function toPrivate(key: KeyObject | string): KeyObject {
  const k = typeof key === 'string' ? createPrivateKey(key) : key;
  if (k.type !== 'private' || k.asymmetricKeyType !== 'ed25519') throw new TypeError('an Ed25519 private key is required');
  return k;
}

function toPublic(key: KeyObject | string): KeyObject {
  const k = typeof key === 'string' ? createPublicKey(key) : key.type === 'private' ? createPublicKey(key) : key;
  if (k.asymmetricKeyType !== 'ed25519') throw new TypeError('an Ed25519 public key is required');
  return k;
}

/** Key ids of keys already seen: every verdict of a run is signed with the same key, and exporting it each time cost most of signing. */
const KEY_IDS = new WeakMap<KeyObject, string>();

export function keyIdOf(key: KeyObject | string): string {
  const cached = typeof key === 'string' ? undefined : KEY_IDS.get(key);
  if (cached !== undefined) return cached;
  const der = toPublic(key).export({ type: 'spki', format: 'der' });
  const id = 'ed25519:' + sha256Hex(der).slice(0, 32);
  if (typeof key !== 'string') KEY_IDS.set(key, id);
  return id;
}

export function signVerdict(v: Verdict, privateKey: KeyObject | string): Attestation {
  const key = toPrivate(privateKey);
  const payload = attestationPayload(v);
  const signature = sign(null, signedBytes(payload), key).toString('base64url');
  return { payload, alg: 'Ed25519', canonicalization: CANONICALIZATION, keyId: keyIdOf(key), signature };
}

const PAYLOAD_KEYS = ['checker', 'inputsHash', 'observedAt', 'reasons', 'result', 'scope', 'subject', 'suite'];

/** True when `p` has exactly the payload's fields with their types (`scope` included). */
export function isAttestationPayload(p: unknown): p is AttestationPayload {
  if (!isObject(p)) return false;
  const keys = Object.keys(p).sort();
  if (keys.length !== PAYLOAD_KEYS.length || keys.some((k, i) => k !== PAYLOAD_KEYS[i])) return false;
  const suite = p.suite;
  return (
    typeof p.subject === 'string' &&
    typeof p.observedAt === 'string' &&
    typeof p.inputsHash === 'string' &&
    typeof p.checker === 'string' &&
    isObject(suite) &&
    typeof suite.id === 'string' &&
    typeof suite.version === 'number' &&
    Object.keys(suite).length === 2 &&
    (p.scope === 'document' || p.scope === 'observation') &&
    (p.result === 'pass' || p.result === 'fail' || p.result === 'unknown' || p.result === 'n/a') &&
    Array.isArray(p.reasons) &&
    p.reasons.every((r) => typeof r === 'string')
  );
}

/**
 * True when the attestation's signature is valid for `publicKey` and its payload has the
 * payload's exact shape (a payload without `scope` says less than a verdict must: rejected).
 * Never throws.
 */
export function verifyAttestation(att: unknown, publicKey: KeyObject | string): boolean {
  try {
    if (!isObject(att) || att.alg !== 'Ed25519' || att.canonicalization !== CANONICALIZATION) return false;
    if (typeof att.signature !== 'string' || !isAttestationPayload(att.payload)) return false;
    const key = toPublic(publicKey);
    if (att.keyId !== keyIdOf(key)) return false;
    const sig = Buffer.from(att.signature, 'base64url');
    if (sig.length !== 64) return false;
    // Verify the payload exactly as carried: a field added after signing breaks the signature.
    return verify(null, signedBytes(att.payload), key, sig);
  } catch {
    return false;
  }
}

/** True when `att` is a valid signature by `publicKey` over exactly this verdict. Never throws. */
export function verifyVerdict(v: Verdict, att: unknown, publicKey: KeyObject | string): boolean {
  try {
    if (!verifyAttestation(att, publicKey)) return false;
    return canonicalJson((att as Attestation).payload) === canonicalJson(attestationPayload(v));
  } catch {
    return false;
  }
}

/** A fresh Ed25519 key pair as PEM (PKCS#8 private, SPKI public). */
export function generateSigningKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
