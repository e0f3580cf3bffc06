import { escapePointer } from './json-util.js';

/**
 * Where things are in JSON text, for reports (terminal and SARIF regions): where JSON pointers
 * point, and where text stops being JSON. One scanner reads both. It follows the RFC 8259 grammar
 * strictly and stops where `JSON.parse` stops (test/conformance/plugin/json-error.test.ts compares
 * the two): Node names a position only in some of its messages ("Unexpected token '}', …" has
 * none). Iterative: deep nesting cannot overflow the stack. A leading byte-order mark is skipped,
 * as parseJson (json-util.ts) does.
 */

export interface TextPosition {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
  /** False when the pointer's value is absent and the position is that of its nearest existing ancestor. */
  exact: boolean;
}

/** Offset (UTF-16 code units) → 1-based line and column. */
export function locator(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (off: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - starts[lo]! + 1 };
  };
}

/**
 * Where each JSON pointer points in `text`. A pointer whose value is absent (a missing required
 * field) resolves to its nearest existing ancestor; duplicate keys resolve to the first
 * occurrence; malformed text yields what was found before the error.
 */
export function locatePointers(text: string, pointers: readonly string[]): Map<string, TextPosition> {
  const wanted = new Set<string>();
  for (const p of pointers) {
    let q = p;
    wanted.add(q);
    while (q !== '') {
      q = q.slice(0, q.lastIndexOf('/'));
      wanted.add(q);
    }
  }
  const found = new Map<string, number>();
  scan(text, { wanted, found });
  const at = locator(text);
  const out = new Map<string, TextPosition>();
  for (const p of pointers) {
    for (let q = p; ; q = q.slice(0, q.lastIndexOf('/'))) {
      const off = found.get(q);
      if (off !== undefined) {
        out.set(p, { ...at(off), exact: q === p });
        break;
      }
      if (q === '') break;
    }
  }
  return out;
}

/** Offset (UTF-16 code units) of the first character that breaks the JSON grammar, or null when `text` is JSON. */
export function jsonErrorOffset(text: string): number | null {
  return scan(text, null);
}

/** The pointers asked for, and the offset of each value start found so far. */
interface Pointers {
  wanted: ReadonlySet<string>;
  found: Map<string, number>;
}

/** Scans `text`, recording where wanted pointers start; returns the offset of the first error, or null. */
function scan(text: string, pointers: Pointers | null): number | null {
  const s = new Scanner(text, pointers);
  for (;;) {
    // A value is expected here.
    s.ws();
    s.record();
    const c = text[s.i];
    if (c === '{' || c === '[') {
      s.i++;
      s.ws();
      if (text[s.i] === (c === '{' ? '}' : ']')) s.i++;
      else {
        s.open(c === '{' ? 'o' : 'a');
        if (c === '{' && !s.key()) return s.i;
        continue;
      }
    } else if (!s.scalar()) return s.i;
    // After a value: close containers or move to the next member.
    const next = s.afterValue();
    if (next !== 'value') return next;
  }
}

class Scanner {
  i: number;
  private readonly n: number;
  /** Open containers: 'o' object, 'a' array. */
  private readonly kinds: Array<'o' | 'a'> = [];
  /** Per open container: the pointer of its current member, and an array's index. */
  private readonly path: string[] = [];
  private readonly index: number[] = [];

  constructor(
    private readonly text: string,
    private readonly pointers: Pointers | null,
  ) {
    this.n = text.length;
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  ws(): void {
    while (this.i < this.n) {
      const c = this.text.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  /**
   * Notes where the value that starts here is, when its pointer is wanted. A byte-order mark
   * before it is passed over as whitespace: JSON.parse stops there, but a reader of malformed
   * text is pointed at the value itself.
   */
  record(): void {
    if (this.pointers === null) return;
    const p = this.path.length === 0 ? '' : this.path[this.path.length - 1]!;
    if (!this.pointers.wanted.has(p) || this.pointers.found.has(p)) return;
    let at = this.i;
    for (let c = this.text.charCodeAt(at); c === 0xfeff || c === 32 || c === 9 || c === 10 || c === 13; c = this.text.charCodeAt(++at));
    this.pointers.found.set(p, at);
  }

  open(kind: 'o' | 'a'): void {
    this.kinds.push(kind);
    this.index.push(0);
    const base = this.path.length === 0 ? '' : this.path[this.path.length - 1]!;
    this.path.push(kind === 'a' ? `${base}/0` : base);
  }

  /** After a value: the offset of an error, null at the end of valid text, or 'value' when another value follows. */
  afterValue(): number | null | 'value' {
    for (;;) {
      this.ws();
      const top = this.kinds[this.kinds.length - 1];
      if (top === undefined) return this.i < this.n ? this.i : null;
      const d = this.text[this.i];
      if (d === ',') {
        this.i++;
        if (top === 'a') {
          this.member(String(++this.index[this.index.length - 1]!));
          return 'value';
        }
        this.ws();
        return this.key() ? 'value' : this.i;
      }
      if (d !== (top === 'o' ? '}' : ']')) return this.i;
      this.i++;
      this.kinds.pop();
      this.index.pop();
      this.path.pop();
    }
  }

  /** At an object member: its key and colon; false with `i` at the offending character. */
  key(): boolean {
    const start = this.i;
    if (this.text[this.i] !== '"' || !this.string()) return false;
    if (this.pointers !== null) this.member(escapePointer(JSON.parse(this.text.slice(start, this.i)) as string));
    this.ws();
    if (this.text[this.i] !== ':') return false;
    this.i++;
    return true;
  }

  /** Makes `token` the current member of the innermost container. */
  private member(token: string): void {
    if (this.pointers === null) return;
    const parent = this.path.length >= 2 ? this.path[this.path.length - 2]! : '';
    this.path[this.path.length - 1] = `${parent}/${token}`;
  }

  /** A string, number or literal; false with `i` where it stops being one. */
  scalar(): boolean {
    const c = this.text[this.i];
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (c === 't') return this.literal('true');
    if (c === 'f') return this.literal('false');
    if (c === 'n') return this.literal('null');
    return false;
  }

  /** At a `"`: true past the string; false with `i` at the offending character. */
  private string(): boolean {
    const t = this.text;
    this.i++;
    while (this.i < this.n) {
      const c = t.charCodeAt(this.i);
      if (c === 34) {
        this.i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 92) {
        this.i++;
        continue;
      }
      const e = t[this.i + 1];
      if (e === undefined) {
        this.i = this.n;
        return false;
      }
      if (e === 'u') {
        for (let k = 2; k < 6; k++) {
          if (!/[0-9a-fA-F]/.test(t[this.i + k] ?? '')) {
            this.i = Math.min(this.i + k, this.n);
            return false;
          }
        }
        this.i += 6;
      } else if ('"\\/bfnrt'.includes(e)) this.i += 2;
      else {
        this.i++;
        return false;
      }
    }
    return false;
  }

  private digits(): number {
    const from = this.i;
    while (this.i < this.n && this.text.charCodeAt(this.i) >= 48 && this.text.charCodeAt(this.i) <= 57) this.i++;
    return this.i - from;
  }

  private number(): boolean {
    const t = this.text;
    if (t[this.i] === '-') this.i++;
    if (t[this.i] === '0') this.i++;
    else if (this.digits() === 0) return false;
    if (t[this.i] === '.') {
      this.i++;
      if (this.digits() === 0) return false;
    }
    if (t[this.i] === 'e' || t[this.i] === 'E') {
      this.i++;
      if (t[this.i] === '+' || t[this.i] === '-') this.i++;
      if (this.digits() === 0) return false;
    }
    return true;
  }

  private literal(word: string): boolean {
    for (let k = 0; k < word.length; k++, this.i++) if (this.text[this.i] !== word[k]) return false;
    return true;
  }
}
