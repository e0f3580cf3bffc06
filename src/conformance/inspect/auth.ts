/**
 * MCP authorization discovery, judged: where the metadata documents are looked for (used by the
 * producer too), and what the recorded exchanges say — the challenge, the protected-resource
 * metadata (RFC 9728), the issuer, its OpenID configuration and RFC 8414 metadata (each on its
 * own), and the client-registration classification (CIMD, DCR, both or none).
 */
import { isObject, parseJson, type JsonObject } from '../json-util.js';
import type { CheckList } from './checks.js';
import type { InspectExchange, Registration } from './types.js';
import { bearerChallenge } from './www-authenticate.js';

export interface AuthSummary {
  required: boolean;
  resourceMetadataUrl: string | null;
  issuer: string | null;
  openidConfiguration: boolean;
  oauthMetadata: boolean;
  registration: Registration;
}

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
export function authServerCandidates(issuer: string): { oidc: Array<{ url: string; form: string }>; oauth: Array<{ url: string; form: string }> } {
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

function docOf(ex: InspectExchange): JsonObject | null {
  if (ex.status !== 200) return null;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) ? r.value : null;
}

function sameResource(resource: string, endpoint: string): boolean {
  const norm = (s: string): string | null => {
    try {
      const u = new URL(s);
      u.hash = '';
      return u.href.replace(/\/+$/, '');
    } catch {
      return null;
    }
  };
  const r = norm(resource);
  const e = norm(endpoint);
  if (r === null || e === null) return false;
  if (r === e) return true;
  // A resource naming the endpoint's origin (or a path prefix of it) also covers it.
  return e.startsWith(`${r}/`) || r === new URL(endpoint).origin;
}

/**
 * Judges the authorization discovery that followed `challenged` (a 401/403). Adds its checks to
 * `checks` and returns the summary of `protocols.mcp.auth`.
 */
export function judgeAuth(endpoint: string, challenged: InspectExchange, exchanges: InspectExchange[], checks: CheckList): AuthSummary {
  const summary: AuthSummary = { required: true, resourceMetadataUrl: null, issuer: null, openidConfiguration: false, oauthMetadata: false, registration: 'none' };
  const www = challenged.headers['www-authenticate'];
  const bearer = bearerChallenge(www);
  const status = challenged.status;
  if (status === 401 && !www) {
    checks.flag('INS-AUTH-001', 'challenge', `HTTP 401 without WWW-Authenticate`, challenged.url, [challenged]);
  } else if (!bearer) {
    checks.flag('INS-AUTH-001', 'challenge', `HTTP ${status} without a Bearer challenge${www ? ` (WWW-Authenticate: ${www.slice(0, 80)})` : ''}`, challenged.url, [challenged]);
  } else {
    checks.pass('challenge', 'INS-AUTH-001', `HTTP ${status} with a Bearer challenge`, challenged.url, [challenged]);
    if (bearer.params['resource_metadata']) {
      checks.pass('challenge names the metadata', 'INS-AUTH-002', `resource_metadata="${bearer.params['resource_metadata']}"`, challenged.url, [challenged]);
    } else {
      checks.flag('INS-AUTH-002', 'challenge names the metadata', 'the Bearer challenge has no resource_metadata parameter; the well-known URLs were tried instead', challenged.url, [challenged]);
    }
  }

  const prmTries = exchanges.filter((e) => e.step === 'auth.prm');
  const prmHit = prmTries.find((e) => docOf(e) !== null) ?? null;
  if (!prmHit) {
    const tried = prmTries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ');
    checks.flag('INS-AUTH-003', 'protected-resource metadata', `no protected-resource metadata found${tried ? `: tried ${tried}` : ''}`, endpoint, prmTries);
    return summary;
  }
  summary.resourceMetadataUrl = prmHit.url;
  checks.pass('protected-resource metadata', 'INS-AUTH-003', `protected-resource metadata at ${prmHit.url} (${prmHit.form ?? 'well-known'})`, prmHit.url, [prmHit]);
  const prm = docOf(prmHit)!;
  const servers = prm.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' && servers[0] !== '' ? servers[0] : null;
  if (typeof prm.resource !== 'string' || !issuer) {
    const what = typeof prm.resource !== 'string' ? 'resource is missing or not a string' : 'authorization_servers is missing, empty or not a list of strings';
    checks.flag('INS-AUTH-004', 'metadata names an authorization server', what, prmHit.url, [prmHit]);
    if (!issuer) return summary;
  } else {
    checks.pass('metadata names an authorization server', 'INS-AUTH-004', `authorization_servers[0] = ${issuer}`, prmHit.url, [prmHit]);
  }
  if (typeof prm.resource === 'string') {
    if (sameResource(prm.resource, endpoint)) checks.pass('metadata resource matches', 'INS-AUTH-005', `resource ${prm.resource}`, prmHit.url, [prmHit]);
    else checks.flag('INS-AUTH-005', 'metadata resource matches', `resource "${prm.resource.slice(0, 200)}" is not the endpoint ${endpoint}`, prmHit.url, [prmHit]);
  }
  summary.issuer = issuer;

  // RFC 8414 §3.3 / OpenID Connect Discovery §4.3: a document whose issuer is not the issuer it
  // was fetched for MUST NOT be used, so it counts neither as found nor for the registration.
  const rejected: InspectExchange[] = [];
  const judgeDoc = (step: 'auth.oidc' | 'auth.oauth', label: string): { doc: JsonObject; ex: InspectExchange } | null => {
    const tries = exchanges.filter((e) => e.step === step);
    const hit = tries.find((e) => docOf(e) !== null) ?? null;
    if (!hit) {
      checks.info(`${label}`, `no ${label} for ${issuer}: ${tries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ') || 'not fetched'}`, issuer, tries);
      return null;
    }
    const doc = docOf(hit)!;
    const problems: string[] = [];
    const issuerOk = doc.issuer === issuer;
    if (!issuerOk) problems.push(`issuer is ${typeof doc.issuer === 'string' ? `"${doc.issuer.slice(0, 200)}"` : 'missing'}, not "${issuer}"`);
    if (typeof doc.authorization_endpoint !== 'string') problems.push('authorization_endpoint is missing');
    if (typeof doc.token_endpoint !== 'string') problems.push('token_endpoint is missing');
    if (problems.length) checks.flag('INS-AUTH-007', `${label} is valid`, `${label} at ${hit.url}: ${problems.join('; ')}${issuerOk ? '' : ' (a client must not use it)'}`, hit.url, [hit]);
    else checks.pass(`${label} is valid`, 'INS-AUTH-007', `${label} at ${hit.url} (${hit.form ?? ''})`, hit.url, [hit]);
    if (!issuerOk) {
      rejected.push(hit);
      return null;
    }
    return { doc, ex: hit };
  };
  const oidc = judgeDoc('auth.oidc', 'OpenID configuration');
  const oauth = judgeDoc('auth.oauth', 'RFC 8414 metadata');
  summary.openidConfiguration = oidc !== null;
  summary.oauthMetadata = oauth !== null;
  const asTries = exchanges.filter((e) => e.step === 'auth.oidc' || e.step === 'auth.oauth');
  if (!oidc && !oauth) {
    // Documents that were read but rejected are INS-AUTH-007's finding, not a dead issuer.
    if (rejected.length) checks.info('authorization server metadata', `no usable metadata for ${issuer}: every document read names another issuer`, issuer, rejected);
    else checks.flag('INS-AUTH-006', 'authorization server metadata', `neither OpenID Connect Discovery nor RFC 8414 metadata could be read from the issuer ${issuer}`, issuer, asTries);
    return summary;
  }
  const used = [oidc, oauth].filter((d): d is { doc: JsonObject; ex: InspectExchange } => d !== null);
  const asEvidence = used.map((d) => d.ex);
  checks.pass('authorization server metadata', 'INS-AUTH-006', `OpenID configuration: ${oidc ? 'yes' : 'no'}; RFC 8414 metadata: ${oauth ? 'yes' : 'no'}`, issuer, asEvidence);
  // Only when no RFC 8414 document answered at all (a rejected one is INS-AUTH-007's finding).
  if (oidc && !oauth && !rejected.some((e) => e.step === 'auth.oauth')) checks.flag('INS-AUTH-010', 'RFC 8414 metadata', `the issuer ${issuer} serves only OpenID Connect Discovery`, issuer, asTries.filter((e) => e.step === 'auth.oauth'));

  const docs = used.map((d) => d.doc);
  const cimd = docs.some((d) => d.client_id_metadata_document_supported === true);
  const dcr = docs.some((d) => typeof d.registration_endpoint === 'string' && d.registration_endpoint !== '');
  summary.registration = cimd && dcr ? 'both' : cimd ? 'cimd' : dcr ? 'dcr' : 'none';
  if (summary.registration === 'dcr') {
    checks.flag('INS-AUTH-008', 'client registration', 'Dynamic Client Registration only (registration_endpoint, RFC 7591): deprecated in favour of Client ID Metadata Documents (client_id_metadata_document_supported: true)', issuer, asEvidence);
  } else if (summary.registration === 'none') {
    checks.flag('INS-AUTH-009', 'client registration', 'neither client_id_metadata_document_supported nor registration_endpoint is advertised', issuer, asEvidence);
  } else {
    checks.pass('client registration', 'INS-AUTH-008', `client registration: ${summary.registration === 'both' ? 'Client ID Metadata Documents and Dynamic Client Registration' : 'Client ID Metadata Documents'}`, issuer, asEvidence);
  }
  return summary;
}
