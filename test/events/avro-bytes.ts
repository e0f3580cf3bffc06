/**
 * Avro binary bodies for any avsc type, written byte by byte from a seeded PRNG (so fast-check
 * can replay a failure from its seed). `hostility` is the chance that a length, a block count, a
 * union or enum index is replaced by a hostile one: huge, negative, or out of range, with little
 * or nothing behind it. With hostility 0 the body is a valid encoding, including the forms avsc
 * never writes itself (several blocks, negative counts with their byte size).
 */
import type avro from 'avsc';
import { varint } from './hostile-message.js';

type Node = avro.Type & {
  fields?: { type: avro.Type }[];
  itemsType?: avro.Type;
  valuesType?: avro.Type;
  types?: avro.Type[];
  symbols?: string[];
  size?: number;
  underlyingType?: avro.Type;
};

/** Counts and lengths an attacker would write: past any message, past the heap, past 2^31, 2^53. */
export const HOSTILE_COUNTS = [
  4097,
  65_536,
  1_000_000,
  100_000_000,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 40,
  2 ** 53 - 1,
  -1,
  -100_000_000,
  -(2 ** 31),
];

export type Rng = () => number;

/** mulberry32: a small, seedable PRNG with floats in [0, 1). */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (r: Rng, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)]!;
const bytes = (r: Rng, n: number): Buffer => Buffer.from(Array.from({ length: n }, () => int(r, 256)));

/** Nesting past this writes only what ends a value (empty arrays, a union's null), so recursive schemas stop. */
const MAX_GEN_DEPTH = 8;

export function avroBody(type: avro.Type, r: Rng, hostility: number): Buffer {
  const out: Buffer[] = [];
  write(type as Node, r, hostility, 0, out);
  return Buffer.concat(out);
}

function write(t: Node, r: Rng, hostility: number, depth: number, out: Buffer[]): void {
  const hostile = (): boolean => r() < hostility;
  switch (t.typeName) {
    case 'null':
      return;
    case 'boolean':
      out.push(Buffer.from([int(r, 2)]));
      return;
    case 'int':
      out.push(varint(int(r, 2 ** 31) - 2 ** 30));
      return;
    case 'long':
      out.push(varint(int(r, 2 ** 40) - 2 ** 39));
      return;
    case 'float':
      out.push(bytes(r, 4));
      return;
    case 'double':
      out.push(bytes(r, 8));
      return;
    case 'fixed':
      out.push(bytes(r, t.size!));
      return;
    case 'enum':
      out.push(varint(hostile() ? pick(r, [t.symbols!.length, -1, 2 ** 31]) : int(r, t.symbols!.length)));
      return;
    case 'string':
    case 'bytes': {
      if (hostile()) {
        out.push(varint(pick(r, HOSTILE_COUNTS)), bytes(r, int(r, 4)));
        return;
      }
      const n = int(r, 24);
      out.push(varint(n), t.typeName === 'string' ? Buffer.from(Array.from({ length: n }, () => 0x61 + int(r, 26))) : bytes(r, n));
      return;
    }
    case 'record':
    case 'error':
      for (const f of t.fields!) write(f.type as Node, r, hostility, depth + 1, out);
      return;
    case 'union:unwrapped':
    case 'union:wrapped': {
      const branches = t.types!;
      if (hostile()) {
        out.push(varint(pick(r, [branches.length, -1, 2 ** 31])));
        return;
      }
      const nullAt = branches.findIndex((b) => b.typeName === 'null');
      const i = depth >= MAX_GEN_DEPTH && nullAt >= 0 ? nullAt : int(r, branches.length);
      out.push(varint(i));
      write(branches[i] as Node, r, hostility, depth + 1, out);
      return;
    }
    case 'array':
    case 'map': {
      const item = (t.typeName === 'array' ? t.itemsType : t.valuesType) as Node;
      const one = (): Buffer => {
        const parts: Buffer[] = [];
        if (t.typeName === 'map') write({ typeName: 'string' } as Node, r, hostility, depth + 1, parts);
        write(item, r, hostility, depth + 1, parts);
        return Buffer.concat(parts);
      };
      if (hostile()) {
        // A hostile count, then a byte size when it is negative, then a few honest items or noise.
        const count = pick(r, HOSTILE_COUNTS);
        out.push(varint(count));
        if (count < 0) out.push(varint(r() < 0.5 ? int(r, 64) : pick(r, HOSTILE_COUNTS)));
        const items = int(r, 3);
        for (let i = 0; i < items; i++) out.push(one());
        if (r() < 0.5) out.push(bytes(r, int(r, 8)));
        return;
      }
      const blocks = depth >= MAX_GEN_DEPTH ? 0 : int(r, 3);
      for (let b = 0; b < blocks; b++) {
        const count = 1 + int(r, 3);
        const items = Buffer.concat(Array.from({ length: count }, one));
        // Avro lets a writer give a negative count and the block's size; avsc never writes it.
        if (r() < 0.3) out.push(varint(-count), varint(items.length), items);
        else out.push(varint(count), items);
      }
      out.push(varint(0));
      return;
    }
    default:
      if (t.underlyingType) return write(t.underlyingType as Node, r, hostility, depth, out);
      throw new Error(`no generator for avsc type ${t.typeName}`);
  }
}
