/**
 * The MCP half of an inspect, judged from the recorded exchanges: the state (not_detected,
 * indicated, confirmed), the era (modern, legacy, legacy-sse), the handshake checks of each
 * era, the tool list (twice: order, and a hash of each tool's definition), cache metadata,
 * extensions, deprecations, and the authorization discovery after a 401/403.
 */
import { canonicalJson, sha256Hex } from '../canonical-json.js';
import { isObject, type JsonObject } from '../json-util.js';
import { judgeAuth, type AuthSummary } from './auth.js';
import { CheckList, type InspectCheck } from './checks.js';
import { isEventStream } from './jsonrpc.js';
import { MODERN_VERSION, readDiscover, readInitialize, replyOf } from './mcp-messages.js';
import type { DetectionState, InspectExchange, McpEra } from './types.js';

export interface McpSummary {
  state: DetectionState;
  era: McpEra | null;
  toolsListStable: boolean | null;
  cacheMetadata: boolean | null;
  extensions: string[];
  auth: AuthSummary | null;
}

export interface ToolHash {
  name: string;
  /** sha256 of the canonical JSON of the tool's definition (as the first tools/list returned it). */
  sha256: string;
}

export interface McpJudgement {
  summary: McpSummary;
  checks: InspectCheck[];
  /** Detail kept for later scans: the server's self-description and each tool's hash. */
  detail: { serverInfo: JsonObject | null; protocolVersion: string | null; supportedVersions: string[]; tools: ToolHash[]; toolsChanged: string[] };
}

/** `_meta`-style key with a mandatory prefix: labels of letters, digits and hyphens separated by dots, a slash, then a name. */
const EXTENSION_KEY = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

const DEPRECATED_ON_MODERN = ['roots', 'sampling', 'logging'] as const;

function isAuthStatus(ex: InspectExchange): boolean {
  return ex.status === 401 || ex.status === 403;
}

function discoverProblems(r: JsonObject): string[] {
  const p: string[] = [];
  if (typeof r.resultType !== 'string') p.push('resultType is missing');
  if (!Array.isArray(r.supportedVersions) || r.supportedVersions.length === 0 || !r.supportedVersions.every((v) => typeof v === 'string')) p.push('supportedVersions is not a non-empty list of strings');
  if (!isObject(r.capabilities)) p.push('capabilities is not an object');
  if (!Number.isInteger(r.ttlMs) || (r.ttlMs as number) < 0) p.push('ttlMs is not a non-negative integer');
  if (r.cacheScope !== 'public' && r.cacheScope !== 'private') p.push('cacheScope is not "public" or "private"');
  return p;
}

function initializeProblems(r: JsonObject): string[] {
  const p: string[] = [];
  if (typeof r.protocolVersion !== 'string') p.push('protocolVersion is missing');
  if (!isObject(r.capabilities)) p.push('capabilities is not an object');
  const si = r.serverInfo;
  if (!isObject(si)) p.push('serverInfo is missing');
  else {
    if (typeof si.name !== 'string') p.push('serverInfo.name is missing');
    if (typeof si.version !== 'string') p.push('serverInfo.version is missing');
  }
  return p;
}

function toolProblems(result: JsonObject): string[] {
  if (!Array.isArray(result.tools)) return ['tools is not a list'];
  const p: string[] = [];
  result.tools.forEach((t, i) => {
    if (!isObject(t)) p.push(`tools[${i}] is not an object`);
    else {
      if (typeof t.name !== 'string' || t.name === '') p.push(`tools[${i}] has no name`);
      if (!isObject(t.inputSchema) || t.inputSchema.type !== 'object') p.push(`tools[${i}] inputSchema is not a schema of type object`);
    }
  });
  return p.slice(0, 10);
}

function toolHashes(result: JsonObject): ToolHash[] {
  if (!Array.isArray(result.tools)) return [];
  return result.tools.filter(isObject).map((t) => ({ name: typeof t.name === 'string' ? t.name : '', sha256: sha256Hex(canonicalJson(t)) }));
}

function hasCacheMetadata(r: JsonObject): boolean {
  return Number.isInteger(r.ttlMs) && (r.ttlMs as number) >= 0 && (r.cacheScope === 'public' || r.cacheScope === 'private');
}

function extensionsOf(caps: JsonObject): string[] {
  const out: string[] = [];
  if (isObject(caps.extensions)) out.push(...Object.keys(caps.extensions));
  if (isObject(caps.experimental)) out.push(...Object.keys(caps.experimental).map((k) => `experimental:${k}`));
  return out.slice(0, 100);
}

export function judgeMcp(endpoint: string, all: InspectExchange[]): McpJudgement {
  const checks = new CheckList('mcp');
  const ex = all.filter((e) => e.step.startsWith('mcp.') || e.step.startsWith('auth.'));
  const summary: McpSummary = { state: 'not_detected', era: null, toolsListStable: null, cacheMetadata: null, extensions: [], auth: null };
  const detail: McpJudgement['detail'] = { serverInfo: null, protocolVersion: null, supportedVersions: [], tools: [], toolsChanged: [] };
  let signal = false;
  let confirmed = false;
  let capabilities: JsonObject | null = null;
  /** The exchange the capabilities were read from: the evidence of the checks on them. */
  let capsFrom: InspectExchange | null = null;

  const discover = ex.find((e) => e.step === 'mcp.discover');
  const sseOpen = ex.find((e) => e.step === 'mcp.sse-open');
  const inits = ex.filter((e) => e.step === 'mcp.initialize');
  const httpInit = inits.find((e) => e.streamReply === undefined) ?? null;
  const sseInit = inits.find((e) => e.streamReply !== undefined) ?? null;

  // ---- era and handshake
  const d = discover ? readDiscover(discover) : null;
  if (discover && d) {
    if (d.kind === 'modern') {
      summary.era = 'modern';
      signal = true;
      const problems = discoverProblems(d.result);
      if (problems.length) checks.flag('INS-MCP-001', 'server/discover', `the DiscoverResult is incomplete: ${problems.join('; ')}`, discover.url, [discover]);
      else {
        confirmed = true;
        checks.pass('server/discover', 'INS-MCP-001', `modern server: supportedVersions ${JSON.stringify(d.result.supportedVersions)}`, discover.url, [discover]);
      }
      capabilities = isObject(d.result.capabilities) ? d.result.capabilities : null;
      capsFrom = discover;
      detail.supportedVersions = Array.isArray(d.result.supportedVersions) ? d.result.supportedVersions.filter((v): v is string => typeof v === 'string') : [];
      detail.protocolVersion = detail.supportedVersions.includes(MODERN_VERSION) ? MODERN_VERSION : (detail.supportedVersions[0] ?? null);
      const meta = isObject(d.result._meta) ? d.result._meta : {};
      const si = meta['io.modelcontextprotocol/serverInfo'];
      if (isObject(si) && typeof si.name === 'string' && typeof si.version === 'string') {
        detail.serverInfo = si;
        checks.pass('server identifies itself', 'INS-MCP-002', `serverInfo ${si.name} ${si.version}`, discover.url, [discover]);
      } else checks.flag('INS-MCP-002', 'server identifies itself', 'no _meta["io.modelcontextprotocol/serverInfo"] with name and version', discover.url, [discover]);
    } else if (d.kind === 'modern-error') {
      summary.era = 'modern';
      signal = true;
      const ok = discover.status === 400 && (d.code !== -32022 || d.supported.length > 0);
      if (ok) checks.pass('modern error', 'INS-MCP-013', `the server refused protocol ${MODERN_VERSION} (JSON-RPC ${d.code}); it supports ${JSON.stringify(d.supported)}`, discover.url, [discover]);
      else checks.flag('INS-MCP-013', 'modern error', `JSON-RPC ${d.code} on HTTP ${discover.status}${d.code === -32022 ? ' without the supported versions' : ''} (400 expected)`, discover.url, [discover]);
    } else if (d.kind === 'legacy') {
      checks.info('server/discover', `not a 2026-07-28 server (${d.why}); tried the legacy handshake`, discover.url, [discover]);
      if (replyOf(discover).kind !== 'none') signal = true;
    } else if (d.kind === 'no-answer') {
      checks.info('server/discover', `no answer: ${d.why}`, discover.url, [discover]);
    }
  }
  if (httpInit) {
    const i = readInitialize(httpInit);
    if (i.kind === 'ok') {
      summary.era = 'legacy';
      signal = true;
      const problems = initializeProblems(i.result);
      if (problems.length) checks.flag('INS-MCP-003', 'initialize', `the InitializeResult is incomplete: ${problems.join('; ')}`, httpInit.url, [httpInit]);
      else {
        confirmed = true;
        checks.pass('initialize', 'INS-MCP-003', `legacy server: protocolVersion ${String(i.result.protocolVersion)}${i.sessionId ? ', with a session' : ', no session'}`, httpInit.url, [httpInit]);
      }
      capabilities = isObject(i.result.capabilities) ? i.result.capabilities : null;
      capsFrom = httpInit;
      detail.serverInfo = isObject(i.result.serverInfo) ? i.result.serverInfo : null;
      detail.protocolVersion = i.protocolVersion;
    } else if (i.kind !== 'auth') {
      checks.info('initialize', `no legacy handshake: ${i.why}`, httpInit.url, [httpInit]);
      if (replyOf(httpInit).kind !== 'none') signal = true;
    }
  }
  if (sseOpen) {
    const first = sseOpen.events?.[0];
    const stream = sseOpen.status === 200 && isEventStream(sseOpen.headers);
    if (stream) signal = true;
    const reply = sseInit ? replyOf(sseInit) : null;
    if (first?.event === 'endpoint' && reply?.kind === 'result') {
      summary.era = 'legacy-sse';
      const problems = initializeProblems(reply.result);
      checks.pass('HTTP+SSE endpoint event', 'INS-MCP-012', `endpoint event: ${first.data.slice(0, 200)}`, sseOpen.url, [sseOpen]);
      if (problems.length) checks.flag('INS-MCP-003', 'initialize', `the InitializeResult is incomplete: ${problems.join('; ')}`, sseInit!.url, [sseInit]);
      else {
        confirmed = true;
        checks.pass('initialize', 'INS-MCP-003', `legacy HTTP+SSE server: protocolVersion ${String(reply.result.protocolVersion)}`, sseInit!.url, [sseInit]);
      }
      capabilities = isObject(reply.result.capabilities) ? reply.result.capabilities : null;
      capsFrom = sseInit;
      detail.serverInfo = isObject(reply.result.serverInfo) ? reply.result.serverInfo : null;
      detail.protocolVersion = typeof reply.result.protocolVersion === 'string' ? reply.result.protocolVersion : null;
      checks.flag('INS-MCP-009', 'transport', 'the server speaks only the HTTP+SSE transport of 2024-11-05 (deprecated since 2025-03-26)', sseOpen.url, [sseOpen]);
    } else if (stream) {
      const why = first?.event !== 'endpoint' ? `the first event is ${first ? `"${first.event}"` : 'missing'}, not "endpoint"` : `no answer to initialize on the stream`;
      checks.flag('INS-MCP-012', 'HTTP+SSE endpoint event', why, sseOpen.url, [sseOpen, sseInit]);
    } else {
      checks.info('HTTP+SSE', `no event stream: ${sseOpen.status === null ? (sseOpen.errorMessage ?? sseOpen.errorClass) : `HTTP ${sseOpen.status} ${sseOpen.headers['content-type'] ?? ''}`}`, sseOpen.url, [sseOpen]);
    }
  }

  // ---- notifications/initialized, session DELETE (legacy)
  const initialized = ex.find((e) => e.step === 'mcp.initialized');
  if (initialized && summary.era === 'legacy') {
    if (initialized.status === 202) checks.pass('notifications/initialized', 'INS-MCP-004', 'accepted with 202', initialized.url, [initialized]);
    else checks.flag('INS-MCP-004', 'notifications/initialized', `answered ${initialized.status === null ? (initialized.errorClass ?? 'nothing') : `HTTP ${initialized.status}`}, not 202 Accepted`, initialized.url, [initialized]);
  }
  const del = ex.find((e) => e.step === 'mcp.delete-session');
  if (del) {
    const s = del.status;
    if (s !== null && ((s >= 200 && s < 300) || s === 405)) checks.pass('session DELETE', 'INS-MCP-005', s === 405 ? 'the server does not let clients end sessions (405)' : `session ended (HTTP ${s})`, del.url, [del]);
    else checks.flag('INS-MCP-005', 'session DELETE', `DELETE with the session id answered ${s === null ? (del.errorClass ?? 'nothing') : `HTTP ${s}`}`, del.url, [del]);
  }

  // ---- capabilities: extensions, deprecations
  if (capabilities) {
    summary.extensions = extensionsOf(capabilities);
    const declared = isObject(capabilities.extensions) ? Object.keys(capabilities.extensions) : [];
    const bad = declared.filter((k) => !EXTENSION_KEY.test(k));
    const where = capsFrom?.url ?? endpoint;
    if (declared.length) {
      if (bad.length) checks.flag('INS-MCP-011', 'extensions', `extension identifiers without a valid prefix: ${bad.slice(0, 5).join(', ')}`, where, [capsFrom]);
      else checks.pass('extensions', 'INS-MCP-011', `extensions: ${declared.join(', ')}`, where, [capsFrom]);
    }
    if (summary.era === 'modern') {
      const dep = DEPRECATED_ON_MODERN.filter((k) => k in capabilities!);
      if (dep.length) checks.flag('INS-MCP-010', 'deprecated features', `a 2026-07-28 server declares ${dep.join(', ')} (deprecated by that revision)`, where, [capsFrom]);
    }
  }

  // ---- tools/list twice
  const lists = ex.filter((e) => e.step === 'mcp.tools-list' && !isAuthStatus(e));
  const results = lists.map((e) => ({ e, r: replyOf(e) }));
  const ok = results.filter((x): x is { e: InspectExchange; r: { kind: 'result'; id: unknown; result: JsonObject } } => x.r.kind === 'result');
  if (lists.length > 0 && confirmed) {
    const declaresTools = capabilities ? 'tools' in capabilities : true;
    if (ok.length === 0) {
      const r = results[0]!;
      const why = r.r.kind === 'error' ? `JSON-RPC error ${r.r.code} ${r.r.message.slice(0, 100)}` : r.r.kind === 'none' ? r.r.why : '';
      if (declaresTools) checks.flag('INS-MCP-006', 'tools/list', `no tool list: ${why}`, r.e.url, [r.e]);
      else checks.info('tools/list', `the server declares no tools capability (${why})`, r.e.url, [r.e]);
    } else {
      const problems = toolProblems(ok[0]!.r.result);
      if (problems.length) checks.flag('INS-MCP-006', 'tools/list', problems.join('; '), ok[0]!.e.url, [ok[0]!.e]);
      else checks.pass('tools/list', 'INS-MCP-006', `${(ok[0]!.r.result.tools as unknown[]).length} tool(s)`, ok[0]!.e.url, [ok[0]!.e]);
      detail.tools = toolHashes(ok[0]!.r.result);
      if (ok.length >= 2) {
        const a = detail.tools;
        const b = toolHashes(ok[1]!.r.result);
        const orderSame = a.map((t) => t.name).join('\n') === b.map((t) => t.name).join('\n');
        const byName = new Map(b.map((t) => [t.name, t.sha256]));
        const changed = a.filter((t) => byName.get(t.name) !== t.sha256).map((t) => t.name);
        const added = b.filter((t) => !a.some((x) => x.name === t.name)).map((t) => t.name);
        detail.toolsChanged = [...changed, ...added];
        summary.toolsListStable = orderSame && detail.toolsChanged.length === 0;
        if (summary.toolsListStable) checks.pass('tool list stable', 'INS-MCP-007', 'two identical tools/list calls returned the same tools in the same order', ok[1]!.e.url, [ok[0]!.e, ok[1]!.e]);
        else {
          const parts: string[] = [];
          if (!orderSame) parts.push(`order changed (${a.map((t) => t.name).join(', ')} → ${b.map((t) => t.name).join(', ')})`);
          if (detail.toolsChanged.length) parts.push(`definitions changed: ${detail.toolsChanged.join(', ')}`);
          checks.flag('INS-MCP-007', 'tool list stable', parts.join('; ').slice(0, 600), ok[1]!.e.url, [ok[0]!.e, ok[1]!.e]);
        }
      }
      const first = ok[0]!.r.result;
      summary.cacheMetadata = hasCacheMetadata(first);
      if (summary.era === 'modern') {
        if (summary.cacheMetadata) checks.pass('cache metadata', 'INS-MCP-008', `ttlMs ${String(first.ttlMs)}, cacheScope ${String(first.cacheScope)}`, ok[0]!.e.url, [ok[0]!.e]);
        else checks.flag('INS-MCP-008', 'cache metadata', 'the ListToolsResult lacks ttlMs or cacheScope', ok[0]!.e.url, [ok[0]!.e]);
      } else {
        checks.info('cache metadata', summary.cacheMetadata ? `ttlMs ${String(first.ttlMs)}, cacheScope ${String(first.cacheScope)}` : `no ttlMs/cacheScope (introduced by ${MODERN_VERSION}; not required of a legacy server)`, ok[0]!.e.url, [ok[0]!.e]);
      }
    }
  }

  // ---- authorization
  const challenged = ex.find((e) => (e.step.startsWith('mcp.')) && isAuthStatus(e));
  if (challenged) {
    summary.auth = judgeAuth(endpoint, challenged, ex, checks);
    // A protected endpoint that says so the MCP way (Bearer challenge or RFC 9728 metadata) is a signal.
    if (summary.auth.resourceMetadataUrl !== null || /bearer/i.test(challenged.headers['www-authenticate'] ?? '')) signal = true;
  }

  summary.state = confirmed ? 'confirmed' : signal ? 'indicated' : 'not_detected';
  if (!confirmed) {
    summary.toolsListStable = null;
    summary.cacheMetadata = null;
  }
  return { summary, checks: checks.list, detail };
}
