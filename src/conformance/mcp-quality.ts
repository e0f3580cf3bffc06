import { isObject, own } from '../core/json-util.js';

/**
 * The text and URL tests of the server.json quality rules of suite veronikai-mcp-conformance
 * (suites/mcp/; docs/RULES.md): what counts as semver, a placeholder description, a description
 * that only repeats the name, a valid http(s) URL; and the remotes a server.json declares.
 * Characters are Unicode code points of the trimmed text.
 */

export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export const MIN_DESCRIPTION = 20;

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * Lowercase, letters and digits only, single spaces: the runs of \p{L} and \p{N} of the
 * lowercased NFKC text, joined by single spaces (a scan, where a Unicode-class regex replace
 * cost a few microseconds a string). ASCII text needs no NFKC; A-Z can still be there after it
 * in other text (NFKC of a fullwidth letter is uppercase ASCII), and is kept as a letter.
 */
export function normalizeText(s: string): string {
  // ASCII text: after lowercasing, the letters and digits are exactly [a-z0-9] (no code points to decode).
  if (!NON_ASCII.test(s)) return normalizeAscii(s.toLowerCase());
  const t = s.toLowerCase().normalize('NFKC');
  let out = '';
  let start = -1;
  for (let i = 0; i <= t.length;) {
    let keep = false;
    let width = 1;
    if (i < t.length) {
      const c = t.codePointAt(i)!;
      if (c < 0x80) keep = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
      else {
        if (c > 0xffff) width = 2;
        keep = LETTER_OR_DIGIT.test(String.fromCodePoint(c));
      }
    }
    if (keep) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out = out === '' ? t.slice(start, i) : `${out} ${t.slice(start, i)}`;
      start = -1;
    }
    i += width;
  }
  return out;
}

/** normalizeText of lowercased ASCII text: its letters and digits are exactly [a-z0-9]. */
function normalizeAscii(t: string): string {
  let out = '';
  let start = -1;
  for (let i = 0; i <= t.length; i++) {
    const c = i < t.length ? t.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out = out === '' ? t.slice(start, i) : `${out} ${t.slice(start, i)}`;
      start = -1;
    }
  }
  return out;
}

export const PLACEHOLDERS: ReadonlySet<string> = new Set(
  [
    'hello world',
    'hello',
    'hi',
    'an mcp server',
    'a mcp server',
    'mcp server',
    'my mcp server',
    'the mcp server',
    'an mcp server for',
    'a model context protocol server',
    'an model context protocol server',
    'model context protocol server',
    'a model context protocol mcp server',
    'an mcp server implementation',
    'mcp server implementation',
    'a simple mcp server',
    'simple mcp server',
    'a basic mcp server',
    'basic mcp server',
    'an example mcp server',
    'example mcp server',
    'a sample mcp server',
    'sample mcp server',
    'a test mcp server',
    'test mcp server',
    'a demo mcp server',
    'demo mcp server',
    'my server',
    'my first mcp server',
    'new mcp server',
    'server',
    'test',
    'testing',
    'test server',
    'todo',
    'tbd',
    'tba',
    'fixme',
    'description',
    'server description',
    'mcp server description',
    'your description here',
    'your description',
    'description here',
    'description goes here',
    'add description',
    'add a description',
    'enter description',
    'enter a description',
    'a description of your server',
    'a description of your mcp server',
    'a short description',
    'short description',
    'placeholder',
    'lorem ipsum',
    'example',
    'example server',
    'sample',
    'sample server',
    'foo',
    'bar',
    'foo bar',
    'xxx',
    'n a',
    'na',
    'none',
    'null',
    'undefined',
    'no description',
    'no description provided',
  ].map(normalizeText),
);

/** No placeholder phrase is longer: a longer text needs no set lookup. */
const PLACEHOLDER_MAX = Math.max(...[...PLACEHOLDERS].map((p) => p.length));

export const PLACEHOLDER_PATTERNS: readonly RegExp[] = [
  /^lorem ipsum\b/,
  /^(todo|tbd|fixme|placeholder)\b/,
  /\byour (server |mcp server |project |tool |package )?description\b/,
  /\bdescription (goes )?here\b/,
  /\b(add|enter|insert|write) (a |your )?(short )?description\b/,
];

export const RAW_TEMPLATE_MARKERS = /<\s*your\b|\{\{[^}]*\}\}|\$\{[A-Za-z_][A-Za-z0-9_]*\}|%[A-Z_]+%|\[\s*your\b/i;

export function isPlaceholderDescription(desc: string, normalized?: string): boolean {
  if (desc.length > 2000) return false;
  if (RAW_TEMPLATE_MARKERS.test(desc)) return true;
  const n = normalized ?? normalizeText(desc);
  if (n.length <= PLACEHOLDER_MAX && PLACEHOLDERS.has(n)) return true;
  // Only the first two patterns can match text without the word "description".
  if (!n.includes('description')) return PLACEHOLDER_PATTERNS[0]!.test(n) || PLACEHOLDER_PATTERNS[1]!.test(n);
  return PLACEHOLDER_PATTERNS.some((re) => re.test(n));
}

/** The generic words, as a test on the word n[i..j) that slices nothing (most words are not generic). */
function isGenericWord(n: string, i: number, j: number): boolean {
  switch (j - i) {
    case 1:
      return n.charCodeAt(i) === 97; // a
    case 2:
      return n.startsWith('an', i);
    case 3:
      return n.startsWith('mcp', i) || n.startsWith('the', i) || n.startsWith('for', i);
    case 5:
      return n.startsWith('model', i);
    case 6:
      return n.startsWith('server', i);
    case 7:
      return n.startsWith('context', i);
    case 8:
      return n.startsWith('protocol', i);
    default:
      return false;
  }
}

/** True when the description says nothing beyond the server name (reverse-DNS or its last segment). */
export function repeatsName(desc: string, name: unknown, normalized?: string): boolean {
  if (typeof name !== 'string' || name.trim() === '' || desc.length > 2000 || name.length > 2000) return false;
  const d = normalized ?? normalizeText(desc);
  // The candidates: the whole name, its last path segment, and that segment's last dot-separated
  // part; each normalised only when it is not the same text as one already taken.
  const whole = normalizeText(name);
  const slash = name.lastIndexOf('/');
  const segment = slash >= 0 ? name.slice(slash + 1) : name;
  const lastDot = segment.lastIndexOf('.');
  const dotted = segment.slice(lastDot + 1);
  const seg = slash >= 0 ? normalizeText(segment) : '';
  const dot = dotted && dotted !== segment ? normalizeText(dotted) : '';
  if ((whole && d === whole) || (seg && d === seg) || (dot && d === dot)) return true;
  const s1 = whole ? stripGenericUpTo(whole, Infinity)! : '';
  const s2 = seg ? stripGenericUpTo(seg, Infinity)! : '';
  const s3 = dot ? stripGenericUpTo(dot, Infinity)! : '';
  const longest = Math.max(s1.length, s2.length, s3.length);
  if (longest === 0) return false;
  // The description's own words are stripped only as far as the longest stripped name: a long
  // description is known to differ from every name after its first few words.
  const dStripped = stripGenericUpTo(d, longest);
  return dStripped !== null && dStripped !== '' && (dStripped === s1 || dStripped === s2 || dStripped === s3);
}

/** The words of `n` that are not generic, joined by single spaces; null as soon as that would be longer than `limit`. */
function stripGenericUpTo(n: string, limit: number): string | null {
  // While every word so far is kept (and single-spaced), the result is a prefix of n: nothing is built.
  let out: string | null = null;
  let keptEnd = 0;
  let len = 0;
  let i = 0;
  while (i <= n.length) {
    let j = n.indexOf(' ', i);
    if (j < 0) j = n.length;
    if (j > i && !isGenericWord(n, i, j)) {
      len = len === 0 ? j - i : len + 1 + (j - i);
      if (len > limit) return null;
      if (out === null) keptEnd = j;
      else out = out === '' ? n.slice(i, j) : `${out} ${n.slice(i, j)}`;
    } else if (out === null) out = n.slice(0, keptEnd);
    i = j + 1;
  }
  return out === null ? n.slice(0, keptEnd) : out;
}

const UNSAFE_URL_CHARS = /[\s<>{}"`\\^|]/;

/** A usable absolute http(s) URL with a host and no template or placeholder brackets. */
export function isValidHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string' || v.length === 0 || v.length > 2048 || UNSAFE_URL_CHARS.test(v)) return false;
  if (!/^https?:\/\//i.test(v)) return false;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return false;
  }
  return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0;
}

/** The remotes a server.json declares, as `{type, url}` strings (for the probe and MCP-T-103). */
export function declaredRemotes(doc: unknown): Array<{ type: string; url: string }> {
  if (!isObject(doc)) return [];
  const remotes = own(doc, 'remotes');
  if (!Array.isArray(remotes)) return [];
  const out: Array<{ type: string; url: string }> = [];
  for (const r of remotes) {
    if (!isObject(r)) continue;
    const type = own(r, 'type');
    const url = own(r, 'url');
    if (typeof type === 'string' && typeof url === 'string') out.push({ type, url });
  }
  return out;
}
