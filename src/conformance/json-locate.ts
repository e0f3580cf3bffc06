import { escapePointer } from './json-util.js';

export interface TextPosition {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
  /** False when the pointer's value is absent and the position is that of its nearest existing ancestor. */
  exact: boolean;
}

/**
 * Finds where JSON pointers point in JSON text, for reports (terminal and SARIF regions).
 * A pointer whose value is absent (a missing required field) resolves to its nearest existing
 * ancestor. Iterative single pass: deep nesting cannot overflow the stack, malformed text
 * yields what was found before the error. Duplicate keys resolve to the first occurrence.
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
  try {
    scan(text, wanted, found);
  } catch {
    // malformed text: keep what was found
  }
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const toPos = (off: number, exact: boolean): TextPosition => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - lineStarts[lo]! + 1, exact };
  };
  const out = new Map<string, TextPosition>();
  for (const p of pointers) {
    let q = p;
    for (;;) {
      const off = found.get(q);
      if (off !== undefined) {
        out.set(p, toPos(off, q === p));
        break;
      }
      if (q === '') break;
      q = q.slice(0, q.lastIndexOf('/'));
    }
  }
  return out;
}

function scan(text: string, wanted: Set<string>, found: Map<string, number>): void {
  const n = text.length;
  let i = 0;
  const path: string[] = []; // pointer of each open container's current child
  const kinds: Array<'o' | 'a'> = [];
  const index: number[] = [];
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
      else break;
    }
  };
  const readString = (): string => {
    // text[i] === '"'
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === 34) {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      } else i++;
    }
    throw new Error('unterminated string');
  };
  const here = (): string => (path.length === 0 ? '' : path[path.length - 1]!);
  const record = (): void => {
    const p = here();
    if (wanted.has(p) && !found.has(p)) found.set(p, i);
  };
  const readKey = (): void => {
    ws();
    if (text[i] !== '"') throw new Error('key expected');
    const key = readString();
    ws();
    if (text[i] !== ':') throw new Error('colon expected');
    i++;
    const parent = path.length >= 2 ? path[path.length - 2]! : '';
    path[path.length - 1] = `${parent}/${escapePointer(key)}`;
  };
  let guard = 0;
  ws();
  for (;;) {
    if (++guard > n * 4 + 16) throw new Error('no progress');
    // value start
    ws();
    record();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      const close = c === '{' ? '}' : ']';
      if (text[i] === close) {
        i++;
      } else {
        kinds.push(c === '{' ? 'o' : 'a');
        index.push(0);
        const base = here();
        path.push(c === '{' ? base : `${base}/0`);
        if (c === '{') readKey();
        continue;
      }
    } else if (c === '"') {
      readString();
    } else if (c === undefined) {
      return;
    } else {
      while (i < n && !',}] \t\r\n'.includes(text[i]!)) i++;
    }
    // after a value
    for (;;) {
      ws();
      if (kinds.length === 0) return;
      const d = text[i];
      if (d === ',') {
        i++;
        const k = kinds[kinds.length - 1]!;
        if (k === 'o') readKey();
        else {
          const next = ++index[index.length - 1]!;
          const parent = path.length >= 2 ? path[path.length - 2]! : '';
          path[path.length - 1] = `${parent}/${next}`;
        }
        break;
      }
      if (d === '}' || d === ']') {
        i++;
        kinds.pop();
        index.pop();
        path.pop();
        continue;
      }
      throw new Error('unexpected character');
    }
  }
}
