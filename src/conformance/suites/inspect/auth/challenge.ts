import type { Rule } from '../../../rule.js';
import { bearerChallenge } from '../../../inspect/www-authenticate.js';
import { AUTH } from '../spec.js';
import type { AuthInput } from './input.js';

/** INS-AUTH-001 and 002: a 401/403 carries a Bearer challenge, and the challenge names the resource metadata. */

export const CHALLENGE: Rule<AuthInput> = {
  id: 'INS-AUTH-001',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: '401 carries a challenge',
  description: 'A 401 must carry WWW-Authenticate (RFC 9110 §11.6.1); MCP servers use the Bearer scheme.',
  ...AUTH,
  check: checkChallenge,
};

export const CHALLENGE_NAMES_METADATA: Rule<AuthInput> = {
  id: 'INS-AUTH-002',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-001'],
  title: 'Challenge names the resource metadata',
  description:
    'The Bearer challenge has no resource_metadata parameter: clients must guess the well-known URL (RFC 9728 §5.1; required by MCP 2025-06-18).',
  ...AUTH,
  check: checkChallenge,
};

function checkChallenge({ checks, challenged }: AuthInput): void {
  const www = challenged.headers['www-authenticate'];
  const bearer = bearerChallenge(www);
  const status = challenged.status;
  if (status === 401 && !www) return checks.flag(CHALLENGE, 'challenge', `HTTP 401 without WWW-Authenticate`, challenged.url, [challenged]);
  if (!bearer)
    return checks.flag(
      CHALLENGE,
      'challenge',
      `HTTP ${status} without a Bearer challenge${www ? ` (WWW-Authenticate: ${www.slice(0, 80)})` : ''}`,
      challenged.url,
      [challenged],
    );
  checks.pass('challenge', CHALLENGE, `HTTP ${status} with a Bearer challenge`, challenged.url, [challenged]);
  if (bearer.params['resource_metadata']) {
    checks.pass(
      'challenge names the metadata',
      CHALLENGE_NAMES_METADATA,
      `resource_metadata="${bearer.params['resource_metadata']}"`,
      challenged.url,
      [challenged],
    );
  } else {
    checks.flag(
      CHALLENGE_NAMES_METADATA,
      'challenge names the metadata',
      'the Bearer challenge has no resource_metadata parameter; the well-known URLs were tried instead',
      challenged.url,
      [challenged],
    );
  }
}
