/**
 * Defensive readers for untrusted JSON. Only own properties are read (never the prototype
 * chain, so keys like `__proto__` and `constructor` are data), nothing is written, and
 * every text taken from a document is made printable and bounded before it reaches a message.
 */

export type JsonObject = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The own property `key` of `obj`, or undefined. */
export function own(obj: JsonObject, key: string): unknown {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

export function hasKey(obj: JsonObject, key: string): boolean {
  return hasOwn.call(obj, key);
}

/** JSON type name as a reader of the document would say it. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    default:
      return typeof v;
  }
}

/** RFC 6901 reference token. */
export function escapePointer(token: string | number): string {
  if (typeof token === 'number') return String(token);
  // Most keys hold neither character: no regex pass over them.
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token;
}

export function ptr(...tokens: Array<string | number>): string {
  let out = '';
  for (const t of tokens) out += '/' + escapePointer(t);
  return out;
}

// C0/C1 controls, DEL, bidi overrides and zero-width marks: nothing that can move a terminal cursor
// or reorder the text a reader sees.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Printable, bounded rendering of untrusted text (no quotes added). */
export function sanitize(text: string, max = 60): string {
  let t = text.length > max * 4 ? text.slice(0, max * 4) : text;
  t = t.replace(UNPRINTABLE, '\uFFFD');
  // No more code units than `max`: no more code points either, so nothing to cut.
  if (t.length <= max) return t;
  const chars = Array.from(t);
  return chars.length > max ? chars.slice(0, max).join('') + '…' : chars.join('');
}

/** A quoted, printable, bounded rendering of untrusted text for messages. */
export function quote(text: string, max = 60): string {
  return JSON.stringify(sanitize(text, max));
}

/** Printable, bounded rendering of any untrusted value for messages. */
export function show(v: unknown, max = 60): string {
  if (typeof v === 'string') return quote(v, max);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `array(${v.length})`;
  return jsonType(v);
}

/** Non-empty after trimming. */
export function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.trim().length > 0;
}

/** Parse JSON text (a leading byte-order mark is ignored, RFC 8259 §8.1); never throws. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, error: sanitize(msg, 120) };
  }
}
