import { isEventStream } from '../../../../core/sse.js';
import { MODERN_VERSION, readDiscover, readInitialize, replyOf } from '../../../inspect/mcp-messages.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { isObject, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { DISCOVER, LIFECYCLE, SSE2024, STREAMABLE26 } from '../spec.js';
import type { McpJudgeInput } from './input.js';

/**
 * The handshake of each era, judged in one pass: server/discover (2026-07-28: INS-MCP-001, 002,
 * 013), the legacy initialize over Streamable HTTP (INS-MCP-003), and the deprecated HTTP+SSE
 * transport (INS-MCP-012, 009, and 003 on the stream). They set the era, the capabilities, and
 * whether MCP was confirmed.
 */

export const DISCOVER_COMPLETE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-001',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'server/discover result is complete',
  description:
    'A server that answers server/discover must return a DiscoverResult with resultType, supportedVersions, capabilities, ttlMs and cacheScope.',
  ...DISCOVER,
  check: checkHandshake,
};

export const DISCOVER_NAMES_SERVER: Rule<McpJudgeInput> = {
  id: 'INS-MCP-002',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'server/discover names the server',
  description: 'The DiscoverResult SHOULD carry _meta["io.modelcontextprotocol/serverInfo"] with name and version.',
  ...DISCOVER,
  check: checkHandshake,
};

export const INITIALIZE_COMPLETE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-003',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'initialize result is complete',
  description: 'The legacy initialize handshake must answer with protocolVersion, capabilities and serverInfo (name, version).',
  ...LIFECYCLE,
  check: checkHandshake,
};

export const NOT_LEGACY_SSE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-009',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Not the deprecated HTTP+SSE transport',
  description: 'The server speaks only the HTTP+SSE transport of 2024-11-05, deprecated since 2025-03-26 and on a shortened removal track.',
  ...SSE2024,
  check: checkHandshake,
};

export const SSE_ENDPOINT_EVENT: Rule<McpJudgeInput> = {
  id: 'INS-MCP-012',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Legacy SSE stream opens with an endpoint event',
  description: 'A legacy HTTP+SSE server must send an endpoint event first, and answer the POSTed initialize on the stream.',
  ...SSE2024,
  check: checkHandshake,
};

export const MODERN_ERROR: Rule<McpJudgeInput> = {
  id: 'INS-MCP-013',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Modern errors are well formed',
  description:
    'A 2026-07-28 server rejecting a protocol version must answer 400 with UnsupportedProtocolVersionError (-32022) listing the supported versions.',
  ...STREAMABLE26,
  check: checkHandshake,
};

function checkHandshake(input: McpJudgeInput): void {
  const discover = input.ex.find((e) => e.step === 'mcp.discover');
  const inits = input.ex.filter((e) => e.step === 'mcp.initialize');
  if (discover) checkDiscover(input, discover);
  const httpInit = inits.find((e) => e.streamReply === undefined);
  if (httpInit) checkInitialize(input, httpInit);
  const sseOpen = input.ex.find((e) => e.step === 'mcp.sse-open');
  if (sseOpen) checkSse(input, sseOpen, inits.find((e) => e.streamReply !== undefined) ?? null);
}

function discoverProblems(r: JsonObject): string[] {
  const p: string[] = [];
  if (typeof r.resultType !== 'string') p.push('resultType is missing');
  if (!Array.isArray(r.supportedVersions) || r.supportedVersions.length === 0 || !r.supportedVersions.every((v) => typeof v === 'string'))
    p.push('supportedVersions is not a non-empty list of strings');
  if (!isObject(r.capabilities)) p.push('capabilities is not an object');
  if (!Number.isInteger(r.ttlMs) || (r.ttlMs as number) < 0) p.push('ttlMs is not a non-negative integer');
  if (r.cacheScope !== 'public' && r.cacheScope !== 'private') p.push('cacheScope is not "public" or "private"');
  return p;
}

export function initializeProblems(r: JsonObject): string[] {
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

function checkDiscover(input: McpJudgeInput, discover: InspectExchange): void {
  const { checks, summary } = input;
  const d = readDiscover(discover);
  if (d.kind === 'modern') {
    summary.era = 'modern';
    input.signal = true;
    const problems = discoverProblems(d.result);
    if (problems.length)
      checks.flag(DISCOVER_COMPLETE, 'server/discover', `the DiscoverResult is incomplete: ${problems.join('; ')}`, discover.url, [
        discover,
      ]);
    else {
      input.confirmed = true;
      checks.pass(
        'server/discover',
        DISCOVER_COMPLETE,
        `modern server: supportedVersions ${JSON.stringify(d.result.supportedVersions)}`,
        discover.url,
        [discover],
      );
    }
    readModern(input, d.result, discover);
  } else if (d.kind === 'modern-error') {
    summary.era = 'modern';
    input.signal = true;
    const ok = discover.status === 400 && (d.code !== -32022 || d.supported.length > 0);
    if (ok)
      checks.pass(
        'modern error',
        MODERN_ERROR,
        `the server refused protocol ${MODERN_VERSION} (JSON-RPC ${d.code}); it supports ${JSON.stringify(d.supported)}`,
        discover.url,
        [discover],
      );
    else
      checks.flag(
        MODERN_ERROR,
        'modern error',
        `JSON-RPC ${d.code} on HTTP ${discover.status}${d.code === -32022 ? ' without the supported versions' : ''} (400 expected)`,
        discover.url,
        [discover],
      );
  } else if (d.kind === 'legacy') {
    checks.info('server/discover', `not a 2026-07-28 server (${d.why}); tried the legacy handshake`, discover.url, [discover]);
    if (replyOf(discover).kind !== 'none') input.signal = true;
  } else if (d.kind === 'no-answer') {
    checks.info('server/discover', `no answer: ${d.why}`, discover.url, [discover]);
  }
}

/** What a DiscoverResult says of the server: its capabilities, versions, and name (INS-MCP-002). */
function readModern(input: McpJudgeInput, result: JsonObject, discover: InspectExchange): void {
  const { checks, detail } = input;
  input.capabilities = isObject(result.capabilities) ? result.capabilities : null;
  input.capsFrom = discover;
  detail.supportedVersions = Array.isArray(result.supportedVersions)
    ? result.supportedVersions.filter((v): v is string => typeof v === 'string')
    : [];
  detail.protocolVersion = detail.supportedVersions.includes(MODERN_VERSION) ? MODERN_VERSION : (detail.supportedVersions[0] ?? null);
  const meta = isObject(result._meta) ? result._meta : {};
  const si = meta['io.modelcontextprotocol/serverInfo'];
  if (isObject(si) && typeof si.name === 'string' && typeof si.version === 'string') {
    detail.serverInfo = si;
    checks.pass('server identifies itself', DISCOVER_NAMES_SERVER, `serverInfo ${si.name} ${si.version}`, discover.url, [discover]);
  } else
    checks.flag(
      DISCOVER_NAMES_SERVER,
      'server identifies itself',
      'no _meta["io.modelcontextprotocol/serverInfo"] with name and version',
      discover.url,
      [discover],
    );
}

function checkInitialize(input: McpJudgeInput, httpInit: InspectExchange): void {
  const { checks, summary, detail } = input;
  const i = readInitialize(httpInit);
  if (i.kind === 'ok') {
    summary.era = 'legacy';
    input.signal = true;
    const problems = initializeProblems(i.result);
    if (problems.length)
      checks.flag(INITIALIZE_COMPLETE, 'initialize', `the InitializeResult is incomplete: ${problems.join('; ')}`, httpInit.url, [
        httpInit,
      ]);
    else {
      input.confirmed = true;
      checks.pass(
        'initialize',
        INITIALIZE_COMPLETE,
        `legacy server: protocolVersion ${String(i.result.protocolVersion)}${i.sessionId ? ', with a session' : ', no session'}`,
        httpInit.url,
        [httpInit],
      );
    }
    input.capabilities = isObject(i.result.capabilities) ? i.result.capabilities : null;
    input.capsFrom = httpInit;
    detail.serverInfo = isObject(i.result.serverInfo) ? i.result.serverInfo : null;
    detail.protocolVersion = i.protocolVersion;
  } else if (i.kind !== 'auth') {
    checks.info('initialize', `no legacy handshake: ${i.why}`, httpInit.url, [httpInit]);
    if (replyOf(httpInit).kind !== 'none') input.signal = true;
  }
}

function checkSse(input: McpJudgeInput, sseOpen: InspectExchange, sseInit: InspectExchange | null): void {
  const { checks, summary, detail } = input;
  const first = sseOpen.events?.[0];
  const stream = sseOpen.status === 200 && isEventStream(sseOpen.headers);
  if (stream) input.signal = true;
  const reply = sseInit ? replyOf(sseInit) : null;
  if (first?.event === 'endpoint' && reply?.kind === 'result') {
    summary.era = 'legacy-sse';
    const problems = initializeProblems(reply.result);
    checks.pass('HTTP+SSE endpoint event', SSE_ENDPOINT_EVENT, `endpoint event: ${first.data.slice(0, 200)}`, sseOpen.url, [sseOpen]);
    if (problems.length)
      checks.flag(INITIALIZE_COMPLETE, 'initialize', `the InitializeResult is incomplete: ${problems.join('; ')}`, sseInit!.url, [sseInit]);
    else {
      input.confirmed = true;
      checks.pass(
        'initialize',
        INITIALIZE_COMPLETE,
        `legacy HTTP+SSE server: protocolVersion ${String(reply.result.protocolVersion)}`,
        sseInit!.url,
        [sseInit],
      );
    }
    input.capabilities = isObject(reply.result.capabilities) ? reply.result.capabilities : null;
    input.capsFrom = sseInit;
    detail.serverInfo = isObject(reply.result.serverInfo) ? reply.result.serverInfo : null;
    detail.protocolVersion = typeof reply.result.protocolVersion === 'string' ? reply.result.protocolVersion : null;
    checks.flag(
      NOT_LEGACY_SSE,
      'transport',
      'the server speaks only the HTTP+SSE transport of 2024-11-05 (deprecated since 2025-03-26)',
      sseOpen.url,
      [sseOpen],
    );
  } else if (stream) {
    const why =
      first?.event !== 'endpoint'
        ? `the first event is ${first ? `"${first.event}"` : 'missing'}, not "endpoint"`
        : `no answer to initialize on the stream`;
    checks.flag(SSE_ENDPOINT_EVENT, 'HTTP+SSE endpoint event', why, sseOpen.url, [sseOpen, sseInit]);
  } else {
    checks.info(
      'HTTP+SSE',
      `no event stream: ${sseOpen.status === null ? (sseOpen.errorMessage ?? sseOpen.errorClass) : `HTTP ${sseOpen.status} ${sseOpen.headers['content-type'] ?? ''}`}`,
      sseOpen.url,
      [sseOpen],
    );
  }
}
