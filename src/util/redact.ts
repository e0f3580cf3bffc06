/**
 * Secrets out of URLs and messages before they are logged or recorded in an event. Pure, below
 * every role, so the sources and the probes redact alike. A configured URL may carry an access
 * token in its query (`?token=…`, a signed URL's `sig=`); the rest of the URL (host, path, paging
 * parameters) stays as it was, so a log line still says which request it was.
 *
 * What counts as a secret:
 * - a query or fragment parameter whose name holds a secret word (`token`, `key`, `api_key`,
 *   `X-Amz-Signature`, `client_secret`, `sessionId`…), paging tokens (`pageToken`…) excepted;
 * - a parameter value, path segment or user name shaped like a credential (a JWT, a bearer
 *   value, a well-known key prefix such as `sk-`, `ghp_`, `hf_`, `AKIA`, a long hex string);
 * - the password of a URL's userinfo.
 * Over-redacting a harmless value costs a little detail; missing a secret leaks it.
 */

/** What a redacted value reads as. */
export const REDACTED = '***';

/** Words of a parameter name that make its value a secret. */
const SECRET_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'sig',
  'signature',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'sid',
  'credential',
  'credentials',
  'jwt',
  'bearer',
  'cookie',
  'otp',
  'accesstoken',
  'refreshtoken',
  'clientsecret',
  'privatekey',
  'accesskey',
]);

/** Paging parameters named like tokens but holding no credential (normalised: lower case, no separators). */
const PAGING_NAMES = new Set(['pagetoken', 'nextpagetoken', 'continuationtoken', 'pagingtoken', 'synctoken', 'cursortoken']);

/** Values shaped like credentials, whatever their parameter is called. */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /^eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*$/, // a JWT (header.payload.signature)
  /^bearer\s/i,
  /^(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[\w-]{12,}$/, // Stripe, OpenAI, Anthropic…
  /^(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}$|^github_pat_\w{20,}$/, // GitHub
  /^(?:glpat|xox[abpors]|hf|npm|pypi|shpat|dop_v1)[-_][\w-]{12,}$/, // GitLab, Slack, Hugging Face, npm, PyPI…
  /^(?:AKIA|ASIA)[A-Z0-9]{16}$/, // AWS access key id
  /^AIza[\w-]{30,}$/, // Google API key
  /^ya29\.[\w.-]{20,}$/, // Google OAuth access token
  /^[0-9a-f]{32,}$/i, // a long hex key or hash
];

/** The words of a parameter name: split at separators and camelCase humps, lower case. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** True when a query parameter of this name carries a secret. */
export function isSecretName(name: string): boolean {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (flat === '' || PAGING_NAMES.has(flat)) return false;
  if (SECRET_WORDS.has(flat)) return true;
  return nameWords(name).some((w) => SECRET_WORDS.has(w));
}

/** True when a value (decoded) looks like a credential whatever it is called. */
export function looksLikeCredential(value: string): boolean {
  return value.length >= 16 && CREDENTIAL_SHAPES.some((re) => re.test(value));
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `a=1&token=x` with secret values replaced; every other pair kept byte for byte. */
function redactParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return looksLikeCredential(decoded(pair)) ? REDACTED : pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '') return pair;
      return isSecretName(decoded(name)) || looksLikeCredential(decoded(value)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/** A path with credential-shaped segments replaced (`/bot<token>/…` style URLs). */
function redactPath(path: string): string {
  return path
    .split('/')
    .map((seg) => (looksLikeCredential(decoded(seg)) ? REDACTED : seg))
    .join('/');
}

/** `scheme://user:password@` → `scheme://user:***@`; a credential-shaped user name goes too. */
function redactAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  if (at < 0) return authority;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? userinfo : userinfo.slice(0, colon);
  const safeUser = looksLikeCredential(decoded(user)) ? REDACTED : user;
  return `${safeUser}${colon < 0 ? '' : `:${REDACTED}`}${authority.slice(at)}`;
}

/**
 * A URL (or a URL-like string: a path with a query, an opaque cursor) with its secrets replaced by
 * `***`. Works on the text as given, so an invalid URL is redacted too and nothing else changes.
 */
export function redactUrl(url: string): string {
  let rest = url;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query: string | null = null;
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  let head = '';
  if (scheme) {
    const afterScheme = rest.slice(scheme[0].length);
    const slash = afterScheme.indexOf('/');
    const authority = slash < 0 ? afterScheme : afterScheme.slice(0, slash);
    head = scheme[0] + redactAuthority(authority);
    rest = slash < 0 ? '' : afterScheme.slice(slash);
  }
  let out = head + redactPath(rest);
  if (query !== null) out += `?${redactParams(query)}`;
  if (hash >= 0) out += `#${fragment.includes('=') ? redactParams(fragment) : redactPath(fragment)}`;
  return out;
}

/** Where a word of free text ends: whitespace, quotes, angle brackets. */
const WORD_BREAK = /([\s"'<>]+)/;

/** A word of free text that holds a URL or a query string. */
function isUrlish(word: string): boolean {
  return word.includes('://') || ((word.includes('?') || word.includes('#')) && word.includes('='));
}

/** Free text (an error message, a note) with every URL or query string in it redacted. Linear in the text. */
export function redactText(text: string): string {
  if (!text.includes('://') && !text.includes('=')) return text;
  return text
    .split(WORD_BREAK)
    .map((word) => (isUrlish(word) ? redactUrl(word) : word))
    .join('');
}

/** An error as a log field, its message and stack redacted (pino logs `err` as is). */
export function redactError(err: unknown): { type: string; message: string; stack?: string } {
  if (!(err instanceof Error)) return { type: typeof err, message: redactText(String(err)) };
  return { type: err.name, message: redactText(err.message), ...(err.stack ? { stack: redactText(err.stack) } : {}) };
}
