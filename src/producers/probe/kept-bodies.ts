/**
 * What a probe event keeps of what the probe read ("We do not store probe response
 * bodies"). Only what a replay needs to give the same verdicts:
 *
 * - a public document the rules judge (an A2A agent card, RFC 9728 protected-resource metadata):
 *   a 200 whose whole body parses as JSON, on a card or metadata URL. It goes to the documents
 *   topic keyed by its SHA-256; the exchange keeps only that hash (`bodyKept: document`);
 * - the MCP GET's classification excerpt: the shortest prefix of the answer (at most
 *   MCP_EXCERPT_MAX_BYTES) on which every body reader of the transport rules
 *   (src/conformance/mcp-transport.ts: HTML page, first SSE event, JSON-RPC error) reads the same
 *   as on the whole answer read (`bodyKept: excerpt`); usually nothing or a few bytes;
 * - no other body: error pages, HTML, redirect hops, robots.txt, SSE streams (`bodyKept: none`).
 *
 * Every exchange keeps only the response headers the judgement reads (JUDGED_HEADERS).
 */
import { parseJson } from '../../core/json-util.js';
import { firstSseEvent, isJsonRpcError, looksLikeHtml } from '../../conformance/mcp-transport.js';
import type { DocumentEvent, ProbeEvent, ProbeExchange } from '../../events/types.js';
import { textOrNull } from '../../util/text.js';
import { JUDGED_HEADERS } from '../../http/client.js';
import { sha256 } from '../../http/exchange-record.js';
import { MCP_MAX_BYTES } from '../../http/limits.js';

/** Largest MCP classification excerpt: the MCP GET's read bound, so no answer is ever judged on less than was read. */
export const MCP_EXCERPT_MAX_BYTES = MCP_MAX_BYTES;

/** Prefix lengths tried, shortest first, before keeping the whole (bounded) answer. */
const EXCERPT_STEPS = [0, 64, 128, 256, 512, 1024] as const;

/** Roles whose 200 JSON body is a public document the rules judge. */
const DOCUMENT_ROLES: ReadonlySet<string> = new Set(['card', 'well-known', 'legacy', 'resource-metadata']);

const NO_BODY = Buffer.alloc(0);

/** A probe event as kept, and the documents it names by hash. */
export interface KeptProbe {
  probe: ProbeEvent;
  documents: DocumentEvent[];
}

function judgedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of JUDGED_HEADERS) if (Object.prototype.hasOwnProperty.call(headers, name)) out[name] = headers[name]!;
  return out;
}

/** True when the rules would read this exchange's body as a JSON document (the same decoding and parser). */
function isJsonDocument(e: ProbeExchange): boolean {
  if (!DOCUMENT_ROLES.has(e.role) || e.status !== 200 || e.bodyTruncated) return false;
  const { text } = textOrNull(e.body, false);
  return text !== null && parseJson(text).ok;
}

/** What the transport rules read from an MCP answer's body, as the verdict processor decodes it. */
function bodyReadings(e: ProbeExchange, body: Buffer, truncated: boolean, transport: string | null): string {
  const text = textOrNull(body, truncated).text ?? '';
  const ex = { url: e.url, status: e.status, headers: e.headers, body: text, bodyTruncated: truncated };
  // A remote declared Streamable HTTP is never read for its first SSE event; a legacy SSE one never for a JSON-RPC error.
  return JSON.stringify([
    looksLikeHtml(ex),
    transport === 'streamable-http' ? null : firstSseEvent(text),
    transport === 'sse' ? null : isJsonRpcError(text, truncated),
  ]);
}

/** The MCP GET's classification excerpt (see the module comment). */
export function mcpExcerpt(e: ProbeExchange, transport: string | null): { body: Buffer; bodyTruncated: boolean } {
  if (e.status === null) return { body: NO_BODY, bodyTruncated: e.bodyTruncated };
  const whole = e.body.length > MCP_EXCERPT_MAX_BYTES ? e.body.subarray(0, MCP_EXCERPT_MAX_BYTES) : e.body;
  const wholeTruncated = e.bodyTruncated || whole.length < e.body.length;
  const want = bodyReadings(e, whole, wholeTruncated, transport);
  for (const n of EXCERPT_STEPS) {
    if (n >= whole.length) break;
    const cut = whole.subarray(0, n);
    if (bodyReadings(e, cut, true, transport) === want) return { body: Buffer.from(cut), bodyTruncated: true };
  }
  return { body: Buffer.from(whole), bodyTruncated: wholeTruncated };
}

/** One exchange as kept, and its document when it is one. */
export function keepExchange(
  e: ProbeExchange,
  transport: string | null,
  observedAt: number,
): { exchange: ProbeExchange; document: DocumentEvent | null } {
  const headers = judgedHeaders(e.headers);
  if (e.bodyKept !== undefined && e.bodyKept !== 'whole') return { exchange: { ...e, headers }, document: null };
  if (isJsonDocument(e)) {
    // The key is the hash of exactly the bytes kept, whatever the exchange recorded.
    const hash = sha256(e.body);
    return {
      exchange: { ...e, headers, body: NO_BODY, bodySha256: hash, bodyKept: 'document' },
      document: { sha256: hash, body: e.body, observedAt, url: e.url },
    };
  }
  if (e.role === 'mcp-get') {
    const x = mcpExcerpt(e, transport);
    return { exchange: { ...e, headers, body: x.body, bodyTruncated: x.bodyTruncated, bodyKept: 'excerpt' }, document: null };
  }
  return { exchange: { ...e, headers, body: NO_BODY, bodyKept: 'none' }, document: null };
}

/** A probe event as observed (bodies whole) → the event as kept, and the documents it names (one per hash). */
export function keepProbe(ev: ProbeEvent): KeptProbe {
  const documents = new Map<string, DocumentEvent>();
  const exchanges = ev.exchanges.map((e) => {
    const k = keepExchange(e, ev.transport, ev.observedAt);
    if (k.document) documents.set(k.document.sha256, k.document);
    return k.exchange;
  });
  return { probe: { ...ev, exchanges }, documents: [...documents.values()] };
}
