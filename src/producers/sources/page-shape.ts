/**
 * A page's shape, measured on its bytes before anything is parsed: how many elements its
 * top-level arrays hold and how deep it nests. JSON.parse of a 4 MB `{"servers":[0,0,…]}` makes
 * two million values and mapping them makes millions of objects; counting first refuses such a
 * page in one pass over the bytes with no allocation per item.
 *
 * The arrays counted are the page itself or a member of the page object: where every source
 * keeps its items (`[…]`, `{"servers":[…]}`, `{"agents":[…]}`, `{"items":[…]}`). Arrays inside
 * items (tags, remotes) are not items and are not counted; they are bounded by the depth.
 */

/** Why a page is refused before it is parsed. */
export interface ShapeRefusal {
  errorClass: 'too_many_items' | 'too_deep';
  error: string;
}

export interface ShapeBounds {
  maxItems: number;
  maxDepth: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Refuses a page with a top-level array of more than `maxItems` elements or nesting deeper than
 * `maxDepth`; null otherwise (including for text that is not JSON: JSON.parse says why). Stops at
 * the first element over a bound. UTF-8 continuation bytes are never structural, so bytes are scanned as they came.
 */
export function refuseShape(bytes: Uint8Array, bounds: ShapeBounds): ShapeRefusal | null {
  let depth = 0;
  let inString = false;
  // Per counted level (1: the page, 2: a member of it): is it an array, its elements so far, has one begun.
  const counting = [false, false, false];
  const count = [0, 0, 0];
  const started = [false, false, false];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (isSpace(b)) continue;
    if (depth <= 2 && counting[depth] && !started[depth] && b !== CLOSE_ARRAY) {
      started[depth] = true;
      count[depth] = 1;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      depth += 1;
      if (depth > bounds.maxDepth) {
        return { errorClass: 'too_deep', error: `page nests deeper than ${bounds.maxDepth} levels` };
      }
      if (depth <= 2) {
        counting[depth] = b === OPEN_ARRAY;
        count[depth] = 0;
        started[depth] = false;
      }
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      if (depth <= 2) counting[depth] = false;
      depth = Math.max(0, depth - 1);
    } else if (b === COMMA && depth <= 2 && counting[depth]) {
      const n = (count[depth] ?? 0) + 1;
      count[depth] = n;
      if (n > bounds.maxItems) {
        return { errorClass: 'too_many_items', error: `page lists more than ${bounds.maxItems} items, over the cap for this source` };
      }
    }
  }
  return null;
}
