/**
 * Reading JSON-RPC answers out of bounded bodies: a JSON body, or a `text/event-stream` body
 * whose `message` events carry JSON-RPC messages (Streamable HTTP may answer a POST either way).
 * Pure; shared by the producer (to decide its next request) and the judge.
 */
import { isObject, parseJson, type JsonObject } from '../../core/json-util.js';
import { isEventStream, sseEvents } from '../../core/sse.js';

export function isJsonContent(headers: Record<string, string>): boolean {
  return /^\s*application\/([a-z0-9.+-]*\+)?json\b/i.test(headers['content-type'] ?? '');
}

export type JsonRpcReply =
  | { kind: 'result'; id: unknown; result: JsonObject }
  | { kind: 'error'; id: unknown; code: number | null; message: string; data: unknown }
  | { kind: 'none'; why: string };

function asReply(v: unknown): JsonRpcReply | null {
  if (!isObject(v) || v.jsonrpc !== '2.0') return null;
  if ('result' in v) {
    return isObject(v.result)
      ? { kind: 'result', id: v.id, result: v.result }
      : { kind: 'none', why: 'the JSON-RPC result is not an object' };
  }
  if ('error' in v && isObject(v.error)) {
    const e = v.error;
    return {
      kind: 'error',
      id: v.id,
      code: typeof e.code === 'number' ? e.code : null,
      message: typeof e.message === 'string' ? e.message : '',
      data: e.data,
    };
  }
  return null;
}

/** The JSON-RPC reply with `id` in a text (JSON or the data of an SSE event); a reply with a null id (an error before the id was read) counts too. */
export function replyInText(text: string, id: unknown): JsonRpcReply | null {
  const r = parseJson(text);
  if (!r.ok) return null;
  const items = Array.isArray(r.value) ? r.value : [r.value];
  for (const item of items) {
    const reply = asReply(item);
    if (reply && (reply.kind === 'none' || reply.id === id || reply.id === null || reply.id === undefined)) return reply;
  }
  return null;
}

/** The JSON-RPC reply to request `id` in a response body (JSON, or an event stream). */
export function readReply(body: string, headers: Record<string, string>, id: unknown): JsonRpcReply {
  if (isEventStream(headers)) {
    const events = sseEvents(body.endsWith('\n\n') ? body : `${body}\n\n`);
    for (const e of events) {
      if (e.event !== 'message') continue;
      const reply = replyInText(e.data, id);
      if (reply) return reply;
    }
    return { kind: 'none', why: events.length === 0 ? 'the event stream carried no event' : 'no event of the stream answered the request' };
  }
  if (body.trim() === '') return { kind: 'none', why: 'the body is empty' };
  const reply = replyInText(body, id);
  return (
    reply ?? { kind: 'none', why: parseJson(body).ok ? 'the body is JSON but not a JSON-RPC reply to the request' : 'the body is not JSON' }
  );
}

/** True once `body` holds a complete reply to `id` (used to stop reading a POST's event stream). */
export function hasReply(body: Buffer, headers: Record<string, string>, id: unknown): boolean {
  if (!isEventStream(headers)) return false;
  const events = sseEvents(body.toString('utf8'));
  return events.some((e) => e.event === 'message' && replyInText(e.data, id) !== null);
}

/** The JSON-RPC error codes of the 2026-07-28 revision a modern server answers with. */
export const MODERN_ERROR_CODES = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedProtocolVersion: -32022 } as const;
