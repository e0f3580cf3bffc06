import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../core/canonical-json.js';
import { leafHash, merkleTree, rootFromProof } from '../core/merkle.js';
import { keyIdOf } from './attestation.js';
import type { Result } from './types.js';
import type { Verdict } from './verdict.js';
import { CANONICALIZATION } from './version.js';

/**
 * Verdicts signed a tree at a time (docs/MERKLE.md). Each verdict is a leaf: the bytes
 *   "veronikai-verdict/1\n" + canonicalJson(leaf payload)
 * where the payload names the probe event, the subject, the time, the checker version, the suite,
 * the scope, the inputs hash, the result and every reason (warnings included). The leaves of a
 * run of a batch's verdicts make one Merkle tree; its head, the bytes
 *   "veronikai-tree-head/1\n" + canonicalJson({ checker, root, size })
 * is signed once with Ed25519. A verdict is then checked with its leaf index, its head and its
 * inclusion proof. The prefixes keep a leaf, a head and a single verdict's attestation
 * (attestation.ts) from ever being taken for one another.
 */
export interface LeafPayload {
  eventId: string;
  subject: string;
  /** ISO 8601 with milliseconds, UTC. */
  observedAt: string;
  checker: string;
  suite: { id: string; version: number };
  scope: Verdict['scope'];
  inputsHash: string;
  result: Result;
  reasons: string[];
}

/** The columns of a stored verdict row its leaf is made of (warnings are the reasons marked `warn:`, kept apart). */
export interface VerdictLeafColumns {
  event_id: string;
  agent_key: string;
  checker_version: string;
  suite_id: string;
  suite_version: string;
  scope: string;
  inputs_hash: string;
  result: string;
  reasons: readonly string[];
  warnings: readonly string[];
}

/** The leaf a stored verdict row says (observedAtMs: its time), as its tree signed it. */
export function leafOfRow(r: VerdictLeafColumns, observedAtMs: number): LeafPayload {
  return {
    eventId: r.event_id,
    subject: r.agent_key,
    observedAt: new Date(observedAtMs).toISOString(),
    checker: r.checker_version,
    suite: { id: r.suite_id, version: Number(r.suite_version) },
    scope: r.scope as LeafPayload['scope'],
    inputsHash: r.inputs_hash,
    result: r.result as LeafPayload['result'],
    reasons: [...r.reasons, ...r.warnings],
  };
}

export interface TreeHead {
  checker: string;
  /** Hex SHA-256 tree hash. */
  root: string;
  size: number;
}

export interface SignedHead extends TreeHead {
  /** Hex, the first 32 digits of the SHA-256 of the head's signed bytes: the same leaves give the same id. */
  id: string;
  alg: 'Ed25519';
  canonicalization: typeof CANONICALIZATION;
  keyId: string;
  /** base64url Ed25519 signature over the head's signed bytes. */
  signature: string;
}

export interface SignedBatch {
  head: SignedHead;
  /** Each leaf's inclusion proof (hex hashes, deepest first), in the order of the leaves. */
  proofs: string[][];
}

/** What a verdict leaf's bytes start with, before its JSON. */
export const LEAF_DOMAIN = 'veronikai-verdict/1\n';
const HEAD_DOMAIN = 'veronikai-tree-head/1\n';

const str = JSON.stringify;

/** What a leaf says that is not its probe's own: the same for every probe of one judgement. */
export type JudgementLeaf = Omit<LeafPayload, 'eventId' | 'observedAt' | 'subject'>;

/**
 * A leaf's bytes around its probe's own fields (event id, time, subject), in its sorted key order:
 * the leaf is parts[0] + eventId + parts[1] + observedAt + parts[2] + subject + parts[3], each of
 * the three as a JSON string. The engine joins them with each probe's fields in a replay
 * (src/processors/verdicts/replay-facts.ts).
 */
export function leafParts(p: JudgementLeaf): [string, string, string, string] {
  let reasons = '[';
  for (let i = 0; i < p.reasons.length; i++) reasons += (i > 0 ? ',' : '') + str(p.reasons[i]);
  reasons += ']';
  const version = Number.isFinite(p.suite.version) ? String(Object.is(p.suite.version, -0) ? 0 : p.suite.version) : 'null';
  return [
    `{"checker":${str(p.checker)},"eventId":`,
    `,"inputsHash":${str(p.inputsHash)},"observedAt":`,
    `,"reasons":${reasons},"result":${str(p.result)},"scope":${str(p.scope)},"subject":`,
    `,"suite":{"id":${str(p.suite.id)},"version":${version}}}`,
  ];
}

/**
 * The canonical JSON of a leaf payload, written in its sorted key order directly: it is the one
 * serialisation done per verdict, and the general canonicalJson walks every value to get there.
 * A test holds it equal to canonicalJson.
 */
export function leafJson(p: LeafPayload): string {
  const [a, b, c, d] = leafParts(p);
  return `${a}${str(p.eventId)}${b}${str(p.observedAt)}${c}${str(p.subject)}${d}`;
}

/** The leaf hash of a verdict. */
export function verdictLeaf(p: LeafPayload): Buffer {
  return leafHash(LEAF_DOMAIN + leafJson(p));
}

export function headBytes(h: TreeHead): Buffer {
  return Buffer.from(HEAD_DOMAIN + canonicalJson({ checker: h.checker, root: h.root, size: h.size }), 'utf8');
}

function headId(h: TreeHead): string {
  return sha256Hex(headBytes(h)).slice(0, 32);
}

/** Builds the tree of `leaves` (verdictLeaf of each, in order) and signs its head with `privateKey`. */
export function signBatch(checker: string, leaves: readonly Buffer[], privateKey: KeyObject): SignedBatch {
  const { head, proofs } = signTree(checker, leaves, privateKey);
  return { head, proofs: hexProofs(proofs) };
}

/**
 * signBatch with each proof's hashes as bytes (deepest first): what the verdict writer stores. A
 * subtree's hash is one Buffer, shared by the proof of every leaf under its sibling.
 */
export function signTree(checker: string, leaves: readonly Buffer[], privateKey: KeyObject): { head: SignedHead; proofs: Buffer[][] } {
  const tree = merkleTree(leaves);
  return { head: signHead({ checker, root: tree.root.toString('hex'), size: leaves.length }, privateKey), proofs: tree.proofs };
}

/** Signs a tree's head (its root computed elsewhere: by merkleTree, or by the engine in a replay). */
export function signHead(body: TreeHead, privateKey: KeyObject): SignedHead {
  const signature = sign(null, headBytes(body), privateKey).toString('base64url');
  return { ...body, id: headId(body), alg: 'Ed25519', canonicalization: CANONICALIZATION, keyId: keyIdOf(privateKey), signature };
}

/** The proofs in hex: an inner node is in the proof of every leaf under its sibling, so each node is written out once. */
export function hexProofs(proofs: readonly (readonly Uint8Array[])[]): string[][] {
  const hex = new Map<Uint8Array, string>();
  return proofs.map((p) =>
    p.map((h) => {
      let x = hex.get(h);
      if (x === undefined) hex.set(h, (x = Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('hex')));
      return x;
    }),
  );
}

/** True when the head's signature is valid for `publicKey` and its id is the one its contents give. Never throws. */
export function verifyHead(head: SignedHead, publicKey: KeyObject): boolean {
  try {
    const key = publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey;
    if (head.alg !== 'Ed25519' || head.canonicalization !== CANONICALIZATION || head.keyId !== keyIdOf(key)) return false;
    if (head.id !== headId(head)) return false;
    const sig = Buffer.from(head.signature, 'base64url');
    return sig.length === 64 && verify(null, headBytes(head), key, sig);
  } catch {
    return false;
  }
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/**
 * True when `payload` is the leaf at `index` of the tree `head` signs, as `proof` shows. The head's
 * own signature is checked apart (verifyHead), once for all its leaves. Never throws.
 */
export function verifyLeaf(payload: LeafPayload, index: number, proof: readonly string[], head: TreeHead): boolean {
  try {
    if (!HEX_HASH.test(head.root) || proof.some((p) => !HEX_HASH.test(p))) return false;
    const root = rootFromProof(
      verdictLeaf(payload),
      index,
      head.size,
      proof.map((p) => Buffer.from(p, 'hex')),
    );
    return root !== null && root.toString('hex') === head.root;
  } catch {
    return false;
  }
}

/**
 * A batch-signed verdict carried whole (agent_latest.signature, the API's `signature`): its leaf
 * payload, index and proof, its tree's head and the head's signature.
 */
export interface TreeAttestation {
  alg: 'Ed25519';
  canonicalization: typeof CANONICALIZATION;
  keyId: string;
  payload: LeafPayload;
  /** base64url Ed25519 signature over the head's signed bytes. */
  signature: string;
  leafIndex: number;
  proof: string[];
  head: { id: string } & TreeHead;
}

const LEAF_KEYS = ['checker', 'eventId', 'inputsHash', 'observedAt', 'reasons', 'result', 'scope', 'subject', 'suite'];
const HEAD_KEYS = ['checker', 'id', 'root', 'size'];
const TREE_KEYS = ['alg', 'canonicalization', 'head', 'keyId', 'leafIndex', 'payload', 'proof', 'signature'];
const sameKeys = (o: object, keys: readonly string[]) => {
  const k = Object.keys(o).sort();
  return k.length === keys.length && k.every((x, i) => x === keys[i]);
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `v` has exactly a tree attestation's fields with their types. */
export function isTreeAttestation(v: unknown): v is TreeAttestation {
  if (!isRecord(v) || !sameKeys(v, TREE_KEYS)) return false;
  const { payload: p, head: h } = v;
  if (v.alg !== 'Ed25519' || typeof v.canonicalization !== 'string' || typeof v.keyId !== 'string' || typeof v.signature !== 'string')
    return false;
  if (!Number.isInteger(v.leafIndex) || !Array.isArray(v.proof) || !v.proof.every((x) => typeof x === 'string')) return false;
  if (
    !isRecord(h) ||
    !sameKeys(h, HEAD_KEYS) ||
    typeof h.id !== 'string' ||
    typeof h.checker !== 'string' ||
    typeof h.root !== 'string' ||
    !Number.isInteger(h.size)
  )
    return false;
  if (!isRecord(p) || !sameKeys(p, LEAF_KEYS) || !isRecord(p.suite) || !sameKeys(p.suite, ['id', 'version'])) return false;
  return (
    typeof p.eventId === 'string' &&
    typeof p.subject === 'string' &&
    typeof p.observedAt === 'string' &&
    typeof p.inputsHash === 'string' &&
    typeof p.checker === 'string' &&
    typeof p.suite.id === 'string' &&
    typeof p.suite.version === 'number' &&
    (p.scope === 'document' || p.scope === 'observation') &&
    (p.result === 'pass' || p.result === 'fail' || p.result === 'unknown' || p.result === 'n/a') &&
    Array.isArray(p.reasons) &&
    p.reasons.every((r) => typeof r === 'string')
  );
}

/** True when the carried verdict is the leaf its proof shows under a head signed by `publicKey`. Never throws. */
export function verifyTreeAttestation(att: unknown, publicKey: KeyObject): boolean {
  if (!isTreeAttestation(att)) return false;
  const head: SignedHead = {
    ...att.head,
    alg: att.alg,
    canonicalization: att.canonicalization,
    keyId: att.keyId,
    signature: att.signature,
  };
  return verifyHead(head, publicKey) && verifyLeaf(att.payload, att.leafIndex, att.proof, head);
}
