/**
 * Parsing a WWW-Authenticate header value (RFC 9110 §11.6.1, auth-param syntax §11.2) into
 * challenges: scheme and parameters. Tolerant of several challenges in one value.
 */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

export function parseWwwAuthenticate(value: string | undefined): Challenge[] {
  if (!value) return [];
  const out: Challenge[] = [];
  let s = value.slice(0, 8192);
  let current: Challenge | null = null;
  while (s.length > 0) {
    s = s.replace(/^[\s,]+/, '');
    if (s === '') break;
    const name = TOKEN.exec(s);
    if (!name) break;
    const after = s.slice(name[0].length);
    const eq = /^\s*=\s*/.exec(after);
    if (eq && current && !/^\s*=\s*=/.test(after)) {
      // an auth-param name=value (token or quoted-string)
      let rest = after.slice(eq[0].length);
      let v = '';
      if (rest.startsWith('"')) {
        let i = 1;
        for (; i < rest.length; i++) {
          const c = rest[i];
          if (c === '\\' && i + 1 < rest.length) {
            v += rest[i + 1];
            i++;
          } else if (c === '"') break;
          else v += c;
        }
        rest = rest.slice(i + 1);
      } else {
        const t = /^[^\s,]*/.exec(rest)![0];
        v = t;
        rest = rest.slice(t.length);
      }
      current.params[name[0].toLowerCase()] = v;
      s = rest;
      continue;
    }
    // a new challenge: scheme [token68]
    current = { scheme: name[0], params: {} };
    out.push(current);
    s = after;
    const t68 = /^\s+([A-Za-z0-9\-._~+/]+=*)\s*(?=,|$)/.exec(s);
    if (t68) {
      current.params['token68'] = t68[1]!;
      s = s.slice(t68[0].length);
    }
  }
  return out;
}

/** The Bearer challenge, when there is one. */
export function bearerChallenge(value: string | undefined): Challenge | null {
  return parseWwwAuthenticate(value).find((c) => c.scheme.toLowerCase() === 'bearer') ?? null;
}
