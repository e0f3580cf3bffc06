/**
 * MCP authorization discovery after a 401/403, as a client would follow it:
 * `resource_metadata` from the Bearer challenge, else the RFC 9728 well-known URLs
 * (path-inserted, then root); `authorization_servers[0]` as the issuer; then the issuer's
 * OpenID configuration and its RFC 8414 metadata, each fetched independently (both path
 * forms), never one as the other's fallback. No credential is sent to these URLs.
 */
import { bearerChallenge } from '../conformance/inspect/www-authenticate.js';
import { isObject, parseJson } from '../core/json-util.js';
import { authServerCandidates, prmCandidates } from '../conformance/inspect/auth.js';
import type { InspectExchange } from '../conformance/inspect/types.js';
import { METADATA_MAX_BYTES } from '../http/limits.js';
import type { InspectSession } from './session.js';

function jsonObject(ex: InspectExchange | null): Record<string, unknown> | null {
  if (!ex || ex.status !== 200) return null;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) ? r.value : null;
}

async function fetchFirst(
  s: InspectSession,
  step: InspectExchange['step'],
  candidates: Array<{ url: string; form: string }>,
): Promise<Record<string, unknown> | null> {
  for (const c of candidates) {
    const ex = await s.send(step, 'GET', c.url, {
      headers: { accept: 'application/json' },
      maxBytes: METADATA_MAX_BYTES,
      follow: true,
      form: c.form,
      credentials: false,
    });
    const doc = jsonObject(ex);
    if (doc) return doc;
    if (!ex) return null;
  }
  return null;
}

export async function discoverAuthorization(s: InspectSession, endpoint: string, challenged: InspectExchange): Promise<void> {
  const challenge = bearerChallenge(challenged.headers['www-authenticate']);
  const prm = await fetchFirst(s, 'auth.prm', prmCandidates(endpoint, challenge?.params['resource_metadata'] ?? null));
  if (!prm) return;
  const servers = prm.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : null;
  if (!issuer) return;
  const { oidc, oauth } = authServerCandidates(issuer);
  if (oidc.length === 0 && oauth.length === 0) return;
  // Independently: each list is walked to its own first document, whatever the other found.
  await fetchFirst(s, 'auth.oidc', oidc);
  await fetchFirst(s, 'auth.oauth', oauth);
}
