import { INSPECT_RULES } from './inspect/catalogue.js';
import { PLUGIN_RULES } from './plugin/catalogue.js';
import type { Severity } from './types.js';
import { CHECKER_VERSION, SUITES, type SuiteKey } from './version.js';

/**
 * The one rule catalogue. Every finding names a rule from here; IDs are stable and never
 * reused. `basis` says whether a rule restates a protocol requirement (`spec`) or is a
 * VeronikAI suite policy stricter than the protocol (`policy`, seed 000); the link then
 * points at the protocol text the policy is about.
 */
export interface RuleSpec {
  section: string;
  url: string;
}

export interface Rule {
  id: string;
  suite: SuiteKey;
  severity: Severity;
  title: string;
  /** What a failure means, in one sentence. */
  description: string;
  basis: 'spec' | 'policy';
  spec: RuleSpec;
  /**
   * `document`: judged from the document alone (a file check runs it);
   * `live`: needs an HTTP observation (only a URL check or a probe runs it).
   */
  needs: 'document' | 'live';
  /** When this rule fails, the suite's other rules cannot be evaluated. */
  prerequisite?: boolean;
}

const A2A_030 = 'https://a2a-protocol.org/v0.3.0/specification/';
const A2A_PROTO_101 = 'https://github.com/a2aproject/A2A/blob/v1.0.1/specification/a2a.proto';
const MCP_TRANSPORTS = 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports';
const MCP_AUTH = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization';
const SERVER_JSON_DOC = 'https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/server-json/generic-server-json.md';
const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const card = (section: string, anchor: string): RuleSpec => ({ section: `A2A 0.3.0 ${section}`, url: A2A_030 + anchor });
const serverJson = (field: string): RuleSpec => ({ section: `server.json ${field}`, url: SERVER_JSON_DOC });

// Sections that several rules cite.
const LOCATION = card('§5.3 Recommended location', '#53-recommended-location');
const CARD_OBJECT = card('§5.5 AgentCard object structure', '#55-agentcard-object-structure');
const CARD_OBJECT_101 = card('§5.5 AgentCard object structure (1.0.1: a2a.proto)', '#55-agentcard-object-structure');
const SKILL = card('§5.5.4 AgentSkill object', '#554-agentskill-object');
const STREAMABLE: RuleSpec = { section: 'MCP 2025-06-18 Transports, Streamable HTTP', url: `${MCP_TRANSPORTS}#streamable-http` };
const LISTENING: RuleSpec = { section: 'MCP 2025-06-18 Transports, Listening for messages from the server', url: `${MCP_TRANSPORTS}#listening-for-messages-from-the-server` };
const PRM_DISCOVERY = `${MCP_AUTH}#protected-resource-metadata-discovery-requirements`;

/** One suite's rows: the table states each rule on one line and the suite once. */
function inSuite(suite: SuiteKey, rows: Array<Omit<Rule, 'suite'>>): Rule[] {
  return rows.map(({ id, ...rest }) => ({ id, suite, ...rest }));
}

export const RULES: readonly Rule[] = [
  // ---- A2A agent card, suite veronikai-a2a-get-card v1 (seed 000) ----
  ...inSuite('a2aCard', [
    { id: 'A2A-CARD-001', severity: 'fail', basis: 'policy', needs: 'live', prerequisite: true, title: 'Agent card is public', description: 'The card URL answered HTTP 401 or 403: the agent card is not public.', spec: LOCATION },
    { id: 'A2A-CARD-002', severity: 'fail', basis: 'spec', needs: 'live', prerequisite: true, title: 'Agent card is served', description: 'No URL of the card chain (listing URL, /.well-known/agent-card.json, /.well-known/agent.json) returned HTTP 200.', spec: LOCATION },
    { id: 'A2A-CARD-003', severity: 'fail', basis: 'spec', needs: 'document', prerequisite: true, title: 'Agent card is valid JSON', description: 'The card body does not parse as JSON, or is not valid UTF-8 (RFC 8259 §8.1).', spec: CARD_OBJECT },
    { id: 'A2A-CARD-004', severity: 'fail', basis: 'spec', needs: 'document', prerequisite: true, title: 'Agent card is a JSON object', description: 'The card parses but is not a JSON object.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-005', severity: 'fail', basis: 'policy', needs: 'document', title: 'Non-empty name', description: 'name must be a non-empty string.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-006', severity: 'fail', basis: 'policy', needs: 'document', title: 'Non-empty description', description: 'description must be a non-empty string.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-007', severity: 'fail', basis: 'policy', needs: 'document', title: 'Non-empty version', description: 'version must be a non-empty string.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-008', severity: 'fail', basis: 'policy', needs: 'document', title: 'Reachable endpoint declared', description: 'The card needs an https:// url, or a supportedInterfaces / additionalInterfaces list whose items all have URLs.', spec: { section: 'A2A 1.0.1 AgentCard.supported_interfaces; 0.3.0 §5.5', url: A2A_PROTO_101 } },
    { id: 'A2A-CARD-009', severity: 'fail', basis: 'spec', needs: 'document', title: 'Capabilities object', description: 'capabilities must be a JSON object.', spec: card('§5.5.2 AgentCapabilities object', '#552-agentcapabilities-object') },
    { id: 'A2A-CARD-010', severity: 'fail', basis: 'policy', needs: 'document', title: 'Non-empty defaultInputModes', description: 'defaultInputModes must be a non-empty list.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-011', severity: 'fail', basis: 'policy', needs: 'document', title: 'Non-empty defaultOutputModes', description: 'defaultOutputModes must be a non-empty list.', spec: CARD_OBJECT },
    { id: 'A2A-CARD-012', severity: 'fail', basis: 'policy', needs: 'document', title: 'At least one skill', description: 'skills must be a list with at least one skill.', spec: SKILL },
    { id: 'A2A-CARD-013', severity: 'fail', basis: 'spec', needs: 'document', title: 'Skill id, name and description', description: 'Every skill must be an object with id, name and description present as strings (seed 000 asks for non-empty text only at the top level of the card).', spec: SKILL },
    { id: 'A2A-CARD-014', severity: 'fail', basis: 'spec', needs: 'document', title: 'Skill tags list', description: 'Every skill must have a tags list.', spec: SKILL },
  ]),

  // ---- A2A structural check with version attribution (seed 001), suite veronikai-a2a-structure v1 ----
  ...inSuite('a2aStructure', [
    { id: 'A2A-STRUCT-001', severity: 'fail', basis: 'spec', needs: 'document', title: 'Required field present', description: 'A field the attributed version marks required is missing (top level, skills[], provider, or the version\'s interface list).', spec: card('§5.5 AgentCard object structure (1.0.1: a2a.proto field_behavior REQUIRED)', '#55-agentcard-object-structure') },
    { id: 'A2A-STRUCT-002', severity: 'fail', basis: 'spec', needs: 'document', title: 'Required field has its JSON type', description: 'A required field is present with the wrong JSON type.', spec: CARD_OBJECT_101 },
    { id: 'A2A-STRUCT-003', severity: 'fail', basis: 'spec', needs: 'document', title: 'List items have their JSON type', description: 'An item of a typed list (skills, tags, default modes, interfaces) has the wrong JSON type.', spec: CARD_OBJECT_101 },
    { id: 'A2A-STRUCT-004', severity: 'warn', basis: 'policy', needs: 'document', title: 'Consistent version claim', description: 'The card has supportedInterfaces (1.0 only) and a top-level protocolVersion (0.x only): attributed 1.0 by conflict; the verdict under the declared version is given beside it.', spec: { section: 'A2A 1.0.1 AgentCard (top-level protocolVersion removed)', url: A2A_PROTO_101 } },
    { id: 'A2A-STRUCT-005', severity: 'warn', basis: 'policy', needs: 'document', title: 'Recognised protocol version', description: 'The declared version names no known A2A family (0.2.x, 0.3.x, 1.x); the card was checked against the nearest family.', spec: card('§5.5 AgentCard.protocolVersion', '#55-agentcard-object-structure') },
  ]),

  // ---- MCP quality on server.json, suite veronikai-mcp-conformance v2 (seed 000) ----
  ...inSuite('mcp', [
    { id: 'MCP-Q-001', severity: 'fail', basis: 'spec', needs: 'document', prerequisite: true, title: 'server.json is a JSON object', description: 'The server.json does not parse as a JSON object, or is not valid UTF-8 (RFC 8259 §8.1).', spec: { section: 'server.json schema 2025-12-11', url: SERVER_JSON_SCHEMA } },
    { id: 'MCP-Q-002', severity: 'fail', basis: 'spec', needs: 'document', title: 'Description present', description: 'description is missing, not a string, or blank.', spec: serverJson('description') },
    { id: 'MCP-Q-003', severity: 'fail', basis: 'policy', needs: 'document', title: 'Description at least 20 characters', description: 'description is shorter than 20 characters.', spec: serverJson('description') },
    { id: 'MCP-Q-004', severity: 'fail', basis: 'policy', needs: 'document', title: 'Description is not a placeholder', description: 'description is template or placeholder text ("hello world", "an MCP server", "<your description here>", …).', spec: serverJson('description') },
    { id: 'MCP-Q-005', severity: 'fail', basis: 'policy', needs: 'document', title: 'Description says more than the name', description: 'description only repeats the server name.', spec: serverJson('description') },
    { id: 'MCP-Q-006', severity: 'fail', basis: 'spec', needs: 'document', title: 'Version present', description: 'version is missing or not a string.', spec: serverJson('version') },
    { id: 'MCP-Q-007', severity: 'fail', basis: 'policy', needs: 'document', title: 'Version is semver', description: 'version is not a semantic version x.y.z (pre-release and build suffixes allowed).', spec: serverJson('version') },
    { id: 'MCP-Q-008', severity: 'fail', basis: 'policy', needs: 'document', title: 'At least one remote', description: 'remotes is missing or empty: there is no remote endpoint to reach.', spec: serverJson('remotes') },
    { id: 'MCP-Q-009', severity: 'fail', basis: 'spec', needs: 'document', title: 'Remote transport type', description: 'A remote\'s type is not streamable-http or sse.', spec: serverJson('remotes[].type') },
    { id: 'MCP-Q-010', severity: 'fail', basis: 'policy', needs: 'document', title: 'Remote URL is https', description: 'A remote\'s url is missing, not a URL, or not https.', spec: serverJson('remotes[].url') },
    { id: 'MCP-Q-011', severity: 'fail', basis: 'policy', needs: 'document', title: 'Remote host is public', description: 'A remote\'s url points at a placeholder host (example.com, …) or a private, loopback or link-local address.', spec: serverJson('remotes[].url') },
    { id: 'MCP-Q-012', severity: 'fail', basis: 'spec', needs: 'document', title: 'Repository URL valid', description: 'The listed repository url is not a valid absolute http(s) URL.', spec: serverJson('repository.url') },
    { id: 'MCP-Q-101', severity: 'warn', basis: 'policy', needs: 'document', title: 'Repository or website listed', description: 'Neither a repository url nor a websiteUrl is listed.', spec: serverJson('repository, websiteUrl') },
    { id: 'MCP-Q-102', severity: 'warn', basis: 'policy', needs: 'document', title: 'Version is not 0.0.0', description: 'version is 0.0.0.', spec: serverJson('version') },
    { id: 'MCP-Q-103', severity: 'warn', basis: 'policy', needs: 'document', title: 'Description differs from title', description: 'description is the same text as title.', spec: serverJson('title, description') },
    { id: 'MCP-Q-104', severity: 'warn', basis: 'policy', needs: 'document', title: 'Remote URL needs no user values', description: 'A remote url is a template ({variable}) that a user must fill in; it cannot be probed as listed.', spec: serverJson('remotes[].url variables (schema 2025-12-11)') },
  ]),

  // ---- MCP transport on the one GET, suite veronikai-mcp-conformance v2 (seed 000) ----
  ...inSuite('mcp', [
    { id: 'MCP-T-001', severity: 'fail', basis: 'spec', needs: 'live', title: 'Streamable HTTP GET answers with SSE or 405', description: 'A GET with Accept: text/event-stream must return Content-Type: text/event-stream or HTTP 405.', spec: LISTENING },
    { id: 'MCP-T-002', severity: 'fail', basis: 'spec', needs: 'live', title: 'Legacy SSE opens with an endpoint event', description: 'A legacy HTTP+SSE server\'s GET must open an event stream whose first event is `endpoint`.', spec: { section: 'MCP 2024-11-05 Transports, HTTP with SSE', url: 'https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse' } },
    { id: 'MCP-T-003', severity: 'fail', basis: 'spec', needs: 'live', title: '401/403 says how to authorise', description: 'HTTP 401 or 403 must carry WWW-Authenticate: Bearer or publish RFC 9728 protected-resource metadata; neither fails (Bearer without metadata is only the warning MCP-T-101).', spec: { section: 'MCP 2025-11-25 Authorization, Protected Resource Metadata discovery', url: PRM_DISCOVERY } },
    { id: 'MCP-T-004', severity: 'fail', basis: 'spec', needs: 'live', title: 'Not an HTML page', description: 'The MCP endpoint answered with an HTML page (on any status, including an HTML login or WAF page on 401, 403 or 405).', spec: STREAMABLE },
    { id: 'MCP-T-005', severity: 'fail', basis: 'spec', needs: 'live', title: 'Endpoint exists', description: 'The MCP endpoint answered HTTP 404.', spec: STREAMABLE },
    { id: 'MCP-T-006', severity: 'fail', basis: 'spec', needs: 'live', title: 'No server error', description: 'The MCP endpoint answered with a 5xx server error.', spec: STREAMABLE },
    { id: 'MCP-T-101', severity: 'warn', basis: 'spec', needs: 'live', title: 'Protected-resource metadata published', description: 'The endpoint answered 401 or 403 with WWW-Authenticate: Bearer but without RFC 9728 protected-resource metadata (Bearer was present as required, so this does not fail; neither Bearer nor metadata fails MCP-T-003).', spec: { section: 'RFC 9728; MCP 2025-11-25 Authorization', url: PRM_DISCOVERY } },
    { id: 'MCP-T-102', severity: 'warn', basis: 'spec', needs: 'live', title: '405 instead of a sessionless JSON-RPC error', description: 'The GET got a JSON-RPC error (no session) where 405 Method Not Allowed is the specified answer.', spec: LISTENING },
    { id: 'MCP-T-103', severity: 'warn', basis: 'policy', needs: 'live', title: 'Probed endpoint is the declared remote', description: 'The endpoint that was probed differs from the remote declared in server.json.', spec: serverJson('remotes[].url') },
  ]),
  // ---- Agent Plugins 1.0.0 packages, suite veronikai-agent-plugins v1 (seed 004) ----
  ...PLUGIN_RULES,
  // ---- owner-run inspect, suite veronikai-inspect v1 (seed 002) ----
  ...INSPECT_RULES,
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function getRule(id: string): Rule | undefined {
  return BY_ID.get(id);
}

export function rulesOfSuite(suite: SuiteKey): Rule[] {
  return RULES.filter((r) => r.suite === suite);
}

/** The catalogue as plain JSON (for `--list-rules --format json`). */
export function catalogueJson(): {
  checker: string;
  rules: Array<Rule & { suiteId: string; suiteVersion: number }>;
} {
  return {
    checker: CHECKER_VERSION,
    rules: RULES.map((r) => ({ ...r, suiteId: SUITES[r.suite].id, suiteVersion: SUITES[r.suite].version })),
  };
}
