import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { fingerprintBytes } from './fingerprint.js';
import { DECODE_EMPTY_ITEMS_MAX, DECODE_MAX_DEPTH, EVENT_MAX_BYTES } from './limits.js';
import type { AnyEvent, EventMap, EventName } from './types.js';

/** Single-object encoding marker (Avro spec): 0xC3 0x01, then 8 fingerprint bytes. */
const MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_BYTES = 10;

export const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schemas', 'avro');

/**
 * not_single_object: no C3 01 marker; unknown_fingerprint: no registered writer schema;
 * too_large: over an event-size limit (src/events/limits.ts); malformed: the bytes do not
 * encode a value of the writer schema (a length or block count the remaining bytes cannot hold,
 * a union or enum index out of range, trailing bytes, …).
 */
export type DecodeErrorKind = 'not_single_object' | 'unknown_fingerprint' | 'too_large' | 'malformed';

/** A message that cannot be decoded. Consumers route it to the dead-letter topic with this reason. */
export class DecodeError extends Error {
  override name = 'DecodeError';
  constructor(
    readonly kind: DecodeErrorKind,
    message: string,
  ) {
    super(message);
  }
}

interface Writer {
  readonly eventName: EventName;
  readonly type: avro.Type;
  /** The writer schema's layout for the bounds check that runs before avsc. */
  readonly shape: Shape;
  /** Resolver from this writer schema to the current reader; absent when they are the same schema. */
  readonly resolver: avro.Resolver | null;
}

/**
 * Encodes events with the current schema of schemas/avro and decodes messages
 * written with the current or any registered older schema (schemas/avro/history),
 * resolving them to the current reader schema (Avro schema resolution).
 */
export class EventCodec {
  private readonly current = new Map<EventName, { type: avro.Type; fingerprint: Buffer }>();
  private readonly writers = new Map<string, Writer>();

  constructor(schemaDir: string = SCHEMA_DIR) {
    for (const file of readdirSync(schemaDir)
      .filter((f) => f.endsWith('.avsc'))
      .sort()) {
      const type = avro.Type.forSchema(JSON.parse(readFileSync(join(schemaDir, file), 'utf8')));
      const eventName = shortName(type);
      const fp = fingerprintBytes(JSON.stringify(type.schema()));
      this.current.set(eventName, { type, fingerprint: fp });
      this.writers.set(fp.toString('hex'), { eventName, type, shape: shapeOf(type), resolver: null });
    }
    const history = join(schemaDir, 'history');
    if (existsSync(history)) {
      for (const file of readdirSync(history)
        .filter((f) => f.endsWith('.avsc'))
        .sort()) {
        this.registerWriterSchema(JSON.parse(readFileSync(join(history, file), 'utf8')));
      }
    }
  }

  /** Makes an older (or other) writer schema decodable. It must resolve to the current reader schema. */
  registerWriterSchema(schema: object): string {
    const type = avro.Type.forSchema(schema as avro.Schema);
    const eventName = shortName(type);
    const reader = this.current.get(eventName);
    if (!reader) throw new Error(`writer schema ${type.name ?? '?'} has no current schema in schemas/avro`);
    const fp = fingerprintBytes(JSON.stringify(type.schema())).toString('hex');
    if (!this.writers.has(fp)) {
      // createResolver throws when the change is not backward compatible: refuse at load, not at read.
      this.writers.set(fp, { eventName, type, shape: shapeOf(type), resolver: reader.type.createResolver(type) });
    }
    return fp;
  }

  encode<K extends EventName>(name: K, value: EventMap[K]): Buffer {
    const entry = this.current.get(name);
    if (!entry) throw new Error(`no schema for event ${name}`);
    return Buffer.concat([MAGIC, entry.fingerprint, entry.type.toBuffer(value)]);
  }

  decode(message: Buffer | Uint8Array | null | undefined): AnyEvent {
    if (!message || message.length < HEADER_BYTES || message[0] !== MAGIC[0] || message[1] !== MAGIC[1]) {
      throw new DecodeError('not_single_object', 'message is not Avro single-object encoded (missing C3 01 marker)');
    }
    if (message.length > EVENT_MAX_BYTES) {
      throw new DecodeError('too_large', `message of ${message.length} bytes is over the event size limit (${EVENT_MAX_BYTES} bytes)`);
    }
    const buf = Buffer.isBuffer(message) ? message : Buffer.from(message);
    const fp = buf.subarray(2, HEADER_BYTES).toString('hex');
    const writer = this.writers.get(fp);
    if (!writer) {
      throw new DecodeError('unknown_fingerprint', `unknown schema fingerprint ${fp}: no registered writer schema`);
    }
    const reader = this.current.get(writer.eventName)!;
    const body = buf.subarray(HEADER_BYTES);
    // avsc allocates for the lengths and block counts it reads, whatever bytes remain (a count
    // of 10^8 in a 188-byte message exhausts the heap). Check them all against the bytes first.
    new BoundsCheck(body, writer.eventName).value(writer.shape);
    try {
      const value = writer.resolver ? reader.type.fromBuffer(body, writer.resolver) : reader.type.fromBuffer(body);
      return { name: writer.eventName, value } as AnyEvent;
    } catch (err) {
      throw new DecodeError('malformed', `cannot decode ${writer.eventName}: ${(err as Error).message}`);
    }
  }

  /** Decodes and checks the event type, for consumers of single-type topics. */
  decodeAs<K extends EventName>(name: K, message: Buffer | null | undefined): EventMap[K] {
    const ev = this.decode(message);
    if (ev.name !== name) throw new DecodeError('malformed', `expected ${name} event, got ${ev.name}`);
    return ev.value as EventMap[K];
  }

  fingerprintOf(name: EventName): string {
    return this.current.get(name)!.fingerprint.toString('hex');
  }

  /** Every writer schema this codec decodes (current and registered older ones), by fingerprint. */
  writerSchemas(): { eventName: EventName; fingerprint: string; type: avro.Type }[] {
    return [...this.writers].map(([fingerprint, w]) => ({ eventName: w.eventName, fingerprint, type: w.type }));
  }
}

function shortName(type: avro.Type): EventName {
  const full = type.name ?? '';
  return full.slice(full.lastIndexOf('.') + 1) as EventName;
}

/**
 * A writer schema's binary layout, as much as the bounds check needs. `min` is the fewest
 * bytes a value can take (a lower bound); `empty` says a value always takes none (null,
 * fixed(0), records of those), so an array of them is bounded by DECODE_EMPTY_ITEMS_MAX alone.
 */
type Shape = { min: number; empty: boolean } & (
  | { kind: 'fixed'; bytes: number } // null, boolean, float, double, fixed
  | { kind: 'varint' } // int, long
  | { kind: 'enum'; symbols: number }
  | { kind: 'blob' } // string, bytes: a length, then that many bytes
  | { kind: 'record'; fields: Shape[] }
  | { kind: 'union'; branches: Shape[] }
  | { kind: 'array'; items: Shape }
  | { kind: 'map'; values: Shape }
);

type AvscNode = avro.Type & {
  fields?: { type: avro.Type }[];
  itemsType?: avro.Type;
  valuesType?: avro.Type;
  types?: avro.Type[];
  symbols?: string[];
  size?: number;
  underlyingType?: avro.Type;
};

const FIXED_BYTES: Record<string, number> = { null: 0, boolean: 1, float: 4, double: 8 };

/** The layout of an avsc type (any schema: named types may recur, so records are memoised first). */
function shapeOf(type: avro.Type): Shape {
  const memo = new Map<avro.Type, Shape>();
  const build = (t: AvscNode): Shape => {
    const seen = memo.get(t);
    if (seen) return seen;
    const name = t.typeName;
    let s: Shape;
    if (name in FIXED_BYTES) s = { kind: 'fixed', bytes: FIXED_BYTES[name]!, min: 0, empty: false };
    else if (name === 'fixed') s = { kind: 'fixed', bytes: t.size!, min: 0, empty: false };
    else if (name === 'int' || name === 'long' || name === 'abstract:long') s = { kind: 'varint', min: 1, empty: false };
    else if (name === 'enum') s = { kind: 'enum', symbols: t.symbols!.length, min: 1, empty: false };
    else if (name === 'string' || name === 'bytes') s = { kind: 'blob', min: 1, empty: false };
    else if (name === 'record' || name === 'error') {
      const r: Shape = { kind: 'record', fields: [], min: 0, empty: false };
      memo.set(t, r);
      r.fields.push(...t.fields!.map((f) => build(f.type as AvscNode)));
      return r;
    } else if (name.startsWith('union:')) s = { kind: 'union', branches: t.types!.map((b) => build(b as AvscNode)), min: 1, empty: false };
    else if (name === 'array') s = { kind: 'array', items: build(t.itemsType as AvscNode), min: 1, empty: false };
    else if (name === 'map') s = { kind: 'map', values: build(t.valuesType as AvscNode), min: 1, empty: false };
    else if (t.underlyingType)
      return build(t.underlyingType as AvscNode); // a logical type: its bytes are the underlying type's
    else throw new Error(`event codec: no byte layout for avsc type ${name}`);
    memo.set(t, s);
    return s;
  };
  const root = build(type as AvscNode);
  settle([...new Set(memo.values())]);
  return root;
}

/**
 * Fills `min` and `empty` by iterating from below (min 0, not empty) until nothing changes, so
 * recursive schemas settle too. Every iterate is a lower bound of the true minimum, so a schema
 * that never settles (a record that contains itself with no union, array or map between, which
 * has no finite value) just keeps a smaller, still safe, bound.
 */
function settle(shapes: Shape[]): void {
  for (let round = 0; round <= shapes.length + 1; round++) {
    let changed = false;
    for (const s of shapes) {
      let min: number;
      let empty = false;
      if (s.kind === 'fixed') [min, empty] = [s.bytes, s.bytes === 0];
      else if (s.kind === 'record') [min, empty] = [s.fields.reduce((n, f) => n + f.min, 0), s.fields.every((f) => f.empty)];
      else if (s.kind === 'union') min = 1 + Math.min(...s.branches.map((b) => b.min));
      else min = 1; // a varint, a length, an index or a block count
      if (min !== s.min || empty !== s.empty) [s.min, s.empty, changed] = [min, empty, true];
    }
    if (!changed) return;
  }
}

/** A map key: a string. */
const KEY: Shape = { kind: 'blob', min: 1, empty: false };

/**
 * Walks a message body along its writer schema without building anything and refuses, before
 * avsc sees them, every length and block count the remaining bytes cannot hold (each item takes
 * at least its type's `min` bytes), items that take no bytes beyond DECODE_EMPTY_ITEMS_MAX,
 * nesting beyond DECODE_MAX_DEPTH, out-of-range indexes and trailing bytes. Once it passes, avsc
 * reads the same bytes the same way, so what it allocates is bounded by the message length.
 * Linear in the body length (plus the empty items, which are counted, not walked).
 */
class BoundsCheck {
  private pos = 0;
  private emptyItems = 0;

  constructor(
    private readonly buf: Buffer,
    private readonly eventName: string,
  ) {}

  value(root: Shape): void {
    this.walk(root, 0, this.buf.length);
    if (this.pos !== this.buf.length) this.fail('malformed', `${this.buf.length - this.pos} trailing bytes after the value`);
  }

  private fail(kind: DecodeErrorKind, why: string): never {
    throw new DecodeError(kind, `cannot decode ${this.eventName}: ${why} (at body byte ${this.pos})`);
  }

  /** A zig-zag varint (Avro int or long), at most 10 bytes; exact below 2^53, which is all a bound needs. */
  private long(what: string, end: number): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) this.fail('malformed', `${what} runs past the end`);
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value % 2 === 1 ? -(value + 1) / 2 : value / 2;
      scale *= 128;
    }
    return this.fail('malformed', `${what} is a varint longer than 10 bytes`);
  }

  private walk(s: Shape, depth: number, end: number): void {
    switch (s.kind) {
      case 'fixed':
        if (s.bytes > end - this.pos) this.fail('malformed', `a ${s.bytes}-byte value, ${end - this.pos} bytes remain`);
        this.pos += s.bytes;
        return;
      case 'varint':
        this.long('a number', end);
        return;
      case 'enum': {
        const i = this.long('an enum index', end);
        if (i < 0 || i >= s.symbols) this.fail('malformed', `enum index ${i} out of range (${s.symbols} symbols)`);
        return;
      }
      case 'blob': {
        const len = this.long('a length', end);
        if (len < 0 || len > end - this.pos) this.fail('malformed', `a length of ${len} bytes, ${end - this.pos} bytes remain`);
        this.pos += len;
        return;
      }
    }
    if (depth >= DECODE_MAX_DEPTH) this.fail('too_large', `nested deeper than ${DECODE_MAX_DEPTH} levels`);
    switch (s.kind) {
      case 'record':
        for (const f of s.fields) this.walk(f, depth + 1, end);
        return;
      case 'union': {
        const i = this.long('a union index', end);
        if (i < 0 || i >= s.branches.length) this.fail('malformed', `union index ${i} out of range (${s.branches.length} branches)`);
        this.walk(s.branches[i]!, depth + 1, end);
        return;
      }
      case 'array':
      case 'map':
        this.blocks(s, depth, end);
    }
  }

  /** Array and map blocks: a count (negative: then a byte size), that many items, until a count of 0. */
  private blocks(s: Shape & { kind: 'array' | 'map' }, depth: number, end: number): void {
    const item = s.kind === 'array' ? s.items : s.values;
    // A map item is a key (a string: at least its length byte) and a value.
    const itemMin = s.kind === 'array' ? item.min : 1 + item.min;
    const itemEmpty = s.kind === 'array' && item.empty;
    for (;;) {
      let count = this.long('a block count', end);
      if (count === 0) return;
      // A negative count comes with the block's byte size; avsc skips a block by it, so the
      // items must take exactly that many bytes.
      let blockEnd = end;
      const sized = count < 0;
      if (sized) {
        count = -count;
        const size = this.long('a block size', end);
        if (size < 0 || size > end - this.pos) this.fail('malformed', `a block size of ${size} bytes, ${end - this.pos} bytes remain`);
        blockEnd = this.pos + size;
      }
      const room = blockEnd - this.pos;
      if (count * itemMin > room) {
        this.fail('malformed', `${s.kind} block of ${count} items needs at least ${count * itemMin} bytes, ${room} remain`);
      }
      if (itemEmpty) {
        this.countEmpty(count);
      } else {
        for (let i = 0; i < count; i++) {
          const before = this.pos;
          if (s.kind === 'map') this.walk(KEY, depth + 1, blockEnd);
          this.walk(item, depth + 1, blockEnd);
          if (this.pos === before) this.countEmpty(1);
        }
      }
      if (sized && this.pos !== blockEnd) {
        this.fail('malformed', `block size says ${room} bytes, its items take ${this.pos - (blockEnd - room)}`);
      }
    }
  }

  private countEmpty(n: number): void {
    this.emptyItems += n;
    if (this.emptyItems > DECODE_EMPTY_ITEMS_MAX) {
      this.fail('too_large', `more than ${DECODE_EMPTY_ITEMS_MAX} array items that take no bytes`);
    }
  }
}

let shared: EventCodec | undefined;
/** The process-wide codec over the project's schemas. */
export function eventCodec(): EventCodec {
  return (shared ??= new EventCodec());
}
