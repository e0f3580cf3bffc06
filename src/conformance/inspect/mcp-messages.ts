/**
 * The JSON-RPC messages `veronikai inspect` sends, and how it reads the answers that decide its
 * next step (modern → legacy → legacy HTTP+SSE). Pure: the producer builds its requests from
 * here and the judge reads the same answers the same way.
 */
import { isObject, type JsonObject } from '../../core/json-util.js';
import { MODERN_ERROR_CODES, readReply, type JsonRpcReply } from './jsonrpc.js';
import type { InspectExchange } from './types.js';

/** The modern protocol revision asked for first (stateless core, server/discover). */
export const MODERN_VERSION = '2026-07-28';
/** The protocol version offered in the legacy initialize handshake. */
export const LEGACY_VERSION = '2025-11-25';
/** The newest revision before the stateless core: versions up to it are legacy. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const CLIENT_INFO = { name: 'veronikai-inspect', version: '0.1.0' };

export const JSON_AND_SSE = 'application/json, text/event-stream';

function modernMeta(): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': { ...CLIENT_INFO },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** A request of the 2026-07-28 revision: the `_meta` envelope on every request. */
export function modernRequest(id: number, method: string, params: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } };
}

/** The HTTP headers a 2026-07-28 POST carries (MCP-Protocol-Version equal to the _meta version; Mcp-Method). */
export function modernHeaders(method: string): Record<string, string> {
  return { accept: JSON_AND_SSE, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
}

export function initializeRequest(id: number): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { ...CLIENT_INFO } },
  };
}

export const INITIALIZED_NOTIFICATION: JsonObject = { jsonrpc: '2.0', method: 'notifications/initialized' };

export function legacyRequest(id: number, method: string, params: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id, method, params };
}

/** The id of the JSON-RPC request an exchange sent (null for a notification or no body). */
export function requestId(ex: InspectExchange): unknown {
  if (!ex.requestBody) return null;
  try {
    const v = JSON.parse(ex.requestBody) as unknown;
    return isObject(v) && 'id' in v ? v.id : null;
  } catch {
    return null;
  }
}

/** The reply an exchange got: in its body, or (legacy HTTP+SSE) on the event stream. */
export function replyOf(ex: InspectExchange): JsonRpcReply {
  if (ex.streamReply !== undefined) {
    if (ex.streamReply === null) return { kind: 'none', why: 'no message on the event stream answered the request' };
    return readReply(ex.streamReply, { 'content-type': 'application/json' }, requestId(ex));
  }
  return readReply(ex.body, ex.headers, requestId(ex));
}

export type DiscoverReading =
  | { kind: 'modern'; result: JsonObject }
  | { kind: 'auth' }
  | { kind: 'modern-error'; code: number | null; message: string; supported: string[] }
  | { kind: 'legacy'; why: string }
  | { kind: 'no-answer'; why: string };

const isAuthStatus = (s: number | null): boolean => s === 401 || s === 403;

/**
 * What a server/discover exchange says about the server (TRANSPORT.md, 2026-07-28 legacy
 * detection): a result → modern; 401/403 → authorization first; a recognised modern JSON-RPC
 * error (-32020/-32021/-32022) → modern server that refused us; anything else (method not
 * found, an unrecognised 400 body, 404, 405, …) → try the legacy handshake.
 */
export function readDiscover(ex: InspectExchange): DiscoverReading {
  if (ex.status === null) return { kind: 'no-answer', why: ex.errorMessage ?? ex.errorClass ?? 'no answer' };
  if (isAuthStatus(ex.status)) return { kind: 'auth' };
  const reply = replyOf(ex);
  if (reply.kind === 'result' && ex.status >= 200 && ex.status < 300) return { kind: 'modern', result: reply.result };
  if (reply.kind === 'error' && reply.code !== null && (Object.values(MODERN_ERROR_CODES) as number[]).includes(reply.code)) {
    const data = isObject(reply.data) ? reply.data : {};
    const supported = Array.isArray(data.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
    return { kind: 'modern-error', code: reply.code, message: reply.message, supported };
  }
  if (reply.kind === 'error')
    return { kind: 'legacy', why: `JSON-RPC error ${reply.code ?? '?'} (${reply.message.slice(0, 120)}) on HTTP ${ex.status}` };
  return { kind: 'legacy', why: `HTTP ${ex.status}: ${reply.kind === 'none' ? reply.why : 'no result'}` };
}

export type InitializeReading =
  | { kind: 'ok'; result: JsonObject; sessionId: string | null; protocolVersion: string | null }
  | { kind: 'auth' }
  | { kind: 'try-sse'; why: string }
  | { kind: 'failed'; why: string };

/** What the legacy initialize exchange says: a result, authorization first, or (400/404/405) try HTTP+SSE. */
export function readInitialize(ex: InspectExchange): InitializeReading {
  if (ex.status === null) return { kind: 'failed', why: ex.errorMessage ?? ex.errorClass ?? 'no answer' };
  if (isAuthStatus(ex.status)) return { kind: 'auth' };
  const reply = replyOf(ex);
  if (reply.kind === 'result' && ex.status >= 200 && ex.status < 300) {
    const pv = reply.result.protocolVersion;
    return {
      kind: 'ok',
      result: reply.result,
      sessionId: ex.headers['mcp-session-id'] ?? null,
      protocolVersion: typeof pv === 'string' ? pv : null,
    };
  }
  const why =
    reply.kind === 'error'
      ? `JSON-RPC error ${reply.code ?? '?'} on HTTP ${ex.status}`
      : `HTTP ${ex.status}: ${reply.kind === 'none' ? reply.why : 'no result'}`;
  // The 2024-11-05 backwards-compatibility rule: 400, 404 or 405 → try the HTTP+SSE transport.
  if ([400, 404, 405].includes(ex.status) || reply.kind === 'none') return { kind: 'try-sse', why };
  return { kind: 'failed', why };
}
