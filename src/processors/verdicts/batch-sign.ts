import { createPrivateKey, type KeyObject } from 'node:crypto';
import {
  hexProofs,
  signTree,
  verdictLeaf,
  type LeafPayload,
  type SignedHead,
  type TreeAttestation,
} from '../../conformance/tree-attestation.js';
import { CANONICALIZATION } from '../../conformance/version.js';
import type { InsertRow } from '../../warehouse/tables.js';
import type { JudgedProbe, Signer } from './judge-probe.js';

/**
 * Verdicts under one signed head at most. A verdict row keeps its inclusion proof, ⌈log₂ n⌉ hashes
 * of 32 bytes that nothing compresses: in a tree of a whole batch (8,000 to 13,000 verdicts) that
 * was 14 hashes, most of the bytes of a row and of what the engine wrote and merged. Trees of 256
 * keep proofs at 8 hashes for one Ed25519 signature per 256 verdicts (about 50 µs, a fifth of a
 * microsecond a verdict): inserting 12,800 verdict rows took 160 ms instead of 240 (measured on
 * the embedded engine).
 */
export const VERDICT_TREE_LEAVES = 256;

/**
 * Signs a batch of judged probes a tree at a time (docs/MERKLE.md): the verdicts' leaves, in
 * order, VERDICT_TREE_LEAVES to a tree, whose head is signed; each verdict row gets its head's id,
 * its leaf's index in that tree and its inclusion proof (the hashes as bytes, clickhouse/0036),
 * and the batch's `verdict_heads` rows are returned, one per tree. The agent's latest row carries
 * the whole of it as JSON (leaf, head, proof, signature), which anyone holding the public key
 * checks on its own (verifyTreeAttestation).
 */
export function signJudged(
  judged: readonly JudgedProbe[],
  checkerVersion: string,
  key: KeyObject,
  leavesPerTree: number = VERDICT_TREE_LEAVES,
): InsertRow<'verdict_heads'>[] {
  const heads: InsertRow<'verdict_heads'>[] = [];
  for (let start = 0; start < judged.length; start += leavesPerTree) {
    const tree = judged.slice(start, start + leavesPerTree);
    const { head, proofs } = signTree(
      checkerVersion,
      tree.map((j) => verdictLeaf(j.leaf)),
      key,
    );
    for (let i = 0; i < tree.length; i++) {
      const j = tree[i]!;
      j.verdict.head_id = head.id;
      j.verdict.leaf_index = i;
      j.verdict.proof = proofs[i]!;
    }
    heads.push(headRow(head));
  }
  return heads;
}

/**
 * The agent_latest signature of a batch-signed verdict, as JSON text (TreeAttestation): its leaf,
 * index and proof, and its tree's head (one of `heads`, by the id the verdict row names) with the
 * head's signature.
 */
export function treeAttestation(j: JudgedProbe, heads: readonly InsertRow<'verdict_heads'>[]): string {
  const head = heads.find((h) => h.head_id === j.verdict.head_id);
  if (head === undefined) throw new Error(`no head ${j.verdict.head_id ?? '(unsigned)'} among the batch's heads`);
  return attestationText(j.leaf, j.verdict.leaf_index!, hexProofs([j.verdict.proof!])[0]!, head);
}

/** A verdict's TreeAttestation as JSON text, from its leaf, its place in its tree (proof in hex) and its head. */
export function attestationText(leaf: LeafPayload, leafIndex: number, proof: string[], head: InsertRow<'verdict_heads'>): string {
  const att: TreeAttestation = {
    alg: 'Ed25519',
    canonicalization: CANONICALIZATION,
    keyId: head.key_id,
    payload: leaf,
    signature: head.signature,
    leafIndex,
    proof,
    head: { id: head.head_id, checker: head.checker_version, root: head.root_hash, size: head.tree_size },
  };
  return JSON.stringify(att);
}

export function headRow(head: SignedHead): InsertRow<'verdict_heads'> {
  return {
    head_id: head.id,
    checker_version: head.checker,
    tree_size: head.size,
    root_hash: head.root,
    alg: head.alg,
    canonicalization: head.canonicalization,
    key_id: head.keyId,
    signature: head.signature,
  };
}

/** A signing key as a private KeyObject (parsed once per writer). */
export function signingKeyObject(key: Signer): KeyObject {
  const k = typeof key === 'string' ? createPrivateKey(key) : key;
  if (k.type !== 'private' || k.asymmetricKeyType !== 'ed25519') throw new TypeError('an Ed25519 private key is required');
  return k;
}
