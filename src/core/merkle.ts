import { sha256 } from './canonical-json.js';

/**
 * The Merkle tree hash of a list of leaves and its inclusion proofs, as docs/MERKLE.md writes them:
 * SHA-256, a leaf hashed behind a 0x00 byte, an inner node behind 0x01, the list split at the
 * largest power of two below its length. One signature over the root of a batch then vouches
 * for every leaf, each checked alone with its proof (about log2 n hashes).
 */

/** The hash of one leaf's bytes (a string as UTF-8). */
export function leafHash(data: string | Uint8Array): Buffer {
  // U+0000 is the one byte 0x00 in UTF-8.
  if (typeof data === 'string') return sha256(`\u0000${data}`);
  const bytes = Buffer.allocUnsafe(1 + data.length);
  bytes[0] = 0x00;
  bytes.set(data, 1);
  return sha256(bytes);
}

/** An inner node's hashed bytes, reused: one node is hashed at a time. */
const nodeBytes = Buffer.alloc(65);

/** The hash of an inner node from its two children (32 bytes each, as every node of a tree is). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== 32 || right.length !== 32) return sha256(Buffer.concat([Buffer.from([0x01]), left, right]));
  nodeBytes[0] = 0x01;
  nodeBytes.set(left, 1);
  nodeBytes.set(right, 33);
  return sha256(nodeBytes);
}

/** The largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export interface MerkleTree {
  /** The tree hash of the leaves (the hash of no bytes when there are none). */
  root: Buffer;
  /** Each leaf's inclusion proof, deepest sibling first. */
  proofs: Buffer[][];
}

/**
 * The root of `leaves` (leaf hashes, in order) and every leaf's inclusion proof, in one pass
 * over the tree: each subtree's hash is computed once and handed to the leaves of its sibling.
 */
export function merkleTree(leaves: readonly Buffer[]): MerkleTree {
  const proofs: Buffer[][] = leaves.map(() => []);
  if (leaves.length === 0) return { root: sha256(''), proofs };
  const build = (lo: number, hi: number): Buffer => {
    if (hi - lo === 1) return leaves[lo]!;
    const mid = lo + split(hi - lo);
    const left = build(lo, mid);
    const right = build(mid, hi);
    for (let i = lo; i < mid; i++) proofs[i]!.push(right);
    for (let i = mid; i < hi; i++) proofs[i]!.push(left);
    return nodeHash(left, right);
  };
  return { root: build(0, leaves.length), proofs };
}

/**
 * A tree as its levels: every node below the root, level by level from the leaves up, each level at
 * the offset it has in a full tree of `capacity` leaves (level l at 2·capacity − 2·capacity/2^l
 * nodes, 32 bytes a node; absent nodes zero). A node with no right sibling stands for its parent as
 * it is, which is the tree merkleTree builds (the list split at the largest power of two below its
 * length), so leaf i's proof is, for each level l whose sibling s = (i >> l) xor 1 exists
 * (s·2^l < size), that sibling, deepest first.
 */
export interface MerkleLevels {
  /** The tree hash of the leaves. */
  root: Buffer;
  nodes: Buffer;
  capacity: number;
  size: number;
}

/**
 * The tree over `leaves` (1 to `capacity` of them; `capacity` a power of two) as its levels: each
 * subtree hashed once, no proof list built per leaf (a replay's million verdicts take their proofs
 * as bytes, levelProof).
 */
export function merkleLevels(leaves: readonly Buffer[], capacity: number): MerkleLevels {
  if (leaves.length === 0 || leaves.length > capacity || (capacity & (capacity - 1)) !== 0)
    throw new RangeError(`merkleLevels: ${leaves.length} leaves for a capacity of ${capacity}`);
  const nodes = Buffer.alloc((2 * capacity - 2) * 32);
  let level: Buffer[] = [...leaves];
  for (let width = capacity, offset = 0; level.length > 1; offset += width, width /= 2) {
    level.forEach((node, j) => node.copy(nodes, (offset + j) * 32));
    const up: Buffer[] = [];
    for (let j = 0; j < level.length; j += 2) up.push(j + 1 < level.length ? nodeHash(level[j]!, level[j + 1]!) : level[j]!);
    level = up;
  }
  return { root: level[0]!, nodes, capacity, size: leaves.length };
}

/** Leaf `index`'s inclusion proof out of the levels, deepest sibling first (views of `tree.nodes`). */
export function levelProof(tree: MerkleLevels, index: number): Buffer[] {
  const proof: Buffer[] = [];
  for (let l = 0, width = tree.capacity, offset = 0; width > 1; l++, offset += width, width /= 2) {
    const sibling = (index >> l) ^ 1;
    if (sibling * 2 ** l < tree.size) proof.push(tree.nodes.subarray((offset + sibling) * 32, (offset + sibling + 1) * 32));
  }
  return proof;
}

/** The root a leaf and its proof lead to, or null when the proof cannot belong to a tree of that size. */
export function rootFromProof(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[]): Buffer | null {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** True when `proof` shows `leaf` at `index` in the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  const r = rootFromProof(leaf, index, size, proof);
  return r !== null && r.equals(root);
}
