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
 * Signs a batch of judged probes with one signature (docs/MERKLE.md): their verdicts' leaves make
 * one Merkle tree, whose head is signed; each verdict row gets the head's id, its leaf's index and
 * its inclusion proof (the hashes as bytes, clickhouse/0036), and the batch's `verdict_heads` row is returned. The agent's latest row
 * carries the whole of it as JSON (leaf, head, proof, signature), which anyone holding the public
 * key checks on its own (verifyTreeAttestation).
 */
export function signJudged(judged: readonly JudgedProbe[], checkerVersion: string, key: KeyObject): InsertRow<'verdict_heads'> {
  const { head, proofs } = signTree(
    checkerVersion,
    judged.map((j) => verdictLeaf(j.leaf)),
    key,
  );
  for (let i = 0; i < judged.length; i++) {
    const j = judged[i]!;
    j.verdict.head_id = head.id;
    j.verdict.leaf_index = i;
    j.verdict.proof = proofs[i]!;
  }
  return headRow(head);
}

/**
 * The agent_latest signature of a batch-signed verdict, as JSON text (TreeAttestation): its leaf,
 * index and proof, and its batch's head with the head's signature.
 */
export function treeAttestation(j: JudgedProbe, head: InsertRow<'verdict_heads'>): string {
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
