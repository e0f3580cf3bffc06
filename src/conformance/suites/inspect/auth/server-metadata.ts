import type { InspectExchange } from '../../../inspect/types.js';
import type { JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { AS_DISCOVERY } from '../spec.js';
import { docOf, type AuthInput } from './input.js';

/**
 * INS-AUTH-006, 007 and 010: the issuer's OpenID configuration and RFC 8414 metadata (each on
 * its own) can be read and are valid, and RFC 8414 is among them. RFC 8414 §3.3 / OpenID Connect
 * Discovery §4.3: a document whose issuer is not the issuer it was fetched for MUST NOT be used,
 * so it counts neither as found nor for the registration.
 */

export const AS_REACHABLE: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-006',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'Authorization server metadata reachable',
  description: 'Neither OpenID Connect Discovery nor RFC 8414 metadata could be read from the issuer (a dead issuer).',
  ...AS_DISCOVERY,
  check: checkServerMetadata,
};

export const AS_VALID: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-007',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'Authorization server metadata is valid',
  description:
    'A metadata document must be a JSON object whose issuer equals the issuer it was fetched for, with authorization_endpoint and token_endpoint (RFC 8414 §3.3; OIDC Discovery §4.3).',
  section: 'RFC 8414 §3.3 Authorization Server Metadata Validation',
  link: 'https://www.rfc-editor.org/rfc/rfc8414#section-3.3',
  check: checkServerMetadata,
};

export const RFC8414: Rule<AuthInput, boolean> = {
  id: 'INS-AUTH-010',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'RFC 8414 metadata published',
  description: 'The issuer serves only OpenID Connect Discovery: clients of MCP 2025-06-18, which required RFC 8414, will not find it.',
  section: 'MCP 2025-06-18 Authorization, Server Metadata Discovery',
  link: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization#server-metadata-discovery',
  check: checkServerMetadata,
};

type Used = { doc: JsonObject; ex: InspectExchange };

/** True when a usable metadata document was read (the registration rules need one). */
function checkServerMetadata(input: AuthInput): boolean {
  const { checks, summary, issuer } = input;
  const rejected: InspectExchange[] = [];
  const oidc = judgeDoc(input, 'auth.oidc', 'OpenID configuration', rejected);
  const oauth = judgeDoc(input, 'auth.oauth', 'RFC 8414 metadata', rejected);
  summary.openidConfiguration = oidc !== null;
  summary.oauthMetadata = oauth !== null;
  const asTries = input.exchanges.filter((e) => e.step === 'auth.oidc' || e.step === 'auth.oauth');
  if (!oidc && !oauth) {
    // Documents that were read but rejected are INS-AUTH-007's finding, not a dead issuer.
    if (rejected.length)
      checks.info(
        'authorization server metadata',
        `no usable metadata for ${issuer}: every document read names another issuer`,
        issuer,
        rejected,
      );
    else
      checks.flag(
        AS_REACHABLE,
        'authorization server metadata',
        `neither OpenID Connect Discovery nor RFC 8414 metadata could be read from the issuer ${issuer}`,
        issuer,
        asTries,
      );
    return false;
  }
  input.docs = [oidc, oauth].filter((d): d is Used => d !== null);
  checks.pass(
    'authorization server metadata',
    AS_REACHABLE,
    `OpenID configuration: ${oidc ? 'yes' : 'no'}; RFC 8414 metadata: ${oauth ? 'yes' : 'no'}`,
    issuer,
    input.docs.map((d) => d.ex),
  );
  // Only when no RFC 8414 document answered at all (a rejected one is INS-AUTH-007's finding).
  if (oidc && !oauth && !rejected.some((e) => e.step === 'auth.oauth'))
    checks.flag(
      RFC8414,
      'RFC 8414 metadata',
      `the issuer ${issuer} serves only OpenID Connect Discovery`,
      issuer,
      asTries.filter((e) => e.step === 'auth.oauth'),
    );
  return true;
}

/** INS-AUTH-007 on the first document one discovery answered; the document when it can be used. */
function judgeDoc(
  { checks, exchanges, issuer }: AuthInput,
  step: 'auth.oidc' | 'auth.oauth',
  label: string,
  rejected: InspectExchange[],
): Used | null {
  const tries = exchanges.filter((e) => e.step === step);
  const hit = tries.find((e) => docOf(e) !== null) ?? null;
  if (!hit) {
    checks.info(
      `${label}`,
      `no ${label} for ${issuer}: ${tries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ') || 'not fetched'}`,
      issuer,
      tries,
    );
    return null;
  }
  const doc = docOf(hit)!;
  const problems: string[] = [];
  const issuerOk = doc.issuer === issuer;
  if (!issuerOk)
    problems.push(`issuer is ${typeof doc.issuer === 'string' ? `"${doc.issuer.slice(0, 200)}"` : 'missing'}, not "${issuer}"`);
  if (typeof doc.authorization_endpoint !== 'string') problems.push('authorization_endpoint is missing');
  if (typeof doc.token_endpoint !== 'string') problems.push('token_endpoint is missing');
  if (problems.length)
    checks.flag(
      AS_VALID,
      `${label} is valid`,
      `${label} at ${hit.url}: ${problems.join('; ')}${issuerOk ? '' : ' (a client must not use it)'}`,
      hit.url,
      [hit],
    );
  else checks.pass(`${label} is valid`, AS_VALID, `${label} at ${hit.url} (${hit.form ?? ''})`, hit.url, [hit]);
  if (!issuerOk) {
    rejected.push(hit);
    return null;
  }
  return { doc, ex: hit };
}
