/**
 * The inspect judgement on recorded exchanges, rule by rule. Each rule that no live peer gets
 * wrong fails (or warns, as its catalogue severity says) on an exchange list that breaks it, and
 * passes on the same list without the defect. The baselines are shaped like what the real peers
 * of the live tests answered (the Python SDK mcp 2.3.0 modern server; the TypeScript SDK's
 * Streamable HTTP server with sessions, its HTTP+SSE server, and its server behind
 * requireBearerAuth with RFC 9728 metadata); each failing case changes one thing. The requests
 * are the ones the producer sends (the same message builders).
 */
import { describe, expect, it } from 'vitest';
import {
  buildInspectReport,
  getInspectRule,
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  JSON_AND_SSE,
  legacyRequest,
  modernHeaders,
  modernRequest,
  type InspectExchange,
  type InspectReport,
} from '../../../src/conformance/inspect/index.js';
import { expectEvidenceOnEveryVerdict } from '../../helpers/inspect-evidence.js';

const ORIGIN = 'https://mcp.example.org';
const ENDPOINT = `${ORIGIN}/mcp`;
const ISSUER = 'https://auth.example.org';
const PRM_URL = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;
const UA = 'VeronikAI-inspect/test';
const SESSION = 'be32ec1e-05ca-46be-851b-c805158ec467';

// ---------------------------------------------------------------- recorded exchanges

interface Answer {
  status: number | null;
  headers?: Record<string, string>;
  body?: string;
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});
/** The TypeScript SDK answers POSTs on a one-event stream. */
const sse = (value: unknown, headers: Record<string, string> = {}): Answer => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', ...headers },
  body: `event: message\ndata: ${JSON.stringify(value)}\n\n`,
});
const html = (status: number, text: string): Answer => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${text}</pre>\n</body>\n</html>\n`,
});
const empty = (status: number): Answer => ({ status, headers: {}, body: '' });

function exchange(
  step: InspectExchange['step'],
  method: InspectExchange['method'],
  url: string,
  sent: Record<string, string>,
  a: Answer,
  extra: Partial<InspectExchange> = {},
): InspectExchange {
  return {
    step,
    method,
    url,
    requestHeaders: { 'user-agent': UA, ...sent },
    status: a.status,
    headers: a.headers ?? {},
    body: a.body ?? '',
    bodyTruncated: false,
    errorClass: a.status === null ? 'refused' : null,
    errorMessage: a.status === null ? 'connect ECONNREFUSED' : null,
    durationMs: 3,
    ...extra,
  };
}
function modernPost(step: InspectExchange['step'], id: number, method: string, a: Answer): InspectExchange {
  return exchange(step, 'POST', ENDPOINT, { ...modernHeaders(method), 'content-type': 'application/json' }, a, {
    requestBody: JSON.stringify(modernRequest(id, method)),
  });
}
function legacyPost(step: InspectExchange['step'], message: object, a: Answer, url = ENDPOINT, session = true): InspectExchange {
  const sent: Record<string, string> = { accept: JSON_AND_SSE, 'content-type': 'application/json' };
  if (session && step !== 'mcp.initialize') Object.assign(sent, { 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25' });
  return exchange(step, 'POST', url, sent, a, { requestBody: JSON.stringify(message) });
}
const get = (step: InspectExchange['step'], url: string, a: Answer, form?: string): InspectExchange =>
  exchange(step, 'GET', url, { accept: 'application/json' }, a, form ? { form } : {});

const rpc = (id: number | null, result: unknown) => ({ jsonrpc: '2.0', id, result });
const rpcError = (id: number | null, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

/** A copy of `o` with `patch` applied; an undefined value removes the key. */
function patched<T extends Record<string, unknown>>(o: T, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

function inspect(exchanges: InspectExchange[], protocol: 'mcp' | 'a2a' = 'mcp', input = ENDPOINT): InspectReport {
  return buildInspectReport({
    input,
    protocol,
    inspected: [protocol],
    exchanges,
    credentialsSent: false,
    requests: exchanges.length,
    requestBudget: 40,
    timeLimitMs: 60_000,
    timedOut: false,
    budgetExhausted: false,
    startedAt: '2026-12-01T20:04:28.000Z',
    durationMs: 40,
    userAgent: UA,
  });
}

/** The outcomes of the checks of one rule, in order. */
const outcomes = (r: InspectReport, ruleId: string): string[] => r.checks.filter((c) => c.ruleId === ruleId).map((c) => c.outcome);
const findingsOf = (r: InspectReport, ruleId: string) => r.findings.filter((f) => f.ruleId === ruleId);

/**
 * The rule fired with its catalogue severity (fail or warn), once, and its message matches. A
 * rule judged per document (INS-AUTH-007) may pass on the other document of the same run.
 */
function expectFinding(r: InspectReport, ruleId: string, message: RegExp): void {
  const severity = getInspectRule(ruleId)!.severity;
  expect(outcomes(r, ruleId).filter((o) => o !== 'pass')).toEqual([severity]);
  const f = findingsOf(r, ruleId);
  expect(f.map((x) => x.severity)).toEqual([severity]);
  expect(f[0]!.message).toMatch(message);
  // the failing check names the exchange it rests on
  expect(r.checks.find((c) => c.id === f[0]!.check)!.evidence.length).toBeGreaterThan(0);
}

/** The rule was judged and passed, with no finding. */
function expectPass(r: InspectReport, ruleId: string): void {
  expect(outcomes(r, ruleId)).toContain('pass');
  expect(outcomes(r, ruleId).filter((o) => o !== 'pass')).toEqual([]);
  expect(findingsOf(r, ruleId)).toEqual([]);
}

// ---------------------------------------------------------------- modern era (Python SDK mcp 2.3.0)

const DISCOVER_RESULT = {
  cacheScope: 'private',
  capabilities: {
    extensions: { 'com.example/inspect-test': { level: 1 } },
    prompts: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    tools: { listChanged: true },
  },
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  ttlMs: 0,
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'veronikai-modern-peer', version: '2.3.0-test' } },
};
const TOOLS = [
  {
    description: 'Echoes its input',
    inputSchema: { type: 'object', properties: { text: { title: 'Text', type: 'string' } }, required: ['text'], title: 'echoArguments' },
    name: 'echo',
  },
  {
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { title: 'A', type: 'integer' }, b: { title: 'B', type: 'integer' } },
      required: ['a', 'b'],
      title: 'addArguments',
    },
    name: 'add',
  },
];
const TOOLS_RESULT = { cacheScope: 'public', resultType: 'complete', tools: TOOLS, ttlMs: 60000 };

function modern(o: { discover?: Record<string, unknown>; tools?: Record<string, unknown> } = {}): InspectExchange[] {
  const tools = patched(TOOLS_RESULT, o.tools ?? {});
  return [
    modernPost('mcp.discover', 1, 'server/discover', json(200, rpc(1, patched(DISCOVER_RESULT, o.discover ?? {})))),
    modernPost('mcp.tools-list', 2, 'tools/list', json(200, rpc(2, tools))),
    modernPost('mcp.tools-list', 3, 'tools/list', json(200, rpc(3, tools))),
  ];
}

describe('modern era, 2026-07-28 (answers shaped like the Python SDK mcp 2.3.0)', () => {
  it('the baseline passes every rule it is judged on', () => {
    const r = inspect(modern());
    expect(r.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'modern',
      toolsListStable: true,
      cacheMetadata: true,
      extensions: ['com.example/inspect-test'],
      auth: null,
    });
    for (const id of ['INS-MCP-001', 'INS-MCP-002', 'INS-MCP-006', 'INS-MCP-007', 'INS-MCP-008', 'INS-MCP-011']) expectPass(r, id);
    expect(r.findings).toEqual([]);
    expectEvidenceOnEveryVerdict(r);
  });

  it('INS-MCP-001 fails on a DiscoverResult without ttlMs and cacheScope, and the server is only indicated', () => {
    const r = inspect(modern({ discover: { ttlMs: undefined, cacheScope: undefined } }));
    expectFinding(r, 'INS-MCP-001', /incomplete: ttlMs is not a non-negative integer; cacheScope is not "public" or "private"$/);
    expect(r.protocols.mcp).toMatchObject({ state: 'indicated', era: 'modern' });
    expect(r.exitCode).toBe(1);
  });

  it('INS-MCP-001 fails on supportedVersions given as a string', () => {
    const r = inspect(modern({ discover: { supportedVersions: '2026-07-28' } }));
    expectFinding(r, 'INS-MCP-001', /supportedVersions is not a non-empty list of strings/);
  });

  it('INS-MCP-002 warns when the DiscoverResult does not name the server (confirmed all the same)', () => {
    const r = inspect(modern({ discover: { _meta: undefined } }));
    expectFinding(r, 'INS-MCP-002', /no _meta\["io\.modelcontextprotocol\/serverInfo"\]/);
    expect(r.protocols.mcp.state).toBe('confirmed');
    expect(r.exitCode).toBe(0);
    expect(r.details.mcp!.serverInfo).toBeNull();
  });

  it('INS-MCP-002 warns on a serverInfo without a version', () => {
    const r = inspect(modern({ discover: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'veronikai-modern-peer' } } } }));
    expectFinding(r, 'INS-MCP-002', /with name and version/);
  });

  it('INS-MCP-008 fails on a ListToolsResult without cache metadata', () => {
    const r = inspect(modern({ tools: { ttlMs: undefined, cacheScope: undefined } }));
    expectFinding(r, 'INS-MCP-008', /lacks ttlMs or cacheScope/);
    expect(r.protocols.mcp.cacheMetadata).toBe(false);
  });

  it('INS-MCP-008 fails on a cacheScope outside "public" | "private"', () => {
    const r = inspect(modern({ tools: { cacheScope: 'shared' } }));
    expectFinding(r, 'INS-MCP-008', /lacks ttlMs or cacheScope/);
  });

  it('INS-MCP-011 warns on extension identifiers without a prefix, naming them, with the discover answer as evidence', () => {
    const r = inspect(
      modern({
        discover: {
          capabilities: {
            ...DISCOVER_RESULT.capabilities,
            extensions: { tasks: {}, 'com.example/inspect-test': {}, 'io.modelcontextprotocol': {} },
          },
        },
      }),
    );
    expectFinding(r, 'INS-MCP-011', /without a valid prefix: tasks, io\.modelcontextprotocol$/);
    const c = r.checks.find((x) => x.ruleId === 'INS-MCP-011')!;
    expect(c.evidence.map((e) => e.request.headers['mcp-method'])).toEqual(['server/discover']);
  });

  it('INS-MCP-006 fails on a tool without an object inputSchema', () => {
    const r = inspect(modern({ tools: { tools: [TOOLS[0], { name: 'add', description: 'Adds two numbers' }] } }));
    expectFinding(r, 'INS-MCP-006', /^tools\[1\] inputSchema is not a schema of type object$/);
  });

  it('INS-MCP-010 warns when a modern server declares Roots and Sampling (G5), and is not judged without them', () => {
    const r = inspect(
      modern({ discover: { capabilities: { ...DISCOVER_RESULT.capabilities, roots: { listChanged: true }, sampling: {} } } }),
    );
    expectFinding(r, 'INS-MCP-010', /declares roots, sampling \(deprecated by that revision\)/);
    expect(r.protocols.mcp.state).toBe('confirmed');
    expect(outcomes(inspect(modern()), 'INS-MCP-010')).toEqual([]);
  });
});

describe('modern errors (INS-MCP-013)', () => {
  const unsupported = (status: number, data?: unknown) => [
    modernPost('mcp.discover', 1, 'server/discover', json(status, rpcError(1, -32022, 'Unsupported protocol version', data))),
  ];

  it('fails on UnsupportedProtocolVersionError answered with HTTP 200 and no supported versions', () => {
    const r = inspect(unsupported(200));
    expectFinding(r, 'INS-MCP-013', /^JSON-RPC -32022 on HTTP 200 without the supported versions \(400 expected\)$/);
    expect(r.protocols.mcp).toMatchObject({ state: 'indicated', era: 'modern' });
  });

  it('fails on a 400 whose error data lists no supported version', () => {
    const r = inspect(unsupported(400, { requested: '2026-07-28' }));
    expectFinding(r, 'INS-MCP-013', /on HTTP 400 without the supported versions/);
  });

  it('passes on a 400 listing the supported versions, as the schema asks', () => {
    const r = inspect(unsupported(400, { requested: '2026-07-28', supported: ['2027-01-15'] }));
    expectPass(r, 'INS-MCP-013');
    expect(r.checks.find((c) => c.ruleId === 'INS-MCP-013')!.message).toMatch(/supports \["2027-01-15"\]/);
  });
});

// ---------------------------------------------------------------- legacy Streamable HTTP (TypeScript SDK)

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'veronikai-test-peer', version: '1.0.0' },
};
const LEGACY_TOOLS = {
  tools: [
    {
      name: 'echo',
      description: 'Echoes its input',
      inputSchema: { type: 'object', properties: {} },
      execution: { taskSupport: 'forbidden' },
    },
  ],
};

function legacy(
  o: { init?: Record<string, unknown>; initialized?: Answer; tools?: [Answer, Answer]; del?: Answer } = {},
): InspectExchange[] {
  return [
    modernPost('mcp.discover', 1, 'server/discover', json(400, rpcError(null, -32000, 'Bad Request: Server not initialized'))),
    legacyPost('mcp.initialize', initializeRequest(2), sse(rpc(2, patched(INIT_RESULT, o.init ?? {})), { 'mcp-session-id': SESSION })),
    legacyPost('mcp.initialized', INITIALIZED_NOTIFICATION, o.initialized ?? empty(202)),
    legacyPost('mcp.tools-list', legacyRequest(3, 'tools/list'), o.tools?.[0] ?? sse(rpc(3, LEGACY_TOOLS), { 'mcp-session-id': SESSION })),
    legacyPost('mcp.tools-list', legacyRequest(4, 'tools/list'), o.tools?.[1] ?? sse(rpc(4, LEGACY_TOOLS), { 'mcp-session-id': SESSION })),
    exchange(
      'mcp.delete-session',
      'DELETE',
      ENDPOINT,
      { accept: '*/*', 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25' },
      o.del ?? empty(200),
    ),
  ];
}

describe('legacy Streamable HTTP (answers shaped like the TypeScript SDK with sessions)', () => {
  it('the baseline passes every rule it is judged on; cache metadata is not asked of a legacy server', () => {
    const r = inspect(legacy());
    expect(r.protocols.mcp).toEqual({
      state: 'confirmed',
      era: 'legacy',
      toolsListStable: true,
      cacheMetadata: false,
      extensions: [],
      auth: null,
    });
    for (const id of ['INS-MCP-003', 'INS-MCP-004', 'INS-MCP-005', 'INS-MCP-006', 'INS-MCP-007']) expectPass(r, id);
    expect(outcomes(r, 'INS-MCP-008')).toEqual([]);
    expect(r.findings).toEqual([]);
    expectEvidenceOnEveryVerdict(r);
  });

  it('INS-MCP-004 fails when notifications/initialized is answered 200 with a body, or 204', () => {
    expectFinding(inspect(legacy({ initialized: json(200, {}) })), 'INS-MCP-004', /^answered HTTP 200, not 202 Accepted$/);
    expectFinding(inspect(legacy({ initialized: empty(204) })), 'INS-MCP-004', /^answered HTTP 204, not 202 Accepted$/);
  });

  it('INS-MCP-005 warns when the session DELETE errors, and passes on 405 (the server keeps sessions to itself)', () => {
    const r = inspect(legacy({ del: html(500, 'Internal Server Error') }));
    expectFinding(r, 'INS-MCP-005', /^DELETE with the session id answered HTTP 500$/);
    expect(r.exitCode).toBe(0);
    const allowed = inspect(legacy({ del: empty(405) }));
    expectPass(allowed, 'INS-MCP-005');
    expect(allowed.checks.find((c) => c.ruleId === 'INS-MCP-005')!.message).toMatch(/does not let clients end sessions \(405\)/);
  });

  it('INS-MCP-006 fails when a server declaring tools answers tools/list with Method not found', () => {
    const notFound = (id: number) => sse(rpcError(id, -32601, 'Method not found'), { 'mcp-session-id': SESSION });
    const r = inspect(legacy({ tools: [notFound(3), notFound(4)] }));
    expectFinding(r, 'INS-MCP-006', /^no tool list: JSON-RPC error -32601 Method not found$/);
    expect(r.protocols.mcp.toolsListStable).toBeNull();
  });

  it('INS-MCP-006 is not judged on a server that declares no tools capability (an informational check instead)', () => {
    const notFound = (id: number) => sse(rpcError(id, -32601, 'Method not found'), { 'mcp-session-id': SESSION });
    const r = inspect(legacy({ init: { capabilities: { prompts: {} } }, tools: [notFound(3), notFound(4)] }));
    expect(outcomes(r, 'INS-MCP-006')).toEqual([]);
    expect(r.checks.find((c) => c.name === 'tools/list')!.outcome).toBe('info');
  });
});

// ---------------------------------------------------------------- legacy HTTP+SSE (2024-11-05)

const SSE_URL = `${ORIGIN}/sse`;
const MESSAGES = `${ORIGIN}/messages?sessionId=1f6df82d-4d0c-4ec7-b2e3-966f6c461fe5`;

function legacySse(o: { events?: Array<{ event: string; data: string }>; initReply?: string | null } = {}): InspectExchange[] {
  const events = o.events ?? [{ event: 'endpoint', data: '/messages?sessionId=1f6df82d-4d0c-4ec7-b2e3-966f6c461fe5' }];
  const out: InspectExchange[] = [
    exchange(
      'mcp.discover',
      'POST',
      SSE_URL,
      { ...modernHeaders('server/discover'), 'content-type': 'application/json' },
      html(404, 'Cannot POST /sse'),
      { requestBody: JSON.stringify(modernRequest(1, 'server/discover')) },
    ),
    legacyPost('mcp.initialize', initializeRequest(2), html(404, 'Cannot POST /sse'), SSE_URL, false),
  ];
  // The producer POSTs only after an endpoint event.
  if (events[0]?.event === 'endpoint') {
    const initReply = o.initReply === undefined ? JSON.stringify(rpc(3, INIT_RESULT)) : o.initReply;
    out.push({
      ...legacyPost('mcp.initialize', initializeRequest(3), { status: 202, headers: {}, body: 'Accepted' }, MESSAGES, false),
      streamReply: initReply,
    });
    if (initReply !== null) {
      out.push(legacyPost('mcp.initialized', INITIALIZED_NOTIFICATION, { status: 202, headers: {}, body: 'Accepted' }, MESSAGES, false));
      for (const id of [4, 5])
        out.push({
          ...legacyPost('mcp.tools-list', legacyRequest(id, 'tools/list'), { status: 202, headers: {}, body: 'Accepted' }, MESSAGES, false),
          streamReply: JSON.stringify(rpc(id, LEGACY_TOOLS)),
        });
    }
  }
  out.push(
    exchange(
      'mcp.sse-open',
      'GET',
      SSE_URL,
      { accept: 'text/event-stream' },
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' },
        body: events.map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`).join(''),
      },
      { events },
    ),
  );
  return out;
}

describe('legacy HTTP+SSE (answers shaped like the TypeScript SDK SSEServerTransport)', () => {
  it('the baseline: INS-MCP-012 passes, the transport gets its deprecation warning', () => {
    const r = inspect(legacySse());
    expect(r.protocols.mcp).toMatchObject({ state: 'confirmed', era: 'legacy-sse', toolsListStable: true });
    expectPass(r, 'INS-MCP-012');
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([['INS-MCP-009', 'warn']]);
    expectEvidenceOnEveryVerdict(r);
  });

  it('INS-MCP-012 fails on a stream whose first event is not "endpoint" (the URL sent as a plain message event)', () => {
    const r = inspect(legacySse({ events: [{ event: 'message', data: '/messages?sessionId=1f6df82d-4d0c-4ec7-b2e3-966f6c461fe5' }] }));
    expectFinding(r, 'INS-MCP-012', /^the first event is "message", not "endpoint"$/);
    // an event stream is a signal, not a confirmation; no era without the handshake
    expect(r.protocols.mcp).toMatchObject({ state: 'indicated', era: null });
    expect(r.exitCode).toBe(1);
  });

  it('INS-MCP-012 fails when the endpoint event came but initialize was never answered on the stream', () => {
    const r = inspect(legacySse({ initReply: null }));
    expectFinding(r, 'INS-MCP-012', /^no answer to initialize on the stream$/);
    const c = r.checks.find((x) => x.ruleId === 'INS-MCP-012')!;
    expect(c.evidence.map((e) => e.request.method)).toEqual(['GET', 'POST']);
  });
});

// ---------------------------------------------------------------- authorization discovery

const CHALLENGE = `Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="${PRM_URL}"`;
const PRM = { resource: ENDPOINT, authorization_servers: [ISSUER], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] };
const AS_DOC = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
  client_id_metadata_document_supported: true,
};
const OIDC_DOC = {
  ...AS_DOC,
  jwks_uri: `${ISSUER}/jwks`,
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
};

interface AuthCase {
  challenge?: Answer;
  prm?: InspectExchange[];
  oidc?: Record<string, unknown>;
  oauth?: Record<string, unknown> | null;
}

/** The 401 of the SDK's requireBearerAuth, then the discovery a client follows. */
function protectedServer(o: AuthCase = {}): InspectExchange[] {
  const challenge =
    o.challenge ??
    json(401, { error: 'invalid_token', error_description: 'Missing Authorization header' }, { 'www-authenticate': CHALLENGE });
  const prm = o.prm ?? [get('auth.prm', PRM_URL, json(200, PRM), 'resource_metadata')];
  const out = [modernPost('mcp.discover', 1, 'server/discover', challenge), ...prm];
  const doc = prm.map((e) => (e.status === 200 ? (JSON.parse(e.body) as Record<string, unknown>) : null)).find((d) => d !== null);
  const servers = doc?.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0) return out;
  out.push(get('auth.oidc', `${ISSUER}/.well-known/openid-configuration`, json(200, o.oidc ?? OIDC_DOC), 'root'));
  out.push(
    get(
      'auth.oauth',
      `${ISSUER}/.well-known/oauth-authorization-server`,
      o.oauth === null ? html(404, 'Cannot GET /.well-known/oauth-authorization-server') : json(200, o.oauth ?? AS_DOC),
      'root',
    ),
  );
  return out;
}

describe('authorization discovery (answers shaped like the TypeScript SDK behind requireBearerAuth)', () => {
  it('the baseline passes every rule it is judged on: indicated, CIMD', () => {
    const r = inspect(protectedServer());
    expect(r.protocols.mcp).toEqual({
      state: 'indicated',
      era: null,
      toolsListStable: null,
      cacheMetadata: null,
      extensions: [],
      auth: {
        required: true,
        resourceMetadataUrl: PRM_URL,
        issuer: ISSUER,
        openidConfiguration: true,
        oauthMetadata: true,
        registration: 'cimd',
      },
    });
    for (const id of [
      'INS-AUTH-001',
      'INS-AUTH-002',
      'INS-AUTH-003',
      'INS-AUTH-004',
      'INS-AUTH-005',
      'INS-AUTH-006',
      'INS-AUTH-007',
      'INS-AUTH-008',
    ])
      expectPass(r, id);
    expect(r.findings).toEqual([]);
    expectEvidenceOnEveryVerdict(r);
  });

  it('INS-AUTH-001 fails on a 401 without WWW-Authenticate (metadata found at the root well-known URL all the same)', () => {
    const r = inspect(
      protectedServer({
        challenge: json(401, { error: 'unauthorized' }),
        prm: [
          get('auth.prm', PRM_URL, html(404, 'Cannot GET /.well-known/oauth-protected-resource/mcp'), 'path-inserted'),
          get('auth.prm', `${ORIGIN}/.well-known/oauth-protected-resource`, json(200, PRM), 'root'),
        ],
      }),
    );
    expectFinding(r, 'INS-AUTH-001', /^HTTP 401 without WWW-Authenticate$/);
    expectPass(r, 'INS-AUTH-003');
    expect(r.protocols.mcp.auth!.resourceMetadataUrl).toBe(`${ORIGIN}/.well-known/oauth-protected-resource`);
  });

  it('INS-AUTH-001 fails on a challenge of another scheme than Bearer', () => {
    const r = inspect(
      protectedServer({
        challenge: {
          ...html(401, 'Unauthorized'),
          headers: { 'content-type': 'text/html; charset=utf-8', 'www-authenticate': 'Basic realm="mcp"' },
        },
      }),
    );
    expectFinding(r, 'INS-AUTH-001', /^HTTP 401 without a Bearer challenge \(WWW-Authenticate: Basic realm="mcp"\)$/);
  });

  it('INS-AUTH-003 fails when neither well-known URL serves protected-resource metadata; the discovery stops there', () => {
    const r = inspect(
      protectedServer({
        challenge: json(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer realm="mcp"' }),
        prm: [
          get('auth.prm', PRM_URL, html(404, 'Cannot GET /.well-known/oauth-protected-resource/mcp'), 'path-inserted'),
          get(
            'auth.prm',
            `${ORIGIN}/.well-known/oauth-protected-resource`,
            html(404, 'Cannot GET /.well-known/oauth-protected-resource'),
            'root',
          ),
        ],
      }),
    );
    expectFinding(r, 'INS-AUTH-003', /^no protected-resource metadata found: tried .*\/mcp \(404\), .*oauth-protected-resource \(404\)$/);
    expect(r.checks.find((c) => c.ruleId === 'INS-AUTH-003')!.evidence).toHaveLength(2);
    expect(findingsOf(r, 'INS-AUTH-002').map((f) => f.severity)).toEqual(['warn']);
    expect(r.protocols.mcp.auth).toEqual({
      required: true,
      resourceMetadataUrl: null,
      issuer: null,
      openidConfiguration: false,
      oauthMetadata: false,
      registration: 'none',
    });
    // a Bearer challenge is still a signal
    expect(r.protocols.mcp.state).toBe('indicated');
  });

  it('INS-AUTH-004 fails on metadata without authorization_servers, or with an empty list', () => {
    for (const prm of [
      { resource: ENDPOINT, bearer_methods_supported: ['header'] },
      { ...PRM, authorization_servers: [] },
    ]) {
      const r = inspect(protectedServer({ prm: [get('auth.prm', PRM_URL, json(200, prm), 'resource_metadata')] }));
      expectFinding(r, 'INS-AUTH-004', /^authorization_servers is missing, empty or not a list of strings$/);
      expect(r.protocols.mcp.auth).toMatchObject({ resourceMetadataUrl: PRM_URL, issuer: null, registration: 'none' });
      expect(r.exitCode).toBe(1);
    }
  });

  it('INS-AUTH-004 fails on metadata without resource', () => {
    const r = inspect(
      protectedServer({ prm: [get('auth.prm', PRM_URL, json(200, { authorization_servers: [ISSUER] }), 'resource_metadata')] }),
    );
    expectFinding(r, 'INS-AUTH-004', /^resource is missing or not a string$/);
    // the issuer is still followed
    expect(r.protocols.mcp.auth!.issuer).toBe(ISSUER);
  });

  it("INS-AUTH-005 warns on metadata naming another resource, and passes when it names the endpoint's origin", () => {
    const r = inspect(
      protectedServer({
        prm: [get('auth.prm', PRM_URL, json(200, { ...PRM, resource: 'https://api.other-service.example/v1' }), 'resource_metadata')],
      }),
    );
    expectFinding(
      r,
      'INS-AUTH-005',
      /^resource "https:\/\/api\.other-service\.example\/v1" is not the endpoint https:\/\/mcp\.example\.org\/mcp$/,
    );
    expect(r.exitCode).toBe(0);
    expectPass(
      inspect(protectedServer({ prm: [get('auth.prm', PRM_URL, json(200, { ...PRM, resource: ORIGIN }), 'resource_metadata')] })),
      'INS-AUTH-005',
    );
  });

  it('INS-AUTH-007 fails on metadata without token_endpoint; with the right issuer it still counts', () => {
    const r = inspect(protectedServer({ oauth: patched(AS_DOC, { token_endpoint: undefined }) }));
    expectFinding(r, 'INS-AUTH-007', /^RFC 8414 metadata at .*: token_endpoint is missing$/);
    expect(r.protocols.mcp.auth).toMatchObject({ openidConfiguration: true, oauthMetadata: true, registration: 'cimd' });
  });

  it('INS-AUTH-007 fails on metadata naming another issuer, which is then not used (RFC 8414 §3.3, G4)', () => {
    // the OpenID configuration names another issuer and offers CIMD; the RFC 8414 document is valid and offers DCR only
    const r = inspect(
      protectedServer({
        oidc: { ...OIDC_DOC, issuer: 'https://login.other-tenant.example' },
        oauth: patched(AS_DOC, { client_id_metadata_document_supported: undefined, registration_endpoint: `${ISSUER}/register` }),
      }),
    );
    expectFinding(
      r,
      'INS-AUTH-007',
      /^OpenID configuration at .*: issuer is "https:\/\/login\.other-tenant\.example", not "https:\/\/auth\.example\.org" \(a client must not use it\)$/,
    );
    // the rejected document neither counts as found nor lends its CIMD support to the classification
    expect(r.protocols.mcp.auth).toMatchObject({ openidConfiguration: false, oauthMetadata: true, registration: 'dcr' });
    expect(findingsOf(r, 'INS-AUTH-008').map((f) => f.severity)).toEqual(['warn']);
    const reg = r.checks.find((c) => c.ruleId === 'INS-AUTH-008')!;
    expect(reg.evidence.map((e) => e.request.url)).toEqual([`${ISSUER}/.well-known/oauth-authorization-server`]);
    // not "serves only OpenID Connect Discovery" either way round
    expect(findingsOf(r, 'INS-AUTH-010')).toEqual([]);
  });

  it('metadata documents that all name another issuer leave no usable metadata: registration none, and not a dead issuer', () => {
    const other = 'https://login.other-tenant.example';
    const r = inspect(protectedServer({ oidc: { ...OIDC_DOC, issuer: other }, oauth: { ...AS_DOC, issuer: other } }));
    expect(r.protocols.mcp.auth).toMatchObject({ issuer: ISSUER, openidConfiguration: false, oauthMetadata: false, registration: 'none' });
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['INS-AUTH-007', 'fail'],
      ['INS-AUTH-007', 'fail'],
    ]);
    expect(r.checks.find((c) => c.name === 'authorization server metadata')).toMatchObject({
      outcome: 'info',
      message: expect.stringMatching(/no usable metadata .* names another issuer/),
    });
  });
});

// ---------------------------------------------------------------- A2A card behind authentication

describe('A2A: a card URL that answers 401/403', () => {
  const AGENT = 'https://agent.example.org';
  const card = (path: string, a: Answer) => get('a2a.card', `${AGENT}${path}`, a);
  const notFound = (path: string) => card(path, html(404, `Cannot GET ${path}`));

  it('401 at the current path: indicated, resting on the 401 exchange; no INS-GEN-001', () => {
    const r = inspect(
      [
        card('/.well-known/agent-card.json', json(401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="agent"' })),
        notFound('/.well-known/agent.json'),
      ],
      'a2a',
      `${AGENT}/`,
    );
    expect(r.protocols.a2a).toMatchObject({ state: 'indicated', cardUrl: null });
    const c = r.checks.find((x) => x.name === 'agent card')!;
    expect(c).toMatchObject({
      outcome: 'info',
      message: expect.stringMatching(/answered HTTP 401: a card may be there, but it is not public/),
    });
    expect(c.evidence.map((e) => [e.request.url, e.status, e.headers['www-authenticate']])).toEqual([
      [`${AGENT}/.well-known/agent-card.json`, 401, 'Bearer realm="agent"'],
    ]);
    expect(r.findings).toEqual([]);
    expect(r.exitCode).toBe(0);
  });

  it('403 at the legacy path only: indicated too', () => {
    const r = inspect(
      [notFound('/.well-known/agent-card.json'), card('/.well-known/agent.json', json(403, { error: 'forbidden' }))],
      'a2a',
      `${AGENT}/`,
    );
    expect(r.protocols.a2a.state).toBe('indicated');
    expect(r.checks.find((x) => x.name === 'agent card')!.message).toMatch(/HTTP 403/);
  });

  it('404 at both paths: not detected, and INS-GEN-001 fails', () => {
    const r = inspect([notFound('/.well-known/agent-card.json'), notFound('/.well-known/agent.json')], 'a2a', `${AGENT}/`);
    expect(r.protocols.a2a.state).toBe('not_detected');
    expect(r.findings.map((f) => f.ruleId)).toEqual(['INS-GEN-001']);
    expect(r.exitCode).toBe(1);
  });
});
