/**
 * Where JSON text stops being JSON (RFC 8259), for a finding's line and column. Node's
 * `JSON.parse` names a position only in some of its messages ("Unexpected token '}', …" has
 * none), so the offset comes from this scanner, which follows the grammar strictly and stops
 * where `JSON.parse` stops (test/conformance/plugin/json-error.test.ts compares the two).
 * Iterative: deep nesting cannot overflow the stack. A leading byte-order mark is skipped, as
 * parseJson (src/conformance/json-util.ts) does.
 */

/** Offset (UTF-16 code units) of the first character that breaks the JSON grammar, or null when `text` is JSON. */
export function jsonErrorOffset(text: string): number | null {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Open containers: 'o' object, 'a' array.
  const stack: Array<'o' | 'a'> = [];
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const digits = (): number => {
    const from = i;
    while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    return i - from;
  };
  /** At a `"`: true past the string; false with `i` at the offending character. */
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 92) {
        const e = text[i + 1];
        if (e === undefined) {
          i = n;
          return false;
        }
        if (e === 'u') {
          for (let k = 2; k < 6; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i = Math.min(i + k, n);
              return false;
            }
          }
          i += 6;
        } else if ('"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          return false;
        }
      } else i++;
    }
    return false;
  };
  /** True past the number; false with `i` where it stops being one. */
  const number = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (digits() === 0) return false;
    if (text[i] === '.') {
      i++;
      if (digits() === 0) return false;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (digits() === 0) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) return false;
    return true;
  };

  for (;;) {
    // A value is expected here.
    ws();
    const c = text[i];
    let ok: boolean;
    if (c === '{' || c === '[') {
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        ok = true;
      } else {
        stack.push(c === '{' ? 'o' : 'a');
        if (c === '{') {
          if (text[i] !== '"' || !string()) return i;
          ws();
          if (text[i] !== ':') return i;
          i++;
        }
        continue;
      }
    } else if (c === '"') ok = string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) ok = number();
    else if (c === 't') ok = literal('true');
    else if (c === 'f') ok = literal('false');
    else if (c === 'n') ok = literal('null');
    else return i;
    if (!ok) return i;
    // After a value: close containers or move to the next member.
    for (;;) {
      ws();
      const top = stack[stack.length - 1];
      if (top === undefined) return i < n ? i : null;
      const d = text[i];
      if (d === ',') {
        i++;
        if (top === 'o') {
          ws();
          if (text[i] !== '"' || !string()) return i;
          ws();
          if (text[i] !== ':') return i;
          i++;
        }
        break;
      }
      if (d === (top === 'o' ? '}' : ']')) {
        i++;
        stack.pop();
        continue;
      }
      return i;
    }
  }
}
