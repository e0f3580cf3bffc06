import { stemmer } from 'stemmer';
import { eng } from 'stopword';

/**
 * Text analysis for the search index, one module for indexing and querying alike (docs/SEARCH.md):
 * Unicode words (runs of letters and digits), case folded, accents removed (NFKD, marks dropped),
 * English stop words left out, English (Porter) stems. A query word and an indexed word meet when
 * their terms are equal.
 */

/** Longest term kept (longer words are cut): bounds a posting's key. */
export const TERM_MAX = 32;

const STOP: ReadonlySet<string> = new Set(eng);
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
/** Letters NFKD leaves whole, folded as a reader would type them. */
const LIGATURE_FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const LIGATURES = /[ßæœøłđðþı]/gu;

/** Case and accent folding of a whole text (before cutting words). */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(LIGATURES, (c) => LIGATURE_FOLDS[c] ?? c);
}

/** A folded word's term: its English stem, cut to TERM_MAX (digits and short words as they are). */
export function termOf(word: string): string {
  const stem = word.length > 2 && /^[a-z]+$/.test(word) ? stemmer(word) : word;
  return stem.slice(0, TERM_MAX);
}

export const isStopWord = (word: string): boolean => STOP.has(word);

/** One word of a text: where it is (in the original text), its folded form and its term (null: a stop word). */
export interface Token {
  start: number;
  end: number;
  word: string;
  term: string | null;
  /** Index among the text's kept terms (stop words not counted); -1 for a stop word. */
  position: number;
}

/**
 * The words of a text with their positions in it. Folding is done word by word so the offsets are
 * the original text's (a highlighter marks what was matched).
 */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  let position = 0;
  for (const m of text.matchAll(WORD)) {
    const word = fold(m[0]);
    if (word === '') continue;
    const stop = isStopWord(word);
    out.push({ start: m.index, end: m.index + m[0].length, word, term: stop ? null : termOf(word), position: stop ? -1 : position++ });
  }
  return out;
}

/** The terms of a text in order (stop words left out): what the index stores for a field. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const t of tokens(text)) if (t.term !== null) out.push(t.term);
  return out;
}

/** One word of a query: its folded word and its term, whether it may be a prefix, whether a typo is forgiven. */
export interface QueryWord {
  word: string;
  term: string;
  /** The last word of a query that does not end in a space: matched as a prefix too. */
  prefix: boolean;
  /** Words of TYPO_MIN_LETTERS letters or more forgive one typo. */
  typo: boolean;
}

/** Words shorter than this forgive no typo. */
export const TYPO_MIN_LETTERS = 5;
/** A prefix shorter than this is not expanded (too many completions to mean anything). */
export const PREFIX_MIN_LETTERS = 2;
/** Query words read, at most: a longer query keeps its first words. */
export const QUERY_WORDS_MAX = 24;

/**
 * The words of a query as the index cuts them. Stop words are dropped unless the query has nothing
 * else; repeated terms count once.
 */
export function queryWords(q: string): QueryWord[] {
  const toks = tokens(q);
  const trailingSpace = /[^\p{L}\p{N}]$/u.test(q);
  const kept = toks.filter((t) => t.term !== null);
  const chosen = kept.length > 0 ? kept : toks.map((t) => ({ ...t, term: termOf(t.word) }));
  const lastToken = toks[toks.length - 1];
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const t of chosen) {
    const term = t.term ?? termOf(t.word);
    if (seen.has(term) || out.length >= QUERY_WORDS_MAX) continue;
    seen.add(term);
    out.push({
      word: t.word,
      term,
      prefix: t.start === lastToken?.start && !trailingSpace && t.word.length >= PREFIX_MIN_LETTERS,
      typo: [...t.word].length >= TYPO_MIN_LETTERS && /^\p{L}+$/u.test(t.word),
    });
  }
  return out;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Every word one edit from a folded word, as terms, by kind of edit, likeliest first: two
 * neighbours swapped, a letter replaced, a letter left out, a letter added. The candidates for one
 * forgiven typo, looked up in the term dictionary; the reader keeps the likeliest kind found.
 */
export function oneEditTerms(word: string): string[][] {
  const letters = [...new Set([...ALPHABET, ...word])];
  const chars = [...word];
  const own = termOf(word);
  const seen = new Set<string>([own]);
  const kinds: string[][] = [[], [], [], []];
  const add = (kind: number, w: string[]) => {
    const s = w.join('');
    if (s === word || s.length === 0) return;
    const t = termOf(s);
    if (seen.has(t)) return;
    seen.add(t);
    kinds[kind]!.push(t);
  };
  for (let i = 0; i + 1 < chars.length; i++) add(0, [...chars.slice(0, i), chars[i + 1]!, chars[i]!, ...chars.slice(i + 2)]);
  for (let i = 0; i < chars.length; i++)
    for (const c of letters) if (c !== chars[i]) add(1, [...chars.slice(0, i), c, ...chars.slice(i + 1)]);
  for (let i = 0; i < chars.length; i++) add(2, [...chars.slice(0, i), ...chars.slice(i + 1)]);
  for (let i = 0; i <= chars.length; i++) for (const c of letters) add(3, [...chars.slice(0, i), c, ...chars.slice(i)]);
  return kinds;
}

/** Where the words whose term is one of `matched` stand in a text: [start, end) in UTF-16 code units. */
export function matchRanges(text: string, matched: ReadonlySet<string>): Array<[number, number]> {
  return tokens(text)
    .filter((t) => t.term !== null && matched.has(t.term))
    .map((t) => [t.start, t.end]);
}

/** A text cut into plain and matched pieces: words whose term is one of `matched` are marked. */
export function highlight(text: string, matched: ReadonlySet<string>): Array<{ text: string; hit: boolean }> {
  const out: Array<{ text: string; hit: boolean }> = [];
  let at = 0;
  for (const t of tokens(text)) {
    if (t.term === null || !matched.has(t.term)) continue;
    if (t.start > at) out.push({ text: text.slice(at, t.start), hit: false });
    out.push({ text: text.slice(t.start, t.end), hit: true });
    at = t.end;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}
