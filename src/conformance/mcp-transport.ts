import { normalizeUrl } from '../core/canonical-url.js';
import { isObject, own, parseJson } from '../core/json-util.js';
import { sseEvents } from '../core/sse.js';
import type { HttpExchange } from './types.js';

/**
 * The HTTP tests of the transport rules of suite veronikai-mcp-conformance (suites/mcp/transport.ts):
 * a response header, an offered Bearer scheme, published RFC 9728 metadata, an HTML page, the
 * first SSE event, a JSON-RPC error, and whether two URLs name the same endpoint.
 */

/** A response header's value ('' when absent or ill-typed). */
export function header(ex: HttpExchange, name: string): string {
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

/** The type of the first complete event of an event-stream body ('message' when it names none); null when none is complete. */
export function firstSseEvent(body: string): string | null {
  return sseEvents(body)[0]?.event ?? null;
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
