import { createHash } from 'node:crypto';

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

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function hashInputs(value: unknown): string {
  return 'sha256:' + sha256Hex(canonicalJson(value));
}
