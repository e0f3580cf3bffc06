import type { CheckList } from '../../../inspect/checks.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { CHALLENGE } from './challenge.js';
import type { AuthInput, AuthSummary } from './input.js';
import { CIMD } from './registration.js';
import { PRM_PUBLISHED } from './resource-metadata.js';
import { AS_REACHABLE } from './server-metadata.js';

/**
 * MCP authorization discovery, judged: what the recorded exchanges say — the challenge, the
 * protected-resource metadata (RFC 9728), the issuer, its OpenID configuration and RFC 8414
 * metadata (each on its own), and the client-registration classification (CIMD, DCR, both or
 * none). Each group runs when the one before it found what it reads.
 */
export function judgeAuth(endpoint: string, challenged: InspectExchange, exchanges: InspectExchange[], checks: CheckList): AuthSummary {
  const input: AuthInput = {
    checks,
    endpoint,
    challenged,
    exchanges,
    summary: {
      required: true,
      resourceMetadataUrl: null,
      issuer: null,
      openidConfiguration: false,
      oauthMetadata: false,
      registration: 'none',
    },
    issuer: '',
    docs: [],
  };
  CHALLENGE.check(input);
  if (PRM_PUBLISHED.check(input) && AS_REACHABLE.check(input)) CIMD.check(input);
  return input.summary;
}

export type { AuthSummary } from './input.js';
