import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { escapeJsonText, escapeJsonTextFramed } from './json-escape.js';

/**
 * Canonical JSON (RFC 8785 style): object keys sorted by UTF-16 code units, no whitespace,
 * numbers in ECMAScript shortest form (-0 → 0), strings escaped as JSON.stringify does.
 * `undefined` members are dropped (and become null in arrays), non-finite numbers become null,
 * as JSON.stringify would. Iterative, so arbitrarily deep input cannot overflow the stack;
 * a cycle throws TypeError (JSON data has none).
 */
export function canonicalJson(value: unknown): string {
  type Frame =
    | { arr: unknown[]; i: number; obj?: undefined; keys?: undefined }
    | { obj: Record<string, unknown>; keys: string[]; i: number; arr?: undefined };
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  let pending: unknown = value;
  let has = true;

  const scalar = (v: unknown): string | null => {
    if (v === null || v === undefined) return 'null';
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'number':
        return Number.isFinite(v) ? (Object.is(v, -0) ? '0' : String(v)) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        throw new TypeError('canonicalJson: bigint is not JSON');
      case 'object':
        return null;
      default:
        return 'null';
    }
  };

  for (;;) {
    if (has) {
      has = false;
      const v = pending;
      const s = scalar(v);
      if (s !== null) out.push(s);
      else {
        const o = v as object;
        if (open.has(o)) throw new TypeError('canonicalJson: cycle');
        open.add(o);
        if (Array.isArray(o)) {
          out.push('[');
          stack.push({ arr: o, i: 0 });
        } else {
          const rec = o as Record<string, unknown>;
          const keys = Object.keys(rec)
            .filter((k) => {
              const t = typeof rec[k];
              return t !== 'undefined' && t !== 'function' && t !== 'symbol';
            })
            .sort();
          out.push('{');
          stack.push({ obj: rec, keys, i: 0 });
        }
      }
    }
    const top = stack[stack.length - 1];
    if (!top) break;
    if (top.arr) {
      if (top.i < top.arr.length) {
        if (top.i > 0) out.push(',');
        pending = top.arr[top.i++];
        has = true;
        continue;
      }
      out.push(']');
      open.delete(top.arr);
    } else {
      if (top.i < top.keys.length) {
        const k = top.keys[top.i]!;
        if (top.i > 0) out.push(',');
        top.i++;
        out.push(JSON.stringify(k), ':');
        pending = top.obj[k];
        has = true;
        continue;
      }
      out.push('}');
      open.delete(top.obj);
    }
    stack.pop();
  }
  return out.join('');
}

// One-shot hashing (Node ≥ 20.12) skips the Hash object; older Nodes take the streaming API.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

export function sha256Hex(data: string | Uint8Array): string {
  return oneShotHash ? oneShotHash('sha256', data, 'hex') : createHash('sha256').update(data).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function hashInputs(value: unknown): string {
  try {
    return 'sha256:' + sha256Hex(writeCanonical(value));
  } finally {
    releaseLarge();
  }
}

const SUFFIX = new TextEncoder().encode('"}');
const SUFFIX_NOT_UTF8 = new TextEncoder().encode('","validUtf8":false}');
/** `{"kind":<kind>,"text":"` in UTF-8, per kind (the engine has two; a few more are kept). */
const PREFIXES = new Map<string, Uint8Array>();

function kindPrefix(kind: string): Uint8Array {
  let p = PREFIXES.get(kind);
  if (p === undefined) {
    try {
      pos = 0;
      writeAscii('{"kind":');
      writeString(kind);
      writeAscii(',"text":"');
      p = out.slice(0, pos);
    } finally {
      releaseLarge();
    }
    if (PREFIXES.size < 16) PREFIXES.set(kind, p);
  }
  return p;
}

/**
 * hashInputs of a document given as text, `{ kind, text }` (with `validUtf8: false` when
 * `notUtf8`), written straight into the buffer: the keys are already in canonical order, so no
 * object walk, key sort or cycle set per judgement. A property test holds it to hashInputs.
 */
export function hashTextInputs(kind: string, text: string, notUtf8: boolean): string {
  // A long text is hashed where it was escaped, framed by the bytes around it.
  const framed = escapeJsonTextFramed(text, kindPrefix(kind), notUtf8 ? SUFFIX_NOT_UTF8 : SUFFIX);
  if (framed !== null) return 'sha256:' + sha256Hex(framed);
  try {
    pos = 0;
    writeAscii('{"kind":');
    writeString(kind);
    writeAscii(',"text":');
    writeString(text);
    writeAscii(notUtf8 ? ',"validUtf8":false}' : '}');
    return 'sha256:' + sha256Hex(out.subarray(0, pos));
  } finally {
    releaseLarge();
  }
}

/** The UTF-8 bytes of `canonicalJson(value)`, written directly (a copy the caller owns). */
export function canonicalJsonBytes(value: unknown): Uint8Array {
  try {
    return writeCanonical(value).slice();
  } finally {
    releaseLarge();
  }
}

// ---- canonical JSON straight to UTF-8 bytes ----
// Hashing is on every verdict's path (the inputs hash of a card is the hash of its whole text), and
// building the canonical string first costs a JSON.stringify of every text plus a UTF-8 encoding
// of the result. The writer below emits the same bytes (a property test holds it to
// canonicalJson) into one reused buffer: the engine is synchronous, so a buffer is never shared
// by two calls at once, and every call starts it afresh.

const encoder = new TextEncoder();
const KEPT_BYTES = 1 << 15;
let out = new Uint8Array(KEPT_BYTES);
let pos = 0;
let scratch = new Uint8Array(KEPT_BYTES);

/** A buffer grown for one huge input is not kept for the next. */
function releaseLarge(): void {
  if (out.length > 64 * KEPT_BYTES) out = new Uint8Array(KEPT_BYTES);
  if (scratch.length > 64 * KEPT_BYTES) scratch = new Uint8Array(KEPT_BYTES);
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];
/** Per byte: 0 copy as is; 1 `\u00XX`; else the letter after the backslash (as JSON.stringify writes it). */
const ESCAPE = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) ESCAPE[b] = 1;
ESCAPE[0x08] = 98; // \b
ESCAPE[0x09] = 116; // \t
ESCAPE[0x0a] = 110; // \n
ESCAPE[0x0c] = 102; // \f
ESCAPE[0x0d] = 114; // \r
ESCAPE[0x22] = 0x22; // \"
ESCAPE[0x5c] = 0x5c; // \\

function reserve(n: number): void {
  if (pos + n <= out.length) return;
  let size = out.length * 2;
  while (size < pos + n) size *= 2;
  const next = new Uint8Array(size);
  next.set(out.subarray(0, pos));
  out = next;
}

/** ASCII text that needs no escaping (punctuation, numbers, literals). */
function writeAscii(s: string): void {
  reserve(s.length);
  for (let i = 0; i < s.length; i++) out[pos++] = s.charCodeAt(i);
}

/** A string as JSON.stringify writes it, in UTF-8. */
function writeString(s: string): void {
  const n = s.length;
  // Long texts (a whole document's) are escaped 16 bytes a step (json-escape.ts); the rest here.
  const escaped = escapeJsonText(s);
  if (escaped !== null) {
    reserve(escaped.length + 2);
    out[pos++] = 0x22;
    out.set(escaped, pos);
    pos += escaped.length;
    out[pos++] = 0x22;
    return;
  }
  if (scratch.length < n * 3) scratch = new Uint8Array(n * 3);
  const { written } = encoder.encodeInto(s, scratch);
  // Non-ASCII text may hold a lone surrogate, which JSON.stringify escapes and UTF-8 cannot carry.
  if (written !== n && !(s as string & { isWellFormed(): boolean }).isWellFormed()) {
    const j = JSON.stringify(s);
    if (scratch.length < j.length) scratch = new Uint8Array(j.length);
    const w = encoder.encodeInto(j, scratch).written;
    reserve(w);
    out.set(scratch.subarray(0, w), pos);
    pos += w;
    return;
  }
  reserve(written * 6 + 2);
  const src = scratch;
  const dst = out;
  let o = pos;
  dst[o++] = 0x22;
  for (let i = 0; i < written; i++) {
    const b = src[i]!;
    const e = ESCAPE[b]!;
    if (e === 0) {
      dst[o++] = b;
      continue;
    }
    dst[o++] = 0x5c;
    if (e !== 1) dst[o++] = e;
    else {
      dst[o++] = 117; // u
      dst[o++] = 48;
      dst[o++] = 48;
      dst[o++] = HEX[b >> 4]!;
      dst[o++] = HEX[b & 15]!;
    }
  }
  dst[o++] = 0x22;
  pos = o;
}

/** True when v was written as a scalar (the same cases, in the same order, as canonicalJson). */
function writeScalar(v: unknown): boolean {
  if (v === null || v === undefined) {
    writeAscii('null');
    return true;
  }
  switch (typeof v) {
    case 'string':
      writeString(v);
      return true;
    case 'number':
      writeAscii(Number.isFinite(v) ? (Object.is(v, -0) ? '0' : String(v)) : 'null');
      return true;
    case 'boolean':
      writeAscii(v ? 'true' : 'false');
      return true;
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not JSON');
    case 'object':
      return false;
    default:
      writeAscii('null');
      return true;
  }
}

/** Writes canonicalJson(value) as UTF-8 into the shared buffer; the view is valid until the next call. */
function writeCanonical(value: unknown): Uint8Array {
  type Frame =
    | { arr: unknown[]; i: number; obj?: undefined; keys?: undefined }
    | { obj: Record<string, unknown>; keys: string[]; i: number; arr?: undefined };
  pos = 0;
  const stack: Frame[] = [];
  const open = new Set<object>();
  let pending: unknown = value;
  let has = true;

  for (;;) {
    if (has) {
      has = false;
      const v = pending;
      if (!writeScalar(v)) {
        const o = v as object;
        if (open.has(o)) throw new TypeError('canonicalJson: cycle');
        open.add(o);
        if (Array.isArray(o)) {
          writeAscii('[');
          stack.push({ arr: o, i: 0 });
        } else {
          const rec = o as Record<string, unknown>;
          const keys: string[] = [];
          for (const k of Object.keys(rec)) {
            const t = typeof rec[k];
            if (t !== 'undefined' && t !== 'function' && t !== 'symbol') keys.push(k);
          }
          keys.sort();
          writeAscii('{');
          stack.push({ obj: rec, keys, i: 0 });
        }
      }
    }
    const top = stack[stack.length - 1];
    if (!top) break;
    if (top.arr) {
      if (top.i < top.arr.length) {
        if (top.i > 0) writeAscii(',');
        pending = top.arr[top.i++];
        has = true;
        continue;
      }
      writeAscii(']');
      open.delete(top.arr);
    } else {
      if (top.i < top.keys.length) {
        const k = top.keys[top.i]!;
        if (top.i > 0) writeAscii(',');
        top.i++;
        writeString(k);
        writeAscii(':');
        pending = top.obj[k];
        has = true;
        continue;
      }
      writeAscii('}');
      open.delete(top.obj);
    }
    stack.pop();
  }
  return out.subarray(0, pos);
}
