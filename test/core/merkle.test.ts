import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leafHash, levelProof, merkleLevels, merkleTree, verifyInclusion } from '../../src/core/merkle.js';

/**
 * The tree hash and inclusion proofs against the method's definitions written out directly
 * (docs/MERKLE.md): MTH of a list split at the largest power of two below its length, and PATH(m)
 * as the path of m in its half followed by the other half's hash.
 */

const h = (...parts: Uint8Array[]) => parts.reduce((hash, p) => hash.update(p), createHash('sha256')).digest();
const mth = (d: Buffer[]): Buffer => {
  if (d.length === 0) return h();
  if (d.length === 1) return h(Buffer.from([0]), d[0]!);
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return h(Buffer.from([1]), mth(d.slice(0, k)), mth(d.slice(k)));
};
const path = (m: number, d: Buffer[]): Buffer[] => {
  if (d.length <= 1) return [];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
};

describe('the Merkle tree of a batch', () => {
  it('has the defined root and proofs at every size from 0 to 70, and each proof verifies only its own leaf', () => {
    for (let n = 0; n <= 70; n++) {
      const data = Array.from({ length: n }, (_, i) => Buffer.from(`leaf ${i}`));
      const leaves = data.map((d) => leafHash(d));
      const tree = merkleTree(leaves);
      expect(tree.root.equals(mth(data)), `root of ${n}`).toBe(true);
      for (let m = 0; m < n; m++) {
        expect(
          tree.proofs[m]!.map((p) => p.toString('hex')),
          `path ${m} of ${n}`,
        ).toEqual(path(m, data).map((p) => p.toString('hex')));
        expect(verifyInclusion(leaves[m]!, m, n, tree.proofs[m]!, tree.root)).toBe(true);
        if (n > 1) {
          expect(verifyInclusion(leaves[(m + 1) % n]!, m, n, tree.proofs[m]!, tree.root)).toBe(false);
          expect(verifyInclusion(leaves[m]!, (m + 1) % n, n, tree.proofs[m]!, tree.root)).toBe(false);
        }
        expect(verifyInclusion(leafHash('another leaf'), m, n, tree.proofs[m]!, tree.root)).toBe(false);
      }
      expect(verifyInclusion(leafHash('x'), n, n, [], tree.root)).toBe(false);
    }
  });

  it('hashes a leaf and a node apart, so a node is never taken for a leaf', () => {
    const a = leafHash('a');
    const b = leafHash('b');
    const root = merkleTree([a, b]).root;
    // The root as a one-leaf tree's leaf: the 0x00 / 0x01 prefixes keep it from verifying.
    expect(verifyInclusion(leafHash(Buffer.concat([a, b])), 0, 1, [], root)).toBe(false);
  });

  it('as levels (a node without a right sibling carried up): the defined root and proofs at every size up to the capacity', () => {
    for (const capacity of [1, 2, 64, 256]) {
      for (let n = 1; n <= capacity; n += capacity === 256 ? 37 : 1) {
        const data = Array.from({ length: n }, (_, i) => Buffer.from(`leaf ${i}`));
        const tree = merkleLevels(
          data.map((d) => leafHash(d)),
          capacity,
        );
        expect(tree.root.equals(mth(data)), `root of ${n} in ${capacity}`).toBe(true);
        expect(tree.nodes.length).toBe((2 * capacity - 2) * 32);
        for (let m = 0; m < n; m++)
          expect(
            levelProof(tree, m).map((p) => p.toString('hex')),
            `path ${m} of ${n} in ${capacity}`,
          ).toEqual(path(m, data).map((p) => p.toString('hex')));
      }
    }
    expect(() => merkleLevels([leafHash('a')], 3)).toThrow(RangeError);
    expect(() => merkleLevels([], 4)).toThrow(RangeError);
    expect(() => merkleLevels([leafHash('a'), leafHash('b'), leafHash('c')], 2)).toThrow(RangeError);
  });
});
