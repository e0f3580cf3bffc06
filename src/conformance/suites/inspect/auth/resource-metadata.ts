import type { Rule } from '../../../rule.js';
import { AUTH } from '../spec.js';
import { docOf, type AuthInput } from './input.js';

/**
 * INS-AUTH-003 to 005: RFC 9728 protected-resource metadata is published, names an
 * authorization server, and names the endpoint as its resource.
 */

export const PRM_PUBLISHED: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-003',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Protected-resource metadata published',
  description: 'No RFC 9728 protected-resource metadata was found (resource_metadata, path-inserted or root well-known URL).',
  ...AUTH,
  check: checkResourceMetadata,
};

export const PRM_NAMES_SERVER: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-004',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'Protected-resource metadata names an authorization server',
  description:
    'The metadata must be a JSON object with resource and a non-empty authorization_servers list (RFC 9728 §2; MCP requires authorization_servers).',
  section: 'RFC 9728 §2 Protected Resource Metadata',
  link: 'https://www.rfc-editor.org/rfc/rfc9728#section-2',
  check: checkResourceMetadata,
};

export const PRM_RESOURCE: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-005',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'Metadata resource matches the endpoint',
  description: "The metadata's resource is not the MCP endpoint (or its origin): clients must reject it (RFC 9728 §3.3).",
  section: 'RFC 9728 §3.3 Protected Resource Metadata Validation',
  link: 'https://www.rfc-editor.org/rfc/rfc9728#section-3.3',
  check: checkResourceMetadata,
};

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

/** True when the metadata names an issuer to look at next. */
function checkResourceMetadata(input: AuthInput): boolean {
  const { checks, endpoint, summary } = input;
  const prmTries = input.exchanges.filter((e) => e.step === 'auth.prm');
  const prmHit = prmTries.find((e) => docOf(e) !== null) ?? null;
  if (!prmHit) {
    const tried = prmTries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ');
    checks.flag(
      PRM_PUBLISHED,
      'protected-resource metadata',
      `no protected-resource metadata found${tried ? `: tried ${tried}` : ''}`,
      endpoint,
      prmTries,
    );
    return false;
  }
  summary.resourceMetadataUrl = prmHit.url;
  checks.pass(
    'protected-resource metadata',
    PRM_PUBLISHED,
    `protected-resource metadata at ${prmHit.url} (${prmHit.form ?? 'well-known'})`,
    prmHit.url,
    [prmHit],
  );
  const prm = docOf(prmHit)!;
  const servers = prm.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' && servers[0] !== '' ? servers[0] : null;
  if (typeof prm.resource !== 'string' || !issuer) {
    const what =
      typeof prm.resource !== 'string'
        ? 'resource is missing or not a string'
        : 'authorization_servers is missing, empty or not a list of strings';
    checks.flag(PRM_NAMES_SERVER, 'metadata names an authorization server', what, prmHit.url, [prmHit]);
    if (!issuer) return false;
  } else {
    checks.pass('metadata names an authorization server', PRM_NAMES_SERVER, `authorization_servers[0] = ${issuer}`, prmHit.url, [prmHit]);
  }
  if (typeof prm.resource === 'string') {
    if (sameResource(prm.resource, endpoint))
      checks.pass('metadata resource matches', PRM_RESOURCE, `resource ${prm.resource}`, prmHit.url, [prmHit]);
    else
      checks.flag(
        PRM_RESOURCE,
        'metadata resource matches',
        `resource "${prm.resource.slice(0, 200)}" is not the endpoint ${endpoint}`,
        prmHit.url,
        [prmHit],
      );
  }
  summary.issuer = issuer;
  input.issuer = issuer;
  return true;
}
