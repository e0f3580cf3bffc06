/**
 * Issue 10, item 3: the codec checks every length and block count against the bytes that
 * remain and the event-size limits (src/events/limits.ts) before avsc runs, for any schema.
 * The 188-byte message itself: codec-hostile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DecodeError, EventCodec } from '../../src/events/codec.js';
import { DECODE_EMPTY_ITEMS_MAX, DECODE_MAX_DEPTH, EVENT_MAX_BYTES } from '../../src/events/limits.js';
import { HOSTILE_BLOCK_COUNT, varint } from './hostile-message.js';
import { oddCodec } from './odd-schemas.js';

const codec = new EventCodec();

function decodeError(c: EventCodec, message: Buffer): DecodeError {
  try {
    c.decode(message);
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('decoded');
}

const header = (c: EventCodec, name: string): Buffer =>
  Buffer.concat([Buffer.from([0xc3, 0x01]), Buffer.from(c.fingerprintOf(name as never), 'hex')]);

describe('bounds on every length and count', () => {
  it('a string or bytes length past the remaining bytes is malformed', () => {
    // Listing starts with a string: a length of 2^31 with 3 bytes behind it.
    const m = Buffer.concat([header(codec, 'Listing'), varint(2 ** 31), Buffer.from('abc')]);
    const err = decodeError(codec, m);
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/a length of 2147483648 bytes, 3 bytes remain/);
  });

  it('a message over EVENT_MAX_BYTES is too_large, whatever it holds', () => {
    const m = Buffer.concat([header(codec, 'Probe'), Buffer.alloc(EVENT_MAX_BYTES)]);
    expect(decodeError(codec, m).kind).toBe('too_large');
  });

  it('items that take no bytes (null, empty records, a map of nulls) are capped by DECODE_EMPTY_ITEMS_MAX', () => {
    const odd = oddCodec();
    const h = header(odd, 'Odd');
    // After nullMap: color 0, tag, ratio, score, list null, nested [].
    const rest = Buffer.concat([varint(0), Buffer.alloc(4), Buffer.alloc(4), Buffer.alloc(8), varint(0), varint(0)]);
    // nulls: [null × n], empties: [], nullMap: {}, the rest.
    const nulls = (n: number): Buffer => Buffer.concat([h, varint(n), varint(0), varint(0), varint(0), rest]);
    expect((odd.decode(nulls(DECODE_EMPTY_ITEMS_MAX)).value as unknown as { nulls: null[] }).nulls).toHaveLength(DECODE_EMPTY_ITEMS_MAX);
    for (const n of [DECODE_EMPTY_ITEMS_MAX + 1, HOSTILE_BLOCK_COUNT, 2 ** 53 - 1]) {
      const err = decodeError(odd, nulls(n));
      expect(err.kind).toBe('too_large');
      expect(err.message).toMatch(/array items that take no bytes/);
    }
    // Empty records, in blocks that add up past the cap.
    const empties = Buffer.concat([h, varint(0), varint(DECODE_EMPTY_ITEMS_MAX), varint(1), varint(0), varint(0), rest]);
    expect(odd.decode(Buffer.concat([h, varint(0), varint(DECODE_EMPTY_ITEMS_MAX), varint(0), varint(0), rest])).name).toBe('Odd');
    expect(decodeError(odd, empties).kind).toBe('too_large');
    // A map of nulls: each key takes at least its length byte, so the bytes bound it.
    const nullMap = Buffer.concat([h, varint(0), varint(0), varint(HOSTILE_BLOCK_COUNT), varint(1), Buffer.from('k'), varint(0), rest]);
    expect(decodeError(odd, nullMap).message).toMatch(/map block of 100000000 items needs at least 100000000 bytes/);
  });

  it('a union or enum index out of range, a wrong block size and trailing bytes are malformed', () => {
    const odd = oddCodec();
    const h = header(odd, 'Odd');
    const body = (color: number, list: Buffer, tail = Buffer.alloc(0)): Buffer =>
      Buffer.concat([
        h,
        varint(0),
        varint(0),
        varint(0),
        varint(color),
        Buffer.alloc(4),
        Buffer.alloc(4),
        Buffer.alloc(8),
        list,
        varint(0),
        tail,
      ]);
    expect(odd.decode(body(2, varint(0))).name).toBe('Odd');
    expect(decodeError(odd, body(3, varint(0))).message).toMatch(/enum index 3 out of range/);
    expect(decodeError(odd, body(-1, varint(0))).message).toMatch(/enum index -1 out of range/);
    expect(decodeError(odd, body(0, varint(2))).message).toMatch(/union index 2 out of range/);
    expect(decodeError(odd, body(0, varint(0), Buffer.from([0]))).message).toMatch(/1 trailing bytes/);

    // nulls as one sized block of 2 items whose size says 5 bytes: null items take none.
    const sized = Buffer.concat([h, varint(-2), varint(5), Buffer.alloc(5), varint(0)]);
    expect(decodeError(odd, sized).message).toMatch(/block size says 5 bytes, its items take 0/);
  });

  it('a recursive schema nests at most DECODE_MAX_DEPTH levels (too_large), and a short list decodes', () => {
    const odd = oddCodec();
    const h = header(odd, 'Odd');
    const list = (n: number): Buffer =>
      Buffer.concat([varint(1), ...Array.from({ length: n }, (_, i) => Buffer.concat([varint(i), varint(i === n - 1 ? 0 : 1)]))]);
    const msg = (n: number): Buffer =>
      Buffer.concat([h, varint(0), varint(0), varint(0), varint(0), Buffer.alloc(4), Buffer.alloc(4), Buffer.alloc(8), list(n), varint(0)]);
    const value = odd.decode(msg(10)).value as unknown as { list: { v: number; next: unknown } };
    expect(value.list.v).toBe(0);
    const err = decodeError(odd, msg(DECODE_MAX_DEPTH));
    expect(err.kind).toBe('too_large');
    expect(err.message).toMatch(/nested deeper than/);
  });

  it('valid messages still decode, with several blocks and negative (sized) block counts', () => {
    const odd = oddCodec();
    const h = header(odd, 'Odd');
    // nested: [[{a: null}], [{b: bytes "xy"}, {}]] written as a sized block then a plain one.
    const inner1 = Buffer.concat([varint(1), varint(1), varint(1), Buffer.from('a'), varint(0), varint(0), varint(0)]);
    const inner2 = Buffer.concat([
      varint(-2),
      varint(9),
      varint(1),
      varint(1),
      Buffer.from('b'),
      varint(1),
      varint(2),
      Buffer.from('xy'),
      varint(0),
      varint(0),
      varint(0),
    ]);
    const nested = Buffer.concat([varint(-1), varint(inner1.length), inner1, varint(1), inner2, varint(0)]);
    const m = Buffer.concat([
      h,
      varint(-2),
      varint(0),
      varint(0),
      varint(0),
      varint(0),
      varint(1),
      Buffer.alloc(4),
      Buffer.alloc(4),
      Buffer.alloc(8),
      varint(0),
      nested,
    ]);
    const v = odd.decode(m).value as unknown as { nulls: null[]; nested: Record<string, Buffer | null>[][] };
    expect(v.nulls).toEqual([null, null]);
    expect(v.nested).toEqual([[{ a: null }], [{ b: Buffer.from('xy') }, {}]]);
  });
});
