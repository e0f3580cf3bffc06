import type { Rule } from '../../../rule.js';
import { REGISTRATION } from '../spec.js';
import type { AuthInput } from './input.js';

/** INS-AUTH-008 and 009: the issuer offers a client registration mechanism, Client ID Metadata Documents preferred. */

export const CIMD: Rule<AuthInput> = {
  id: 'INS-AUTH-008',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'Client ID Metadata Documents supported',
  description:
    'The issuer offers only Dynamic Client Registration (registration_endpoint): MCP 2025-11-25 makes Client ID Metadata Documents the recommended mechanism and keeps DCR for backwards compatibility.',
  ...REGISTRATION,
  check: checkRegistration,
};

export const REGISTRATION_OFFERED: Rule<AuthInput> = {
  id: 'INS-AUTH-009',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['INS-AUTH-003'],
  title: 'A client registration mechanism is offered',
  description:
    'The issuer advertises neither client_id_metadata_document_supported nor a registration_endpoint: only pre-registered clients can connect.',
  ...REGISTRATION,
  check: checkRegistration,
};

function checkRegistration({ checks, summary, issuer, docs }: AuthInput): void {
  const cimd = docs.some((d) => d.doc.client_id_metadata_document_supported === true);
  const dcr = docs.some((d) => typeof d.doc.registration_endpoint === 'string' && d.doc.registration_endpoint !== '');
  summary.registration = cimd && dcr ? 'both' : cimd ? 'cimd' : dcr ? 'dcr' : 'none';
  const evidence = docs.map((d) => d.ex);
  if (summary.registration === 'dcr') {
    checks.flag(
      CIMD,
      'client registration',
      'Dynamic Client Registration only (registration_endpoint, RFC 7591): deprecated in favour of Client ID Metadata Documents (client_id_metadata_document_supported: true)',
      issuer,
      evidence,
    );
  } else if (summary.registration === 'none') {
    checks.flag(
      REGISTRATION_OFFERED,
      'client registration',
      'neither client_id_metadata_document_supported nor registration_endpoint is advertised',
      issuer,
      evidence,
    );
  } else {
    checks.pass(
      'client registration',
      CIMD,
      `client registration: ${summary.registration === 'both' ? 'Client ID Metadata Documents and Dynamic Client Registration' : 'Client ID Metadata Documents'}`,
      issuer,
      evidence,
    );
  }
}
