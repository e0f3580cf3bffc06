import { WarehouseError } from './errors.js';

/**
 * Rows in the engine's RowBinary format, the insert payload of both adapters: each row's values
 * one after the other in the table's column order, each in its type's binary form (little-endian
 * integers, a string as its byte length in LEB128 then its UTF-8 bytes, an array as its length
 * then its items, a nullable value behind a 0 / 1 byte, a DateTime64 as an Int64 count of its
 * units). Nothing is escaped and the engine parses nothing as text. The encoders are built from
 * the column types the engine describes (`DESCRIBE TABLE`), once per table.
 */

/** Appends bytes to a buffer that grows as needed. */
class Writer {
  buf: Buffer;
  pos = 0;
  constructor(size = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }
  string(s: string): void {
    // Most strings are short: at most 127 bytes (3 per UTF-16 unit) take a one-byte length, so
    // the text is written once, behind a byte filled in after, without measuring it first.
    if (s.length <= 42) {
      this.ensure(1 + 3 * s.length);
      const len = this.buf.write(s, this.pos + 1);
      this.buf[this.pos] = len;
      this.pos += 1 + len;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  done(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

type Encode = (w: Writer, v: unknown, column: string) => void;

function bad(column: string, v: unknown, what: string): WarehouseError {
  return new WarehouseError('bad_data', `column ${column}: ${JSON.stringify(v) ?? String(v)} is not ${what}`);
}

function integer(v: unknown, column: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  throw bad(column, v, 'an integer');
}

function small(bytes: 1 | 2 | 4, signed: boolean): Encode {
  const min = signed ? -(2 ** (8 * bytes - 1)) : 0;
  const max = signed ? 2 ** (8 * bytes - 1) - 1 : 2 ** (8 * bytes) - 1;
  return (w, v, column) => {
    const n = typeof v === 'number' && Number.isInteger(v) ? v : Number(integer(v, column));
    if (n < min || n > max) throw bad(column, v, `in range for its ${bytes * 8}-bit column`);
    w.ensure(bytes);
    if (bytes === 1) w.buf[w.pos] = n & 0xff;
    else if (signed) w.buf.writeIntLE(n, w.pos, bytes);
    else if (bytes === 4) w.buf.writeUInt32LE(n, w.pos);
    else w.buf.writeUInt16LE(n, w.pos);
    w.pos += bytes;
  };
}

const int64 =
  (signed: boolean): Encode =>
  (w, v, column) => {
    const n = integer(v, column);
    w.ensure(8);
    if (signed) w.buf.writeBigInt64LE(BigInt.asIntN(64, n), w.pos);
    else w.buf.writeBigUInt64LE(BigInt.asUintN(64, n), w.pos);
    w.pos += 8;
  };

const float =
  (bytes: 4 | 8): Encode =>
  (w, v, column) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (typeof v !== 'number' && Number.isNaN(n)) throw bad(column, v, 'a number');
    w.ensure(bytes);
    if (bytes === 4) w.buf.writeFloatLE(n, w.pos);
    else w.buf.writeDoubleLE(n, w.pos);
    w.pos += bytes;
  };

/** Epoch milliseconds of a Date, epoch number, ISO text or 'YYYY-MM-DD HH:MM:SS[.fff]' (read as UTC). */
function epochMs(v: unknown, column: string): number {
  let ms = NaN;
  if (v instanceof Date) ms = v.getTime();
  else if (typeof v === 'number') ms = v;
  else if (typeof v === 'string') {
    const t = v.trim();
    ms = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d+)?)?$/.test(t)
      ? Date.parse(`${t.replace(' ', 'T')}${t.length > 10 ? 'Z' : 'T00:00:00Z'}`)
      : Date.parse(t);
  }
  if (!Number.isFinite(ms)) throw bad(column, v, 'a date-time');
  return ms;
}

const string: Encode = (w, v, column) => {
  if (typeof v === 'string') w.string(v);
  else if (v instanceof Uint8Array) w.bytes(v);
  else throw bad(column, v, 'a string');
};

/** Distinct values a LowCardinality string column's encoder keeps encoded (past this it starts over). */
const LOW_CARDINALITY_KEPT = 1024;

/**
 * A LowCardinality(String) column's encoder: its few values are encoded once each and copied after,
 * since a batch writes the same handful (a version, a protocol, a result) on every row.
 */
function lowCardinalityString(): Encode {
  const kept = new Map<string, Buffer>();
  const scratch = new Writer(256);
  return (w, v, column) => {
    if (typeof v !== 'string') return string(w, v, column);
    let b = kept.get(v);
    if (b === undefined) {
      scratch.pos = 0;
      scratch.string(v);
      b = Buffer.from(scratch.done());
      if (kept.size >= LOW_CARDINALITY_KEPT) kept.clear();
      kept.set(v, b);
    }
    w.ensure(b.length);
    w.buf.set(b, w.pos);
    w.pos += b.length;
  };
}

/**
 * An Array(String) column's encoder that remembers the bytes of an array object it meets again:
 * rows built from one judgement share one array of reasons, so a batch encodes it once and copies
 * it after. An array met once (a verdict's own proof) is written directly, with nothing kept but a
 * mark. The items are compared on each use, so an array changed in between is encoded again.
 */
function stringArray(item: Encode): Encode {
  const encoded = new WeakMap<readonly unknown[], { items: unknown[]; bytes: Buffer } | typeof SEEN_ONCE>();
  const scratch = new Writer(1024);
  return (w, v, column) => {
    if (!Array.isArray(v)) throw bad(column, v, 'an array');
    let e = encoded.get(v);
    if (e === undefined) {
      encoded.set(v, SEEN_ONCE);
      w.varint(v.length);
      for (const x of v) item(w, x, column);
      return;
    }
    if (e === SEEN_ONCE || !sameItems(v, e.items)) {
      scratch.pos = 0;
      scratch.varint(v.length);
      for (const x of v) item(scratch, x, column);
      e = { items: [...v], bytes: Buffer.from(scratch.done()) };
      encoded.set(v, e);
    }
    w.ensure(e.bytes.length);
    w.buf.set(e.bytes, w.pos);
    w.pos += e.bytes.length;
  };
}

/** The mark of an array written once (stringArray). */
const SEEN_ONCE = 0;

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The encoder of one column type, as the engine names it. */
export function encoderFor(type: string): Encode {
  const t = type.trim();
  const inner = (name: string) => (t.startsWith(`${name}(`) && t.endsWith(')') ? t.slice(name.length + 1, -1) : null);
  let arg: string | null;
  if (t === 'LowCardinality(String)') return lowCardinalityString();
  if (t === 'Array(String)' || t === 'Array(LowCardinality(String))') return stringArray(encoderFor(t.slice(6, -1)));
  if ((arg = inner('LowCardinality')) !== null) return encoderFor(arg);
  if ((arg = inner('Nullable')) !== null) {
    const item = encoderFor(arg);
    return (w, v, column) => {
      w.ensure(1);
      if (v === null || v === undefined) {
        w.buf[w.pos++] = 1;
        return;
      }
      w.buf[w.pos++] = 0;
      item(w, v, column);
    };
  }
  if ((arg = inner('Array')) !== null) {
    const item = encoderFor(arg);
    return (w, v, column) => {
      if (!Array.isArray(v)) throw bad(column, v, 'an array');
      w.varint(v.length);
      for (const x of v) item(w, x, column);
    };
  }
  if ((arg = inner('Map')) !== null) {
    const [k, val] = splitTypes(arg);
    if (k === undefined || val === undefined) throw new WarehouseError('bad_data', `unsupported column type ${type}`);
    const key = encoderFor(k);
    const value = encoderFor(val);
    return (w, v, column) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(column, v, 'a map');
      const entries = Object.entries(v as Record<string, unknown>);
      w.varint(entries.length);
      for (const [a, b] of entries) {
        key(w, a, column);
        value(w, b, column);
      }
    };
  }
  if ((arg = inner('DateTime64')) !== null) {
    const precision = Number(splitTypes(arg)[0]);
    return (w, v, column) => {
      const ms = epochMs(v, column);
      if (precision === 3 && Number.isSafeInteger(ms)) {
        // The index's precision: the Int64 written as two 32-bit halves, with no BigInt made per value.
        w.ensure(8);
        w.buf.writeUInt32LE(ms >>> 0, w.pos);
        w.buf.writeInt32LE(Math.floor(ms / 4294967296), w.pos + 4);
        w.pos += 8;
        return;
      }
      // Milliseconds to the column's unit (a precision of 3 is the index's).
      const units =
        precision === 3
          ? BigInt(Math.round(ms))
          : precision > 3
            ? BigInt(Math.round(ms)) * 10n ** BigInt(precision - 3)
            : BigInt(Math.floor(ms / 10 ** (3 - precision)));
      w.ensure(8);
      w.buf.writeBigInt64LE(units, w.pos);
      w.pos += 8;
    };
  }
  if (t === 'DateTime' || t.startsWith('DateTime('))
    return (w, v, column) => small(4, false)(w, Math.floor(epochMs(v, column) / 1000), column);
  if (t === 'Date') return (w, v, column) => small(2, false)(w, Math.floor(epochMs(v, column) / 86_400_000), column);
  if ((arg = inner('FixedString')) !== null) {
    const n = Number(arg);
    return (w, v, column) => {
      const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v instanceof Uint8Array ? v : null;
      if (b === null || b.length > n) throw bad(column, v, `at most ${n} bytes`);
      w.ensure(n);
      w.buf.fill(0, w.pos, w.pos + n);
      w.buf.set(b, w.pos);
      w.pos += n;
    };
  }
  switch (t) {
    case 'String':
      return string;
    case 'UInt8':
    case 'Bool':
      return small(1, false);
    case 'UInt16':
      return small(2, false);
    case 'UInt32':
      return small(4, false);
    case 'UInt64':
      return int64(false);
    case 'Int8':
      return small(1, true);
    case 'Int16':
      return small(2, true);
    case 'Int32':
      return small(4, true);
    case 'Int64':
      return int64(true);
    case 'Float32':
      return float(4);
    case 'Float64':
      return float(8);
    default:
      throw new WarehouseError('bad_data', `unsupported column type ${type} for RowBinary`);
  }
}

/** Splits "A, B(C, D), E" at its top-level commas. */
function splitTypes(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'" && s[i - 1] !== '\\') quoted = !quoted;
    if (quoted) continue;
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** A column as `DESCRIBE TABLE` gives it. */
export interface ColumnInfo {
  name: string;
  type: string;
  /** '' , DEFAULT, MATERIALIZED, ALIAS or EPHEMERAL. */
  default_type: string;
}

/** The columns an insert may write, with their encoders and whether each may be left out. */
export class TableCodec {
  private readonly columns: Array<{ name: string; encode: Encode | null; type: string }>;
  private readonly byName: Map<string, number>;
  private sizeHint = 64 * 1024;
  constructor(
    readonly table: string,
    described: readonly ColumnInfo[],
  ) {
    this.columns = described
      .filter((c) => c.default_type !== 'MATERIALIZED' && c.default_type !== 'ALIAS')
      .map((c) => {
        let encode: Encode | null;
        try {
          encode = encoderFor(c.type);
        } catch {
          encode = null; // a type this encoder does not know: a row that writes it goes as JSON
        }
        return { name: c.name, encode, type: c.type };
      });
    this.byName = new Map(this.columns.map((c, i) => [c.name, i]));
  }

  /**
   * The rows as groups of one column list each (rows that leave out the same columns go together;
   * the engine fills a left-out column with its DEFAULT, or its type's zero, as it does for JSON),
   * or null when a row is not for this encoder: a field that is no column, a value its column
   * cannot take, a column type it does not know. The caller then writes the rows as JSON, so the
   * engine itself says what is wrong, as it always has.
   */
  encode(rows: readonly object[]): Array<{ columns: string[]; payload: Buffer }> | null {
    try {
      return this.encodeOrThrow(rows);
    } catch (err) {
      if (err instanceof WarehouseError && err.kind === 'bad_data') return null;
      throw err;
    }
  }

  private encodeOrThrow(rows: readonly object[]): Array<{ columns: string[]; payload: Buffer }> | null {
    type Group = { columns: number[]; rows: Array<Record<string, unknown>> };
    const groups = new Map<string, Group>();
    // Rows of one batch are mostly built alike: a row with the previous row's fields, in the same
    // order, joins its group without its fields being looked up and sorted again.
    let lastKeys: string[] = [];
    let last: Group | null = null;
    for (const row of rows as ReadonlyArray<Record<string, unknown>>) {
      if (last !== null && sameFields(row, lastKeys)) {
        last.rows.push(row);
        continue;
      }
      const keys: string[] = [];
      const present: number[] = [];
      for (const key of Object.keys(row)) {
        if (row[key] === undefined) continue;
        const i = this.byName.get(key);
        if (i === undefined) throw new WarehouseError('bad_data', `${this.table} has no column ${JSON.stringify(key)}`);
        keys.push(key);
        present.push(i);
      }
      present.sort((a, b) => a - b);
      const id = present.join(',');
      let g = groups.get(id);
      if (g === undefined) groups.set(id, (g = { columns: present, rows: [] }));
      g.rows.push(row);
      lastKeys = keys;
      last = g;
    }
    const out: Array<{ columns: string[]; payload: Buffer }> = [];
    for (const g of groups.values()) {
      const cols = g.columns.map((i) => this.columns[i]!);
      if (cols.some((c) => c.encode === null)) return null;
      // Sized as the largest payload so far (a table's batches are alike), so it seldom grows by copying.
      const w = new Writer(this.sizeHint);
      for (const row of g.rows) for (const c of cols) c.encode!(w, row[c.name], c.name);
      this.sizeHint = Math.min(MAX_SIZE_HINT, Math.max(this.sizeHint, w.pos));
      out.push({ columns: cols.map((c) => c.name), payload: w.done() });
    }
    return out;
  }
}

/** The largest first buffer of a payload (bigger ones grow as needed). */
const MAX_SIZE_HINT = 64 * 1024 * 1024;

/** Whether `row`'s defined fields are `keys`, in that order. */
function sameFields(row: Record<string, unknown>, keys: readonly string[]): boolean {
  let k = 0;
  for (const key in row) {
    if (row[key] === undefined) continue;
    if (keys[k++] !== key) return false;
  }
  return k === keys.length;
}

/** Column lists as SQL (names quoted with backquotes). */
export function columnList(columns: readonly string[]): string {
  return columns.map((c) => `\`${c.replace(/`/g, '``')}\``).join(', ');
}
