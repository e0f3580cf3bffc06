import type { Rule } from '../../rule.js';
import {
  DESCRIPTION_LENGTH,
  DESCRIPTION_NOT_NAME,
  DESCRIPTION_NOT_PLACEHOLDER,
  DESCRIPTION_NOT_TITLE,
  DESCRIPTION_PRESENT,
} from './description.js';
import type { McpInput } from './input.js';
import { REMOTE_HTTPS, REMOTE_NO_TEMPLATE, REMOTE_PUBLIC, REMOTE_TYPE, REMOTES_PRESENT } from './remotes.js';
import { REPOSITORY_OR_WEBSITE, REPOSITORY_URL } from './repository.js';
import { SERVER_JSON_OBJECT } from './server-json.js';
import {
  AUTH_DESCRIBED,
  DECLARED_REMOTE,
  ENDPOINT_EXISTS,
  LEGACY_ENDPOINT_EVENT,
  METADATA_PUBLISHED,
  METHOD_NOT_ALLOWED,
  NO_SERVER_ERROR,
  NOT_HTML,
  SSE_OR_405,
} from './transport.js';
import { VERSION_NOT_ZERO, VERSION_PRESENT, VERSION_SEMVER } from './version.js';

/**
 * Suite veronikai-mcp-conformance: quality rules on the server.json and transport rules on the
 * probe's one GET (docs/RULES.md). The rules run in this order; a group that shares a check runs
 * at its first rule, so the findings of a verdict come in this order too.
 */
export const MCP_RULES: ReadonlyArray<Rule<McpInput>> = [
  SERVER_JSON_OBJECT,
  DESCRIPTION_PRESENT,
  DESCRIPTION_LENGTH,
  DESCRIPTION_NOT_PLACEHOLDER,
  DESCRIPTION_NOT_NAME,
  VERSION_PRESENT,
  VERSION_SEMVER,
  REMOTES_PRESENT,
  REMOTE_TYPE,
  REMOTE_HTTPS,
  REMOTE_PUBLIC,
  REPOSITORY_URL,
  REPOSITORY_OR_WEBSITE,
  VERSION_NOT_ZERO,
  DESCRIPTION_NOT_TITLE,
  REMOTE_NO_TEMPLATE,
  SSE_OR_405,
  LEGACY_ENDPOINT_EVENT,
  AUTH_DESCRIBED,
  NOT_HTML,
  ENDPOINT_EXISTS,
  NO_SERVER_ERROR,
  METADATA_PUBLISHED,
  METHOD_NOT_ALLOWED,
  DECLARED_REMOTE,
];

/** The quality rules (a server.json alone) and the transport rules (the GET alone). */
export const MCP_QUALITY_RULES = MCP_RULES.filter((r) => r.component === 'server.json');
export const MCP_TRANSPORT_RULES = MCP_RULES.filter((r) => r.component === 'endpoint');

export type { McpInput, TransportOutcome } from './input.js';
