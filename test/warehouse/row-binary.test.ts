import { describe, expect, it } from 'vitest';
import { TableCodec } from '../../src/warehouse/row-binary.js';

/**
 * RowBinary as the engine reads it (the adapters' round trips through chdb and clickhouse-server
 * read the rows back): the bytes of each type, a table's rows grouped by the columns they write,
 * and rows the encoder does not take handed back for JSON, so the engine judges them.
 */

const bytes = (type: string, v: unknown): number[] => {
  const codec = new TableCodec('t', [{ name: 'c', type, default_type: '' }]);
  return [...codec.encode([{ c: v }])![0]!.payload];
};

describe('RowBinary rows', () => {
  it('writes each type in its binary form', () => {
    expect(bytes('String', 'aé')).toEqual([3, 0x61, 0xc3, 0xa9]);
    expect(bytes('LowCardinality(String)', '')).toEqual([0]);
    expect(bytes('String', 'x'.repeat(200)).slice(0, 2)).toEqual([0xc8, 0x01]);
    expect(bytes('UInt8', 1)).toEqual([1]);
    expect(bytes('UInt16', 258)).toEqual([2, 1]);
    expect(bytes('UInt32', 0x01020304)).toEqual([4, 3, 2, 1]);
    expect(bytes('Int64', -2)).toEqual([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(bytes('UInt64', '18446744073709551615')).toEqual(Array(8).fill(0xff));
    expect(bytes('Nullable(UInt16)', null)).toEqual([1]);
    expect(bytes('Nullable(UInt16)', 5)).toEqual([0, 5, 0]);
    expect(bytes('Array(String)', ['a', 'b'])).toEqual([2, 1, 0x61, 1, 0x62]);
    expect(bytes('Map(String, Int64)', { a: 1 })).toEqual([1, 1, 0x61, 1, 0, 0, 0, 0, 0, 0, 0]);
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const le = (n: bigint) => [...Buffer.from(new BigInt64Array([n]).buffer)];
    expect(bytes("DateTime64(3, 'UTC')", new Date(at))).toEqual(le(BigInt(at)));
    expect(bytes("DateTime64(3, 'UTC')", '2026-01-02 03:04:05.678')).toEqual(le(BigInt(at)));
    expect(bytes("DateTime64(3, 'UTC')", '2026-01-02T03:04:05.678Z')).toEqual(le(BigInt(at)));
    expect(bytes("DateTime64(6, 'UTC')", new Date(at))).toEqual(le(BigInt(at) * 1000n));
  });

  it('copies the bytes of a repeated value and of a shared array, and encodes an array changed in between again', () => {
    const codec = new TableCodec('t', [
      { name: 'v', type: 'LowCardinality(String)', default_type: '' },
      { name: 'r', type: 'Array(String)', default_type: '' },
      { name: 't', type: "DateTime64(3, 'UTC')", default_type: '' },
    ]);
    const shared = ['a', 'bé'];
    const one = (v: string, r: string[], t: number) => [...codec.encode([{ v, r, t: new Date(t) }])![0]!.payload];
    const le = (n: number) => [...Buffer.from(new BigInt64Array([BigInt(n)]).buffer)];
    const arr = (items: string[]) => [items.length, ...items.flatMap((x) => [Buffer.byteLength(x), ...Buffer.from(x)])];
    expect(one('pass', shared, 5)).toEqual([4, ...Buffer.from('pass'), ...arr(shared), ...le(5)]);
    expect(one('pass', shared, -1)).toEqual([4, ...Buffer.from('pass'), ...arr(shared), ...le(-1)]);
    shared.push('c');
    expect(one('fail', shared, 2 ** 40 + 7)).toEqual([4, ...Buffer.from('fail'), ...arr(['a', 'bé', 'c']), ...le(2 ** 40 + 7)]);
    shared[0] = 'z';
    expect(one('fail', shared, 0)).toEqual([4, ...Buffer.from('fail'), ...arr(['z', 'bé', 'c']), ...le(0)]);
  });

  it('groups rows by the columns they write, and hands back rows it does not take', () => {
    const codec = new TableCodec('t', [
      { name: 'a', type: 'String', default_type: '' },
      { name: 'b', type: 'UInt8', default_type: 'DEFAULT' },
      { name: 'm', type: 'String', default_type: 'MATERIALIZED' },
    ]);
    const groups = codec.encode([{ a: 'x', b: 1 }, { a: 'y' }, { b: 2, a: 'z' }, { a: 'w', b: undefined }])!;
    expect(groups.map((g) => [g.columns, [...g.payload]])).toEqual([
      [
        ['a', 'b'],
        [1, 0x78, 1, 1, 0x7a, 2],
      ],
      [['a'], [1, 0x79, 1, 0x77]],
    ]);
    expect(codec.encode([{ a: 'x', typo: 1 }])).toBeNull();
    expect(codec.encode([{ a: 'x', m: 'materialized' }])).toBeNull();
    expect(codec.encode([{ a: 'x', b: 256 }])).toBeNull();
    expect(codec.encode([{ a: 1 }])).toBeNull();
    expect(
      new TableCodec('t', [{ name: 'u', type: 'UUID', default_type: '' }]).encode([{ u: '00000000-0000-0000-0000-000000000000' }]),
    ).toBeNull();
  });
});
