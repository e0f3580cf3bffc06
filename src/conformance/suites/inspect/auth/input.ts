import type { CheckList } from '../../../inspect/checks.js';
import type { InspectExchange, Registration } from '../../../inspect/types.js';
import { isObject, parseJson, type JsonObject } from '../../../../core/json-util.js';

export interface AuthSummary {
  required: boolean;
  resourceMetadataUrl: string | null;
  issuer: string | null;
  openidConfiguration: boolean;
  oauthMetadata: boolean;
  registration: Registration;
}

/** What the authorization rules read (the exchanges after a 401/403) and what they found so far. */
export interface AuthInput {
  checks: CheckList;
  endpoint: string;
  /** The exchange that answered 401 or 403. */
  challenged: InspectExchange;
  exchanges: InspectExchange[];
  summary: AuthSummary;
  /** The issuer the protected-resource metadata names (set by INS-AUTH-004's group). */
  issuer: string;
  /** The authorization server metadata documents that were usable, and the exchanges they came in. */
  docs: Array<{ doc: JsonObject; ex: InspectExchange }>;
}

/** The JSON object a 200 answer holds, or null. */
export function docOf(ex: InspectExchange): JsonObject | null {
  if (ex.status !== 200) return null;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) ? r.value : null;
}
