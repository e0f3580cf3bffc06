/**
 * The rules of `veronikai inspect` (suite veronikai-inspect v1), shaped like the entries of
 * src/conformance/catalogue.ts so the integrator can list them beside the others in
 * `veronikai check --list-rules` (see INSPECT_SUITE). IDs are stable and never reused.
 *
 * `needs: 'live'` rules read exchanges the inspect made (JSON-RPC POSTs included);
 * `needs: 'document'` rules judge the agent card alone (they also run over the corpus).
 */
import type { Rule, RuleSpec } from '../catalogue.js';
import { SUITES } from '../version.js';

/** The suite every inspect rule belongs to. */
export const INSPECT_SUITE = SUITES.inspect;

/** A rule of the inspect suite: a catalogue Rule whose suite key is `inspect`. */
export type InspectRule = Omit<Rule, 'suite'> & { suite: 'inspect'; protocol: 'mcp' | 'a2a' | 'any' };

const MCP26 = 'https://modelcontextprotocol.io/specification/2026-07-28';
const MCP25 = 'https://modelcontextprotocol.io/specification/2025-11-25';
const MCP2506 = 'https://modelcontextprotocol.io/specification/2025-06-18';
const SCHEMA26 = 'https://github.com/modelcontextprotocol/modelcontextprotocol/blob/2026-07-28/schema/2026-07-28/schema.json';
const A2A = 'https://a2a-protocol.org/v0.3.0/specification/';

const DISCOVER: RuleSpec = { section: 'MCP 2026-07-28 server/discover', url: `${MCP26}/server/discover` };
const STREAMABLE26: RuleSpec = { section: 'MCP 2026-07-28 Streamable HTTP', url: `${MCP26}/basic/transports/streamable-http` };
const LIFECYCLE: RuleSpec = { section: 'MCP 2025-11-25 Lifecycle, Initialization', url: `${MCP25}/basic/lifecycle#initialization` };
const TRANSPORTS25: RuleSpec = { section: 'MCP 2025-11-25 Transports, Streamable HTTP', url: `${MCP25}/basic/transports#streamable-http` };
const SESSIONS25: RuleSpec = { section: 'MCP 2025-11-25 Transports, Session Management', url: `${MCP25}/basic/transports#session-management` };
const SSE2024: RuleSpec = { section: 'MCP 2024-11-05 Transports, HTTP with SSE (deprecated since 2025-03-26)', url: 'https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse' };
const TOOLS: RuleSpec = { section: 'MCP 2025-11-25 Tools, Listing Tools', url: `${MCP25}/server/tools#listing-tools` };
const CACHE: RuleSpec = { section: 'MCP 2026-07-28 schema: CacheableResult (ListToolsResult.ttlMs, cacheScope)', url: SCHEMA26 };
const CHANGELOG26: RuleSpec = { section: 'MCP 2026-07-28 Key Changes (Roots, Sampling, Logging deprecated)', url: `${MCP26}/changelog` };
const CAPS26: RuleSpec = { section: 'MCP 2026-07-28 schema: ServerCapabilities.extensions (key naming rules of _meta)', url: SCHEMA26 };
const AUTH: RuleSpec = { section: 'MCP 2025-11-25 Authorization, Protected Resource Metadata Discovery', url: `${MCP25}/basic/authorization#protected-resource-metadata-discovery-requirements` };
const AS_DISCOVERY: RuleSpec = { section: 'MCP 2025-11-25 Authorization, Authorization Server Metadata Discovery', url: `${MCP25}/basic/authorization#authorization-server-metadata-discovery` };
const REGISTRATION: RuleSpec = { section: 'MCP 2025-11-25 Authorization, Client Registration Approaches', url: `${MCP25}/basic/authorization#client-registration-approaches` };
const CARD = (section: string, anchor: string): RuleSpec => ({ section: `A2A 0.3.0 ${section}`, url: A2A + anchor });

export const INSPECT_RULES: readonly InspectRule[] = [
  // ---- any protocol ----
  { id: 'INS-GEN-001', suite: 'inspect', protocol: 'any', severity: 'fail', basis: 'policy', needs: 'live', title: 'Requested protocol detected', description: 'The protocol asked for (--protocol mcp or a2a; with auto, either) was not detected at the URL.', spec: { section: 'MCP 2025-11-25 Transports; A2A 0.3.0 §5.3 Recommended location', url: `${MCP25}/basic/transports` } },

  // ---- MCP handshake, both eras ----
  { id: 'INS-MCP-001', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'server/discover result is complete', description: 'A server that answers server/discover must return a DiscoverResult with resultType, supportedVersions, capabilities, ttlMs and cacheScope.', spec: DISCOVER },
  { id: 'INS-MCP-002', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'server/discover names the server', description: 'The DiscoverResult SHOULD carry _meta["io.modelcontextprotocol/serverInfo"] with name and version.', spec: DISCOVER },
  { id: 'INS-MCP-003', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'initialize result is complete', description: 'The legacy initialize handshake must answer with protocolVersion, capabilities and serverInfo (name, version).', spec: LIFECYCLE },
  { id: 'INS-MCP-004', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'notifications/initialized accepted with 202', description: 'A notification POSTed over Streamable HTTP must be answered 202 Accepted with no body.', spec: TRANSPORTS25 },
  { id: 'INS-MCP-005', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Session ends on DELETE', description: 'A DELETE with the Mcp-Session-Id should end the session (2xx), or be refused with 405 when clients may not end sessions.', spec: SESSIONS25 },
  { id: 'INS-MCP-006', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'tools/list answers', description: 'A server that declares the tools capability must answer tools/list with a tools list whose items have a name and an inputSchema of type object.', spec: TOOLS },
  { id: 'INS-MCP-007', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'policy', needs: 'live', title: 'Tool list is stable', description: 'Two identical tools/list calls returned the tools in a different order or with different definitions (clients that index tools by position break).', spec: TOOLS },
  { id: 'INS-MCP-008', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Tool list carries cache metadata', description: 'On the 2026-07-28 revision a ListToolsResult must carry ttlMs and cacheScope ("public" or "private").', spec: CACHE },
  { id: 'INS-MCP-009', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Not the deprecated HTTP+SSE transport', description: 'The server speaks only the HTTP+SSE transport of 2024-11-05, deprecated since 2025-03-26 and on a shortened removal track.', spec: SSE2024 },
  { id: 'INS-MCP-010', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'No deprecated features on a modern server', description: 'A 2026-07-28 server declares Roots, Sampling or Logging, which that revision deprecates (removal no earlier than 2027-07-28).', spec: CHANGELOG26 },
  { id: 'INS-MCP-011', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Extension identifiers are well formed', description: 'Keys of capabilities.extensions must follow the _meta key rules with a mandatory prefix (e.g. io.modelcontextprotocol/tasks).', spec: CAPS26 },
  { id: 'INS-MCP-012', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Legacy SSE stream opens with an endpoint event', description: 'A legacy HTTP+SSE server must send an endpoint event first, and answer the POSTed initialize on the stream.', spec: SSE2024 },
  { id: 'INS-MCP-013', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Modern errors are well formed', description: 'A 2026-07-28 server rejecting a protocol version must answer 400 with UnsupportedProtocolVersionError (-32022) listing the supported versions.', spec: STREAMABLE26 },

  // ---- MCP authorization discovery ----
  { id: 'INS-AUTH-001', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: '401 carries a challenge', description: 'A 401 must carry WWW-Authenticate (RFC 9110 §11.6.1); MCP servers use the Bearer scheme.', spec: AUTH },
  { id: 'INS-AUTH-002', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Challenge names the resource metadata', description: 'The Bearer challenge has no resource_metadata parameter: clients must guess the well-known URL (RFC 9728 §5.1; required by MCP 2025-06-18).', spec: AUTH },
  { id: 'INS-AUTH-003', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Protected-resource metadata published', description: 'No RFC 9728 protected-resource metadata was found (resource_metadata, path-inserted or root well-known URL).', spec: AUTH },
  { id: 'INS-AUTH-004', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Protected-resource metadata names an authorization server', description: 'The metadata must be a JSON object with resource and a non-empty authorization_servers list (RFC 9728 §2; MCP requires authorization_servers).', spec: { section: 'RFC 9728 §2 Protected Resource Metadata', url: 'https://www.rfc-editor.org/rfc/rfc9728#section-2' } },
  { id: 'INS-AUTH-005', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Metadata resource matches the endpoint', description: 'The metadata\'s resource is not the MCP endpoint (or its origin): clients must reject it (RFC 9728 §3.3).', spec: { section: 'RFC 9728 §3.3 Protected Resource Metadata Validation', url: 'https://www.rfc-editor.org/rfc/rfc9728#section-3.3' } },
  { id: 'INS-AUTH-006', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Authorization server metadata reachable', description: 'Neither OpenID Connect Discovery nor RFC 8414 metadata could be read from the issuer (a dead issuer).', spec: AS_DISCOVERY },
  { id: 'INS-AUTH-007', suite: 'inspect', protocol: 'mcp', severity: 'fail', basis: 'spec', needs: 'live', title: 'Authorization server metadata is valid', description: 'A metadata document must be a JSON object whose issuer equals the issuer it was fetched for, with authorization_endpoint and token_endpoint (RFC 8414 §3.3; OIDC Discovery §4.3).', spec: { section: 'RFC 8414 §3.3 Authorization Server Metadata Validation', url: 'https://www.rfc-editor.org/rfc/rfc8414#section-3.3' } },
  { id: 'INS-AUTH-008', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'Client ID Metadata Documents supported', description: 'The issuer offers only Dynamic Client Registration (registration_endpoint): MCP 2025-11-25 makes Client ID Metadata Documents the recommended mechanism and keeps DCR for backwards compatibility.', spec: REGISTRATION },
  { id: 'INS-AUTH-009', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'A client registration mechanism is offered', description: 'The issuer advertises neither client_id_metadata_document_supported nor a registration_endpoint: only pre-registered clients can connect.', spec: REGISTRATION },
  { id: 'INS-AUTH-010', suite: 'inspect', protocol: 'mcp', severity: 'warn', basis: 'spec', needs: 'live', title: 'RFC 8414 metadata published', description: 'The issuer serves only OpenID Connect Discovery: clients of MCP 2025-06-18, which required RFC 8414, will not find it.', spec: { section: 'MCP 2025-06-18 Authorization, Server Metadata Discovery', url: `${MCP2506}/basic/authorization#server-metadata-discovery` } },

  // ---- A2A spec lint ----
  { id: 'INS-A2A-001', suite: 'inspect', protocol: 'a2a', severity: 'warn', basis: 'spec', needs: 'live', title: 'Card at the current well-known path', description: 'The card is served only at the legacy /.well-known/agent.json (before 0.3.0), not at /.well-known/agent-card.json.', spec: CARD('§5.3 Recommended location', '#53-recommended-location') },
  { id: 'INS-A2A-002', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'spec', needs: 'document', title: 'At least one skill', description: 'The card declares no skill: routing agents select agents by their skills.', spec: CARD('§5.5.4 AgentSkill object', '#554-agentskill-object') },
  { id: 'INS-A2A-003', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'spec', needs: 'document', title: 'Every skill described', description: 'A skill has no non-blank description: it is invisible to routing by description.', spec: CARD('§5.5.4 AgentSkill object', '#554-agentskill-object') },
  { id: 'INS-A2A-004', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'spec', needs: 'document', title: 'Default input modes declared', description: 'defaultInputModes is missing or empty: a client cannot tell which content types the agent accepts.', spec: CARD('§5.5 AgentCard object structure', '#55-agentcard-object-structure') },
  { id: 'INS-A2A-005', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'spec', needs: 'document', title: 'Default output modes declared', description: 'defaultOutputModes is missing or empty: a client cannot tell which content types the agent produces.', spec: CARD('§5.5 AgentCard object structure', '#55-agentcard-object-structure') },
  { id: 'INS-A2A-006', suite: 'inspect', protocol: 'a2a', severity: 'warn', basis: 'policy', needs: 'document', title: 'Security schemes declared', description: 'A production-shaped card (a public https endpoint) declares no securitySchemes at all.', spec: CARD('§5.5 AgentCard object structure (securitySchemes)', '#55-agentcard-object-structure') },
  { id: 'INS-A2A-007', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'policy', needs: 'document', title: 'No embedded secret', description: 'The public card text contains a credential-shaped string (provider key prefix, bearer token, JWT or private key) that passed the entropy test; the match is reported redacted.', spec: CARD('§4 Authentication and Authorization (credentials travel out of band)', '#4-authentication-and-authorization') },
  { id: 'INS-A2A-008', suite: 'inspect', protocol: 'a2a', severity: 'fail', basis: 'spec', needs: 'live', title: 'openIdConnectUrl resolves', description: 'A declared openIdConnectUrl must answer with a JSON OpenID configuration carrying issuer or authorization_endpoint.', spec: CARD('§5.5 AgentCard securitySchemes (OpenIdConnectSecurityScheme)', '#55-agentcard-object-structure') },
];

const BY_ID = new Map(INSPECT_RULES.map((r) => [r.id, r]));

export function getInspectRule(id: string): InspectRule | undefined {
  return BY_ID.get(id);
}
