/**
 * Where MCP authorization discovery looks (the producer asks these URLs; the judge is
 * suites/inspect/auth/): the protected-resource metadata URLs and the issuer's metadata URLs.
 */

function trimSlash(path: string): string {
  return path === '/' ? '' : path.replace(/\/+$/, '');
}

/** RFC 9728 §3.1 / MCP: `resource_metadata` when given, else the path-inserted then the root well-known URL. */
export function prmCandidates(endpoint: string, resourceMetadata: string | null): Array<{ url: string; form: string }> {
  if (resourceMetadata) {
    try {
      return [{ url: new URL(resourceMetadata, endpoint).href, form: 'resource_metadata' }];
    } catch {
      // an unusable value: fall through to the well-known URLs (the judge flags it)
    }
  }
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return [];
  }
  const path = trimSlash(u.pathname);
  const out: Array<{ url: string; form: string }> = [];
  if (path) out.push({ url: `${u.origin}/.well-known/oauth-protected-resource${path}`, form: 'path-inserted' });
  out.push({ url: `${u.origin}/.well-known/oauth-protected-resource`, form: 'root' });
  return out;
}

/**
 * The issuer's metadata URLs, two independent lists. RFC 8414 §3.1 inserts the well-known
 * suffix before the issuer's path; OpenID Connect Discovery §4 appends it to the issuer; MCP
 * 2025-11-25 asks clients to try both forms of each. Without a path both forms are one URL.
 */
export function authServerCandidates(issuer: string): {
  oidc: Array<{ url: string; form: string }>;
  oauth: Array<{ url: string; form: string }>;
} {
  let u: URL;
  try {
    u = new URL(issuer);
  } catch {
    return { oidc: [], oauth: [] };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { oidc: [], oauth: [] };
  const path = trimSlash(u.pathname);
  const both = (suffix: string): Array<{ url: string; form: string }> =>
    path
      ? [
          { url: `${u.origin}/.well-known/${suffix}${path}`, form: 'path-inserted' },
          { url: `${u.origin}${path}/.well-known/${suffix}`, form: 'path-appended' },
        ]
      : [{ url: `${u.origin}/.well-known/${suffix}`, form: 'root' }];
  return { oidc: both('openid-configuration'), oauth: both('oauth-authorization-server') };
}
