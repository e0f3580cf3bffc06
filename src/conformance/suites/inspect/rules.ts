import { RuleSet, type Rule } from '../../rule.js';
import { HAS_SKILLS, INPUT_MODES, NO_SECRET, OUTPUT_MODES, SECURITY_SCHEMES, SKILLS_DESCRIBED } from './a2a/lint.js';
import { OIDC_RESOLVES } from './a2a/oidc.js';
import { WELL_KNOWN_PATH } from './a2a/path.js';
import { CHALLENGE, CHALLENGE_NAMES_METADATA } from './auth/challenge.js';
import { CIMD, REGISTRATION_OFFERED } from './auth/registration.js';
import { PRM_NAMES_SERVER, PRM_PUBLISHED, PRM_RESOURCE } from './auth/resource-metadata.js';
import { AS_REACHABLE, AS_VALID, RFC8414 } from './auth/server-metadata.js';
import { PROTOCOL_DETECTED } from './general.js';
import { EXTENSION_KEYS, NO_DEPRECATED } from './mcp/capabilities.js';
import {
  DISCOVER_COMPLETE,
  DISCOVER_NAMES_SERVER,
  INITIALIZE_COMPLETE,
  MODERN_ERROR,
  NOT_LEGACY_SSE,
  SSE_ENDPOINT_EVENT,
} from './mcp/handshake.js';
import { INITIALIZED_ACCEPTED, SESSION_DELETE } from './mcp/session.js';
import { TOOLS_CACHE, TOOLS_LIST, TOOLS_STABLE } from './mcp/tools.js';

/**
 * Suite veronikai-inspect v1: the owner-run `veronikai inspect`, which speaks the protocol
 * (docs/RULES.md). `needs: 'live'` rules read exchanges the inspect made (JSON-RPC POSTs
 * included); `needs: 'document'` rules judge the agent card alone (they also run over the corpus).
 */
export const INSPECT_RULES: readonly Rule[] = [
  PROTOCOL_DETECTED,
  DISCOVER_COMPLETE,
  DISCOVER_NAMES_SERVER,
  INITIALIZE_COMPLETE,
  INITIALIZED_ACCEPTED,
  SESSION_DELETE,
  TOOLS_LIST,
  TOOLS_STABLE,
  TOOLS_CACHE,
  NOT_LEGACY_SSE,
  NO_DEPRECATED,
  EXTENSION_KEYS,
  SSE_ENDPOINT_EVENT,
  MODERN_ERROR,
  CHALLENGE,
  CHALLENGE_NAMES_METADATA,
  PRM_PUBLISHED,
  PRM_NAMES_SERVER,
  PRM_RESOURCE,
  AS_REACHABLE,
  AS_VALID,
  CIMD,
  REGISTRATION_OFFERED,
  RFC8414,
  WELL_KNOWN_PATH,
  HAS_SKILLS,
  SKILLS_DESCRIBED,
  INPUT_MODES,
  OUTPUT_MODES,
  SECURITY_SCHEMES,
  NO_SECRET,
  OIDC_RESOLVES,
];

export const INSPECT_SET = new RuleSet(INSPECT_RULES);

export { PROTOCOL_DETECTED } from './general.js';
