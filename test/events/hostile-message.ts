/**
 * The hostile message of issue 10, item 3: a valid single-object header and the fingerprint of
 * the current Probe schema, honest leading fields, then an array block count of 10^8 with
 * almost nothing behind it. avsc (before the bounds) allocates for the count it reads, not for
 * the bytes that remain, and the consumer dies of heap exhaustion before any dead-letter path.
 *
 * Built from the schema file (not hard-coded bytes), so it follows schema changes: the leading
 * fields get small honest values, the first string is padded to reach the wanted length.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { EventCodec, SCHEMA_DIR } from '../../src/events/codec.js';

export const HOSTILE_BLOCK_COUNT = 100_000_000;
export const HOSTILE_BYTES = 188;

/** The Avro zig-zag varint of n (exact for |n| < 2^31; enough for the counts used here). */
export function varint(n: number): Buffer {
  const out: number[] = [];
  let z = n >= 0 ? 2 * n : -2 * n - 1;
  while (z >= 0x80) {
    out.push((z % 0x80) | 0x80);
    z = Math.floor(z / 0x80);
  }
  out.push(z);
  return Buffer.from(out);
}

/** An honest, small, deterministic encoding of a value of `type` (arrays and maps empty). */
function small(type: avro.Type): Buffer {
  const t = type as avro.Type & { fields?: { type: avro.Type }[]; types?: avro.Type[]; size?: number; underlyingType?: avro.Type };
  switch (t.typeName) {
    case 'null':
      return Buffer.alloc(0);
    case 'string':
      return Buffer.concat([varint(1), Buffer.from('x')]);
    case 'float':
      return Buffer.alloc(4);
    case 'double':
      return Buffer.alloc(8);
    case 'fixed':
      return Buffer.alloc(t.size ?? 0);
    case 'record':
    case 'error':
      return Buffer.concat((t.fields ?? []).map((f) => small(f.type)));
    case 'union:unwrapped':
    case 'union:wrapped':
      return Buffer.concat([varint(0), small(t.types![0]!)]);
    default:
      if (t.underlyingType) return small(t.underlyingType);
      return varint(0); // boolean false, int/long 0, enum index 0, bytes/array/map empty
  }
}

/** A string field's encoding that takes exactly `bytes` bytes (length varint included). */
function paddedString(bytes: number): Buffer {
  for (let len = bytes - 1; len >= 0; len--) {
    const head = varint(len);
    if (head.length + len === bytes) return Buffer.concat([head, Buffer.alloc(len, 0x61)]);
  }
  throw new Error(`no string encoding takes ${bytes} bytes`);
}

export function hostileMessage(codec: EventCodec = new EventCodec(), totalBytes = HOSTILE_BYTES, count = HOSTILE_BLOCK_COUNT): Buffer {
  const probe = avro.Type.forSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, 'probe.avsc'), 'utf8'))) as avro.types.RecordType;
  const header = Buffer.concat([Buffer.from([0xc3, 0x01]), Buffer.from(codec.fingerprintOf('Probe'), 'hex')]);
  const parts: Buffer[] = [];
  let padIndex = -1;
  for (const field of probe.fields) {
    if (field.type.typeName === 'array') {
      parts.push(varint(count));
      break;
    }
    if (padIndex < 0 && field.type.typeName === 'string') padIndex = parts.length;
    parts.push(small(field.type));
  }
  // A few trailing bytes: the start of the first item, nowhere near 10^8 of them.
  parts.push(Buffer.from([0x02, 0x61]));
  const used = header.length + parts.reduce((n, p) => n + p.length, 0);
  // The padded string replaces a 2-byte 'x'.
  if (padIndex >= 0 && totalBytes > used) parts[padIndex] = paddedString(totalBytes - used + parts[padIndex]!.length);
  return Buffer.concat([header, ...parts]);
}
