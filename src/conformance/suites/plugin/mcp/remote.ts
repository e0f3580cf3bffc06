import { escapePointer, isObject, own, quote } from '../../../../core/json-util.js';
import { hasPlaceholder } from '../../../plugin/paths.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ServerInput } from './input.js';

/** PLG-020: a remote server's url and literal headers (§7.2.1). */

// RFC 9110 §5.1 field-name = token; §5.5 field-value (obs-text allowed, no surrounding whitespace).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

export const REMOTE: Rule<ServerInput, boolean> = {
  id: 'PLG-020',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-017'],
  title: 'Remote URL and literal headers',
  description:
    'A remote url is not an absolute http(s) URL, has user information or a fragment, or uses http for a host other than localhost or a loopback IP literal; or a header name or value is not a valid HTTP field, two names are equal ignoring case, or url or headers rely on placeholder expansion; that server is skipped.',
  ...ap('§7.2.1 Streamable HTTP and legacy HTTP+SSE', 'streamable-http-and-legacy-httpsse'),
  check: checkRemote,
};

function checkRemote({ run, base, name, entry }: ServerInput): boolean {
  let ok = true;
  const bad = (pointer: string, why: string): void => {
    fail(run, REMOTE, 'mcp.json', pointer, `Server ${quote(name)}: ${why}; the server is skipped.`);
    ok = false;
  };
  const url = own(entry, 'url') as string; // PLG-017 passed
  const why = remoteUrlProblem(url);
  if (why !== null) bad(`${base}/url`, `url ${quote(url, 100)} ${why}`);
  const headers = own(entry, 'headers');
  if (isObject(headers)) {
    const seen = new Map<string, string>();
    for (const h of Object.keys(headers)) {
      const value = own(headers, h) as string;
      const P = `${base}/headers/${escapePointer(h)}`;
      if (!TOKEN.test(h)) bad(P, `header name ${quote(h)} is not a valid HTTP field name (an RFC 9110 token)`);
      else {
        const prev = seen.get(h.toLowerCase());
        if (prev !== undefined) bad(P, `header ${quote(h)} repeats ${quote(prev)}: header names are case-insensitive`);
        else seen.set(h.toLowerCase(), h);
      }
      if (hasPlaceholder(h) || hasPlaceholder(value))
        bad(P, `header ${quote(h)} contains a placeholder, but url and headers are never expanded (§7.2.1)`);
      else if (!FIELD_VALUE.test(value))
        bad(
          P,
          `the value of header ${quote(h)} is not a valid HTTP field value (control characters, characters beyond U+00FF, or leading/trailing whitespace)`,
        );
    }
  }
  if (ok) run.rec.pass(REMOTE);
  return ok;
}

/** Why a remote url breaks §7.2.1, or null. */
export function remoteUrlProblem(url: string): string | null {
  if (hasPlaceholder(url)) return 'contains a placeholder, but url is never expanded';
  const scheme = /^(https?):\/\//i.exec(url);
  if (!scheme) return 'is not an absolute http:// or https:// URL';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(url)) return 'contains whitespace, control characters or a backslash';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  const afterScheme = url.slice(scheme[0].length);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return 'contains user information (user@ or user:password@)';
  if (url.includes('#')) return 'contains a fragment (#…)';
  if (parsed.hostname === '') return 'has no host';
  if (scheme[1]!.toLowerCase() === 'http' && !isLoopbackHost(authority))
    return 'uses http for a host that is not localhost or a loopback IP literal: non-loopback endpoints must use https';
  return null;
}

/**
 * `localhost` or an IP literal in a loopback range, read from the URL's own text: a dotted
 * quad in 127.0.0.0/8 without leading zeros, or the IPv6 literal ::1 in any spelling. Forms a
 * URL parser would rewrite into one (`127.1`, `2130706433`, `0x7f.1`) are not such literals.
 */
export function isLoopbackHost(authority: string): boolean {
  let host: string;
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    if (end < 0) return false;
    host = authority.slice(0, end + 1);
    try {
      return new URL(`http://${host}/`).hostname === '[::1]';
    } catch {
      return false;
    }
  }
  host = authority.replace(/:\d*$/, '');
  if (host.toLowerCase() === 'localhost') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return false;
  return m.slice(1).every((o) => (o === '0' || !o.startsWith('0')) && Number(o) <= 255);
}
