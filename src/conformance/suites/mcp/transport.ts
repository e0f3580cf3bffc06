import { flag, type VerdictRecorder } from '../../findings.js';
import { sanitize } from '../../../core/json-util.js';
import {
  firstSseEvent,
  header,
  isJsonRpcError,
  looksLikeHtml,
  metadataPublished,
  offersBearer,
  sameEndpoint,
} from '../../mcp-transport.js';
import type { Rule } from '../../rule.js';
import { errorWords, type HttpExchange, type McpObservation } from '../../types.js';
import type { McpInput, TransportOutcome } from './input.js';
import { LISTENING, PRM_DISCOVERY, STREAMABLE, serverJson } from './spec.js';

/**
 * MCP-T-*: the transport rules, judged in one pass on the probe's one GET (Accept:
 * text/event-stream). Order of judgement: robots disallow, no GET, a URL template, no answer
 * (timeout, reset, …), 402 and 429 → unknown; 5xx and 404 fail; an HTML page fails (MCP-T-004)
 * whatever the status, so an HTML login or WAF page on 401, 403 or 405 fails too; 401 and 403
 * alike need WWW-Authenticate: Bearer or RFC 9728 metadata — neither fails MCP-T-003, Bearer
 * without metadata is the warning MCP-T-101; then by the declared transport: Streamable HTTP
 * wants text/event-stream or 405 (a sessionless JSON-RPC error instead of 405 is a warning),
 * legacy SSE wants a stream whose first event is `endpoint`.
 *
 * Decisions the protocol leaves open (docs/RULES.md): 404 and 5xx are reported as such even when
 * their body is an HTML page; metadata counts as published when its GET returned 200 with a JSON
 * object carrying a string `resource` (RFC 9728 §3.2); an SSE stream in which no complete event
 * arrived within the read bound is unknown, not a failure; a legacy SSE remote that answers 405
 * fails MCP-T-002.
 */

export const SSE_OR_405: Rule<McpInput> = {
  id: 'MCP-T-001',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Streamable HTTP GET answers with SSE or 405',
  description: 'A GET with Accept: text/event-stream must return Content-Type: text/event-stream or HTTP 405.',
  ...LISTENING,
  check: checkTransport,
};

export const LEGACY_ENDPOINT_EVENT: Rule<McpInput> = {
  id: 'MCP-T-002',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Legacy SSE opens with an endpoint event',
  description: "A legacy HTTP+SSE server's GET must open an event stream whose first event is `endpoint`.",
  section: 'MCP 2024-11-05 Transports, HTTP with SSE',
  link: 'https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse',
  check: checkTransport,
};

export const AUTH_DESCRIBED: Rule<McpInput> = {
  id: 'MCP-T-003',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: '401/403 says how to authorise',
  description:
    'HTTP 401 or 403 must carry WWW-Authenticate: Bearer or publish RFC 9728 protected-resource metadata; neither fails (Bearer without metadata is only the warning MCP-T-101).',
  section: 'MCP 2025-11-25 Authorization, Protected Resource Metadata discovery',
  link: PRM_DISCOVERY,
  check: checkTransport,
};

export const NOT_HTML: Rule<McpInput> = {
  id: 'MCP-T-004',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Not an HTML page',
  description: 'The MCP endpoint answered with an HTML page (on any status, including an HTML login or WAF page on 401, 403 or 405).',
  ...STREAMABLE,
  check: checkTransport,
};

export const ENDPOINT_EXISTS: Rule<McpInput> = {
  id: 'MCP-T-005',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Endpoint exists',
  description: 'The MCP endpoint answered HTTP 404.',
  ...STREAMABLE,
  check: checkTransport,
};

export const NO_SERVER_ERROR: Rule<McpInput> = {
  id: 'MCP-T-006',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'No server error',
  description: 'The MCP endpoint answered with a 5xx server error.',
  ...STREAMABLE,
  check: checkTransport,
};

export const METADATA_PUBLISHED: Rule<McpInput> = {
  id: 'MCP-T-101',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Protected-resource metadata published',
  description:
    'The endpoint answered 401 or 403 with WWW-Authenticate: Bearer but without RFC 9728 protected-resource metadata (Bearer was present as required, so this does not fail; neither Bearer nor metadata fails MCP-T-003).',
  section: 'RFC 9728; MCP 2025-11-25 Authorization',
  link: PRM_DISCOVERY,
  check: checkTransport,
};

export const METHOD_NOT_ALLOWED: Rule<McpInput> = {
  id: 'MCP-T-102',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: '405 instead of a sessionless JSON-RPC error',
  description: 'The GET got a JSON-RPC error (no session) where 405 Method Not Allowed is the specified answer.',
  ...LISTENING,
  check: checkTransport,
};

export const DECLARED_REMOTE: Rule<McpInput> = {
  id: 'MCP-T-103',
  suite: 'mcp',
  component: 'endpoint',
  severity: 'warn',
  basis: 'policy',
  needs: 'live',
  prerequisites: ['MCP-Q-001'],
  title: 'Probed endpoint is the declared remote',
  description: 'The endpoint that was probed differs from the remote declared in server.json.',
  ...serverJson('remotes[].url'),
  check: checkTransport,
};

function checkTransport(input: McpInput): void {
  const obs = input.obs!; // the transport rules run on a probe only
  const untested = untestable(obs);
  if (untested !== null) {
    input.transport = untested;
    return;
  }
  const get = obs.get!;
  const legacy = obs.remote?.type === 'sse';
  const rec = input.rec;
  rec.pass(AUTH_DESCRIBED, NOT_HTML, ENDPOINT_EXISTS, NO_SERVER_ERROR, METADATA_PUBLISHED, DECLARED_REMOTE);
  if (legacy) rec.pass(LEGACY_ENDPOINT_EVENT);
  else rec.pass(SSE_OR_405, METHOD_NOT_ALLOWED);
  const at = sanitize(typeof get.url === 'string' ? get.url : remoteUrlOf(obs), 200);
  checkDeclared(rec, obs, input.declared, at);
  input.transport = judgeAnswer(rec, obs, get, legacy, at);
}

function remoteUrlOf(obs: McpObservation): string {
  return obs.remote && typeof obs.remote.url === 'string' ? obs.remote.url : obs.get && typeof obs.get.url === 'string' ? obs.get.url : '';
}

/** Why the GET cannot be judged (not made, unanswered, paid or rate limited), or null when it can. */
function untestable(obs: McpObservation): TransportOutcome | null {
  if (obs.robots === 'disallowed') return { kind: 'unknown', reason: 'skipped (robots): robots.txt disallows the endpoint' };
  const get = obs.get;
  if (/\{[^{}]*\}/.test(remoteUrlOf(obs))) return { kind: 'unknown', reason: 'the remote URL is a template that needs user values' };
  if (!get) return { kind: 'not-run', reason: 'no live GET was made (structure only)' };
  if (get.status === null || typeof get.status !== 'number') {
    if (obs.canary === 'failed')
      return { kind: 'unknown', reason: 'our side: the canary failed, so a missing answer is not held against the server' };
    return { kind: 'unknown', reason: `no answer (${errorWords(get.errorClass)})` };
  }
  if (get.status === 402)
    return { kind: 'unknown', reason: 'HTTP 402 Payment Required: a paid server answered; we do not pay to look inside' };
  if (get.status === 429) return { kind: 'unknown', reason: 'HTTP 429 Too Many Requests: rate limited' };
  return null;
}

/** MCP-T-103: the probed endpoint is the declared remote. */
function checkDeclared(rec: VerdictRecorder, obs: McpObservation, declared: McpInput['declared'], at: string): void {
  const url = obs.get!.url;
  if (typeof url !== 'string') return;
  if (obs.remote && typeof obs.remote.url === 'string' && !sameEndpoint(url, obs.remote.url)) {
    flag(
      rec,
      DECLARED_REMOTE,
      'http-get',
      at,
      `probed ${JSON.stringify(at)} but the declared remote is ${JSON.stringify(sanitize(obs.remote.url, 200))}`,
    );
  } else if (declared.length > 0 && !declared.some((d) => sameEndpoint(url, d.url))) {
    flag(rec, DECLARED_REMOTE, 'http-get', at, `probed ${JSON.stringify(at)}, which is not among the remotes server.json declares`);
  }
}

function judgeAnswer(rec: VerdictRecorder, obs: McpObservation, get: HttpExchange, legacy: boolean, at: string): TransportOutcome {
  const status = get.status!;
  if (status >= 500) return fail(rec, NO_SERVER_ERROR, at, `the GET answered HTTP ${status}`);
  if (status === 404) return fail(rec, ENDPOINT_EXISTS, at, 'the GET answered HTTP 404 Not Found');
  const ct = header(get, 'content-type').toLowerCase();
  const sse = status >= 200 && status < 300 && ct.startsWith('text/event-stream');
  const described = `HTTP ${status}${ct ? `, Content-Type ${JSON.stringify(sanitize(ct, 60))}` : ', no Content-Type'}`;
  // Before the 401/403/405 branches: an HTML login or WAF page on those statuses is still an HTML page.
  if (!sse && looksLikeHtml(get)) return fail(rec, NOT_HTML, at, `the GET answered with an HTML page (${described})`);
  if (status === 401 || status === 403) {
    const meta = metadataPublished(obs.metadata);
    if (!offersBearer(header(get, 'www-authenticate')) && !meta)
      return fail(
        rec,
        AUTH_DESCRIBED,
        at,
        `HTTP ${status} without WWW-Authenticate: Bearer and without RFC 9728 protected-resource metadata`,
      );
    if (!meta)
      flag(
        rec,
        METADATA_PUBLISHED,
        'http-metadata',
        at,
        `HTTP ${status} with Bearer, but no RFC 9728 protected-resource metadata was found`,
      );
    return { kind: 'judged' };
  }
  if (status === 405)
    return legacy
      ? fail(rec, LEGACY_ENDPOINT_EVENT, at, 'a legacy SSE remote answered the GET with 405: no event stream')
      : { kind: 'judged' };
  if (sse) {
    if (!legacy) return { kind: 'judged' };
    const first = firstSseEvent(typeof get.body === 'string' ? get.body : '');
    if (first === null) return { kind: 'unknown', reason: 'the SSE stream opened but no complete event arrived within the read bound' };
    return first === 'endpoint'
      ? { kind: 'judged' }
      : fail(rec, LEGACY_ENDPOINT_EVENT, at, `the first SSE event is ${JSON.stringify(sanitize(first, 40))}, not "endpoint"`);
  }
  if (!legacy && isJsonRpcError(get.body, get.bodyTruncated))
    return fail(rec, METHOD_NOT_ALLOWED, at, `the GET got a JSON-RPC error (${described}) where 405 is the specified answer`);
  if (legacy) return fail(rec, LEGACY_ENDPOINT_EVENT, at, `a legacy SSE GET must open an event stream; got ${described}`);
  return fail(rec, SSE_OR_405, at, `a GET with Accept: text/event-stream must return an SSE stream or 405; got ${described}`);
}

/** Records a failure of the GET; the GET was judged. */
function fail(rec: VerdictRecorder, rule: Rule<McpInput>, at: string, message: string): TransportOutcome {
  flag(rec, rule, 'http-get', at, message);
  return { kind: 'judged' };
}
