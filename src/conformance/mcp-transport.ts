import { normalizeUrl } from './canonical-url.js';
import { FindingSink } from './findings.js';
import { isObject, own, parseJson, sanitize } from './json-util.js';
import { errorWords, type HttpExchange, type McpObservation } from './types.js';

/**
 * Transport rules on the one GET (Accept: text/event-stream), suite veronikai-mcp-conformance v2
 * (seed 000, validate.mcp_transport; MCP transports and authorization, see ../shared/specs/mcp/TRANSPORT.md).
 *
 * Order of judgement: robots disallow, no GET, a URL template, no answer (timeout, reset, …),
 * 402 and 429 → unknown; 5xx and 404 fail; an HTML page fails (MCP-T-004) whatever the status,
 * so an HTML login or WAF page on 401, 403 or 405 fails too (seed 000: "An HTML page, a 404, or
 * a 5xx fails"); 401 and 403 alike need WWW-Authenticate: Bearer or RFC 9728 metadata — neither
 * fails MCP-T-003, Bearer without metadata is the warning MCP-T-101 (seed 000: "Missing
 * metadata on 401/403 is a warning, not a hard fail, if Bearer or metadata is present as
 * required"); then by the declared transport: Streamable HTTP wants text/event-stream or 405 (a
 * sessionless JSON-RPC error instead of 405 is a warning), legacy SSE wants a stream whose
 * first event is `endpoint`.
 *
 * Decisions where the seed is silent: 404 and 5xx are reported as such (MCP-T-005/006) even
 * when their body is an HTML page; metadata counts as published when its GET returned 200 with
 * a JSON object carrying a string `resource` (RFC 9728 §3.2); an SSE stream in which no
 * complete event arrived within the read bound is unknown, not a failure; a legacy SSE remote
 * that answers 405 fails MCP-T-002.
 */

export type TransportOutcome =
  | { kind: 'judged' }
  | { kind: 'not-run'; reason: string }
  | { kind: 'unknown'; reason: string };

function header(ex: HttpExchange, name: string): string {
  const h = ex.headers;
  if (!isObject(h)) return '';
  const v = own(h, name);
  return typeof v === 'string' ? v : '';
}

/** True when a WWW-Authenticate value offers the Bearer scheme. */
export function offersBearer(value: string): boolean {
  return /(^|,)\s*bearer(\s|,|$)/i.test(value);
}

/** RFC 9728 metadata counts as published when its GET returned 200 with a JSON object with a string `resource`. */
export function metadataPublished(ex: HttpExchange | null | undefined): boolean {
  if (!ex || ex.status !== 200 || typeof ex.body !== 'string') return false;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) && typeof own(r.value, 'resource') === 'string';
}

export function looksLikeHtml(ex: HttpExchange): boolean {
  const ct = header(ex, 'content-type').toLowerCase();
  if (ct.includes('text/html') || ct.includes('application/xhtml')) return true;
  const body = typeof ex.body === 'string' ? ex.body.slice(0, 512) : '';
  return /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i.test(body);
}

/** The name of the first complete SSE event in a body, 'message' when it has data but no event field; null when none. */
export function firstSseEvent(body: string): string | null {
  const text = body.replace(/\r\n?/g, '\n');
  let event: string | null = null;
  let hasData = false;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    if (nl < 0) return null; // an incomplete line: the event is not complete
    const line = text.slice(lineStart, nl);
    lineStart = nl + 1;
    if (line === '') {
      if (event !== null || hasData) return event ?? 'message';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') hasData = true;
  }
  return null;
}

/** A JSON-RPC error object (possibly a truncated one) in a body. */
export function isJsonRpcError(body: string | undefined, truncated: boolean | undefined): boolean {
  if (typeof body !== 'string' || body.trim() === '') return false;
  const r = parseJson(body);
  if (r.ok) {
    const v = r.value;
    const one = Array.isArray(v) ? v[0] : v;
    return isObject(one) && own(one, 'jsonrpc') === '2.0' && isObject(own(one, 'error'));
  }
  return truncated === true && /"jsonrpc"\s*:\s*"2\.0"/.test(body) && /"error"\s*:\s*\{/.test(body);
}

/** Whether two URLs name the same endpoint, by the one canonical URL form the index keys agents by. */
export function sameEndpoint(a: string, b: string): boolean {
  const na = normalizeUrl(a);
  const nb = normalizeUrl(b);
  return na !== null && na === nb;
}


/**
 * Judges the GET of an MCP observation into `sink`. `declared` are the remotes the server.json
 * lists (for MCP-T-103); pass [] when there is no server.json.
 */
export function checkTransport(obs: McpObservation, declared: Array<{ type: string; url: string }>, sink: FindingSink): TransportOutcome {
  if (obs.robots === 'disallowed') return { kind: 'unknown', reason: 'skipped (robots): robots.txt disallows the endpoint' };
  const get = obs.get;
  const remoteUrl = obs.remote && typeof obs.remote.url === 'string' ? obs.remote.url : get && typeof get.url === 'string' ? get.url : '';
  if (/\{[^{}]*\}/.test(remoteUrl)) return { kind: 'unknown', reason: 'the remote URL is a template that needs user values' };
  if (!get) return { kind: 'not-run', reason: 'no live GET was made (structure only)' };
  if (get.status === null || typeof get.status !== 'number') {
    if (obs.canary === 'failed') return { kind: 'unknown', reason: 'our side: the canary failed, so a missing answer is not held against the server' };
    return { kind: 'unknown', reason: `no answer (${errorWords(get.errorClass)})` };
  }
  const status = get.status;
  if (status === 402) return { kind: 'unknown', reason: 'HTTP 402 Payment Required: a paid server answered; we do not pay to look inside' };
  if (status === 429) return { kind: 'unknown', reason: 'HTTP 429 Too Many Requests: rate limited' };

  const legacy = obs.remote?.type === 'sse';
  sink.evaluate('MCP-T-003', 'MCP-T-004', 'MCP-T-005', 'MCP-T-006', 'MCP-T-101', 'MCP-T-103');
  if (legacy) sink.evaluate('MCP-T-002');
  else sink.evaluate('MCP-T-001', 'MCP-T-102');
  const at = sanitize(typeof get.url === 'string' ? get.url : remoteUrl, 200);

  // MCP-T-103: the probed endpoint is the declared remote.
  if (typeof get.url === 'string') {
    if (obs.remote && typeof obs.remote.url === 'string' && !sameEndpoint(get.url, obs.remote.url)) {
      sink.add('MCP-T-103', 'http-get', at, `probed ${JSON.stringify(at)} but the declared remote is ${JSON.stringify(sanitize(obs.remote.url, 200))}`);
    } else if (declared.length > 0 && !declared.some((d) => sameEndpoint(get.url, d.url))) {
      sink.add('MCP-T-103', 'http-get', at, `probed ${JSON.stringify(at)}, which is not among the remotes server.json declares`);
    }
  }

  if (status >= 500) {
    sink.add('MCP-T-006', 'http-get', at, `the GET answered HTTP ${status}`);
    return { kind: 'judged' };
  }
  if (status === 404) {
    sink.add('MCP-T-005', 'http-get', at, 'the GET answered HTTP 404 Not Found');
    return { kind: 'judged' };
  }
  const ct = header(get, 'content-type').toLowerCase();
  const sse = status >= 200 && status < 300 && ct.startsWith('text/event-stream');
  const described = `HTTP ${status}${ct ? `, Content-Type ${JSON.stringify(sanitize(ct, 60))}` : ', no Content-Type'}`;

  // Before the 401/403/405 branches: an HTML login or WAF page on those statuses is still an HTML page.
  if (!sse && looksLikeHtml(get)) {
    sink.add('MCP-T-004', 'http-get', at, `the GET answered with an HTML page (${described})`);
    return { kind: 'judged' };
  }

  if (status === 401 || status === 403) {
    const meta = metadataPublished(obs.metadata);
    const bearer = offersBearer(header(get, 'www-authenticate'));
    if (!bearer && !meta) {
      sink.add('MCP-T-003', 'http-get', at, `HTTP ${status} without WWW-Authenticate: Bearer and without RFC 9728 protected-resource metadata`);
    } else if (!meta) {
      sink.add('MCP-T-101', 'http-metadata', at, `HTTP ${status} with Bearer, but no RFC 9728 protected-resource metadata was found`);
    }
    return { kind: 'judged' };
  }

  if (status === 405) {
    if (legacy) sink.add('MCP-T-002', 'http-get', at, 'a legacy SSE remote answered the GET with 405: no event stream');
    return { kind: 'judged' };
  }
  if (sse) {
    if (!legacy) return { kind: 'judged' };
    const first = firstSseEvent(typeof get.body === 'string' ? get.body : '');
    if (first === null) return { kind: 'unknown', reason: 'the SSE stream opened but no complete event arrived within the read bound' };
    if (first !== 'endpoint') sink.add('MCP-T-002', 'http-get', at, `the first SSE event is ${JSON.stringify(sanitize(first, 40))}, not "endpoint"`);
    return { kind: 'judged' };
  }
  if (!legacy && isJsonRpcError(get.body, get.bodyTruncated)) {
    sink.add('MCP-T-102', 'http-get', at, `the GET got a JSON-RPC error (${described}) where 405 is the specified answer`);
    return { kind: 'judged' };
  }
  if (legacy) sink.add('MCP-T-002', 'http-get', at, `a legacy SSE GET must open an event stream; got ${described}`);
  else sink.add('MCP-T-001', 'http-get', at, `a GET with Accept: text/event-stream must return an SSE stream or 405; got ${described}`);
  return { kind: 'judged' };
}
