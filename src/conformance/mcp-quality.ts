import { FindingSink, ruleMask } from './findings.js';
import { isNonEmptyString, isObject, jsonType, own, ptr, sanitize } from './json-util.js';
import { classifyHost } from './private-host.js';

/**
 * Quality rules on server.json, suite veronikai-mcp-conformance v2 (seed 000, validate.mcp_quality).
 *
 * Fails: no description, under 20 characters, a placeholder, or only the name repeated; version
 * missing or not semver; no remotes, a remote type other than streamable-http/sse, a remote URL
 * that is not https, or that points at a placeholder or private host; an invalid repository URL.
 * Warnings: no repository or website URL, version 0.0.0, description equal to the title, a
 * templated remote URL that still needs user values.
 *
 * Decisions where the seed is silent: characters are Unicode code points of the trimmed text;
 * an empty repository url ("") counts as "no repository listed" (the registry's own examples
 * carry it), not as an invalid one; a remote URL that starts with a template variable
 * ("{baseUrl}/mcp") cannot be judged for scheme or host, and one whose host holds a variable
 * cannot be judged for host — both still draw the template warning.
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
  for (let i = 0; i <= t.length; ) {
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
    'hello world', 'hello', 'hi', 'an mcp server', 'a mcp server', 'mcp server', 'my mcp server', 'the mcp server',
    'an mcp server for', 'a model context protocol server', 'an model context protocol server', 'model context protocol server',
    'a model context protocol mcp server', 'an mcp server implementation', 'mcp server implementation', 'a simple mcp server',
    'simple mcp server', 'a basic mcp server', 'basic mcp server', 'an example mcp server', 'example mcp server',
    'a sample mcp server', 'sample mcp server', 'a test mcp server', 'test mcp server', 'a demo mcp server', 'demo mcp server',
    'my server', 'my first mcp server', 'new mcp server', 'server', 'test', 'testing', 'test server', 'todo', 'tbd', 'tba', 'fixme',
    'description', 'server description', 'mcp server description', 'your description here', 'your description',
    'description here', 'description goes here', 'add description', 'add a description', 'enter description',
    'enter a description', 'a description of your server', 'a description of your mcp server', 'a short description',
    'short description', 'placeholder', 'lorem ipsum', 'example', 'example server', 'sample', 'sample server', 'foo', 'bar',
    'foo bar', 'xxx', 'n a', 'na', 'none', 'null', 'undefined', 'no description', 'no description provided',
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

const TEMPLATE = /\{[^{}]*\}/;
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

const HOST_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private (RFC 1918 or local-use) address',
  'link-local': 'a link-local address',
  cgnat: 'a carrier-grade NAT address (100.64.0.0/10)',
  'unique-local': 'an IPv6 unique local address',
  'site-local': 'an IPv6 site-local address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  'local-name': 'a local-network host name',
  placeholder: 'a placeholder host',
};

/** A remote URL as a message shows it; rendered only for a finding (most remotes draw none). */
function shownUrl(url: string): string {
  return JSON.stringify(sanitize(url, 100));
}

function checkRemote(remote: unknown, i: number, sink: FindingSink): void {
  const base = ptr('remotes', i);
  if (!isObject(remote)) {
    sink.add('MCP-Q-009', 'document', base, `remote ${i} must be an object, found ${jsonType(remote)}`);
    return;
  }
  const type = own(remote, 'type');
  if (type !== 'streamable-http' && type !== 'sse') {
    sink.add('MCP-Q-009', 'document', `${base}/type`, type === undefined ? `remote ${i} has no type (streamable-http or sse)` : `remote ${i} type ${typeof type === 'string' ? JSON.stringify(sanitize(type, 40)) : jsonType(type)} is not streamable-http or sse`);
  }
  const url = own(remote, 'url');
  const at = `${base}/url`;
  if (typeof url !== 'string' || url.trim() === '') {
    sink.add('MCP-Q-010', 'document', at, url === undefined ? `remote ${i} has no url` : `remote ${i} url must be a non-empty string, found ${typeof url === 'string' ? 'an empty string' : jsonType(url)}`);
    return;
  }
  const templated = TEMPLATE.test(url);
  if (templated) sink.add('MCP-Q-104', 'document', at, `remote ${i} url ${shownUrl(url)} is a template that needs user values`);
  if (url.trimStart().startsWith('{')) return; // scheme and host come from a variable
  if (!/^https:\/\//i.test(url)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    sink.add('MCP-Q-010', 'document', at, scheme ? `remote ${i} url ${shownUrl(url)} uses ${sanitize(scheme.toLowerCase(), 20)}:, not https:` : `remote ${i} url ${shownUrl(url)} is not an absolute https URL`);
    return;
  }
  const authority = /^https:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (TEMPLATE.test(authority) || authority.includes('{')) return; // host holds a variable
  let host: string;
  try {
    host = new URL(templated ? url.replace(/\{[^{}]*\}/g, 'x') : url).hostname;
  } catch {
    sink.add('MCP-Q-010', 'document', at, `remote ${i} url ${shownUrl(url)} is not a valid URL`);
    return;
  }
  const cls = classifyHost(host);
  if (cls) {
    const via = cls.via ? ` (${cls.via})` : '';
    sink.add('MCP-Q-011', 'document', at, `remote ${i} url points at ${HOST_WORDS[cls.class] ?? cls.class}${via}: ${JSON.stringify(sanitize(host, 80))}`);
  }
}

/** Every quality rule after MCP-Q-001: all are evaluated once the document is an object. */
const OBJECT_RULES = ruleMask(
  'MCP-Q-002', 'MCP-Q-003', 'MCP-Q-004', 'MCP-Q-005', 'MCP-Q-103',
  'MCP-Q-006', 'MCP-Q-007', 'MCP-Q-102',
  'MCP-Q-008', 'MCP-Q-009', 'MCP-Q-010', 'MCP-Q-011', 'MCP-Q-104',
  'MCP-Q-012', 'MCP-Q-101',
);

/** Runs every quality rule on a parsed server.json value. */
export function checkServerJsonValue(doc: unknown, sink: FindingSink): void {
  sink.evaluate('MCP-Q-001');
  if (!isObject(doc)) {
    sink.add('MCP-Q-001', 'document', '', `server.json is ${jsonType(doc)}, not a JSON object`);
    return;
  }
  sink.evaluateMask(OBJECT_RULES);
  const desc = own(doc, 'description');
  if (!isNonEmptyString(desc)) {
    sink.add('MCP-Q-002', 'document', '/description', desc === undefined ? 'description is missing' : typeof desc === 'string' ? 'description is blank' : `description must be a string, found ${jsonType(desc)}`);
  } else {
    const trimmed = desc.trim();
    let len = 0;
    // Twice as many code units as the minimum are at least the minimum in code points: no count.
    if (trimmed.length >= 2 * MIN_DESCRIPTION) len = MIN_DESCRIPTION;
    else {
      for (const _ of trimmed) {
        if (++len >= MIN_DESCRIPTION) break;
      }
    }
    if (len < MIN_DESCRIPTION) sink.add('MCP-Q-003', 'document', '/description', `description has ${len} characters; at least ${MIN_DESCRIPTION} are needed`);
    // Normalised once for the three rules that compare it (each reads it only up to 2000 characters).
    const normalized = trimmed.length <= 2000 ? normalizeText(trimmed) : undefined;
    if (isPlaceholderDescription(trimmed, normalized)) sink.add('MCP-Q-004', 'document', '/description', `description ${JSON.stringify(sanitize(trimmed, 60))} is placeholder text`);
    const name = own(doc, 'name');
    if (repeatsName(trimmed, name, normalized)) sink.add('MCP-Q-005', 'document', '/description', `description only repeats the name ${JSON.stringify(sanitize(String(name), 80))}`);
    const title = own(doc, 'title');
    if (typeof title === 'string' && title.length <= 2000 && normalized !== undefined && normalizeText(title) === normalized) {
      sink.add('MCP-Q-103', 'document', '/description', 'description is the same text as title');
    }
  }

  const version = own(doc, 'version');
  if (!isNonEmptyString(version)) {
    sink.add('MCP-Q-006', 'document', '/version', version === undefined ? 'version is missing' : typeof version === 'string' ? 'version is blank' : `version must be a string, found ${jsonType(version)}`);
  } else if (!SEMVER.test(version)) {
    sink.add('MCP-Q-007', 'document', '/version', `version ${JSON.stringify(sanitize(version, 60))} is not semver x.y.z`);
  } else if (version === '0.0.0') {
    sink.add('MCP-Q-102', 'document', '/version', 'version is 0.0.0');
  }

  const remotes = own(doc, 'remotes');
  if (!Array.isArray(remotes) || remotes.length === 0) {
    sink.add('MCP-Q-008', 'document', '/remotes', remotes === undefined ? 'there are no remotes: nothing to reach (package-only server)' : Array.isArray(remotes) ? 'remotes is empty' : `remotes must be a list, found ${jsonType(remotes)}`);
  } else {
    for (let i = 0; i < remotes.length; i++) checkRemote(remotes[i], i, sink);
  }

  const repo = own(doc, 'repository');
  let repoListed = false;
  if (repo !== undefined && repo !== null) {
    if (!isObject(repo)) {
      repoListed = true;
      sink.add('MCP-Q-012', 'document', '/repository', `repository must be an object with a url, found ${jsonType(repo)}`);
    } else {
      const rurl = own(repo, 'url');
      if (rurl !== undefined && rurl !== '') {
        repoListed = true;
        if (!isValidHttpUrl(rurl)) {
          sink.add('MCP-Q-012', 'document', '/repository/url', typeof rurl === 'string' ? `repository url ${JSON.stringify(sanitize(rurl, 100))} is not a valid http(s) URL` : `repository url must be a string, found ${jsonType(rurl)}`);
        }
      }
    }
  }
  const website = own(doc, 'websiteUrl');
  const websiteListed = typeof website === 'string' && website.trim() !== '';
  if (!repoListed && !websiteListed) sink.add('MCP-Q-101', 'document', '', 'no repository url and no websiteUrl are listed');
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
