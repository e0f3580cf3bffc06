/**
 * Speaking MCP the way a client would, within the session's bounds, and never calling a tool:
 *
 * 1. `server/discover` at 2026-07-28 (the `_meta` envelope, MCP-Protocol-Version and
 *    Mcp-Method headers). A result → modern era: tools/list twice.
 * 2. Otherwise the legacy `initialize` handshake, `notifications/initialized` with the session
 *    header, tools/list twice, and a DELETE of the session at the end.
 * 3. When initialize got 400, 404 or 405 (or no JSON-RPC answer): the deprecated HTTP+SSE
 *    transport of 2024-11-05 (GET, the `endpoint` event, POSTs answered on the stream).
 *
 * On 401/403 at any step, the authorization discovery (auth.ts) runs and the handshake stops,
 * unless the owner passed credentials and the server let them through.
 */
import { hasReply, replyInText } from '../conformance/inspect/jsonrpc.js';
import {
  INITIALIZED_NOTIFICATION,
  JSON_AND_SSE,
  initializeRequest,
  legacyRequest,
  modernHeaders,
  modernRequest,
  readDiscover,
  readInitialize,
} from '../conformance/inspect/mcp-messages.js';
import type { InspectExchange } from '../conformance/inspect/types.js';
import { CARD_MAX_BYTES } from '../http/limits.js';
import { sseEvents } from '../core/sse.js';
import { discoverAuthorization } from './auth.js';
import type { InspectSession } from './session.js';

/** JSON-RPC answers (a tool list can be long) are read up to the card cap. */
const RPC_MAX_BYTES = CARD_MAX_BYTES;
/** How long the legacy stream is waited on for the endpoint event, and for each answer. */
const SSE_WAIT_MS = 5_000;

function stopAtReply(id: number) {
  return (body: Buffer, headers: Record<string, string>): boolean => hasReply(body, headers, id);
}

async function post(
  s: InspectSession,
  step: InspectExchange['step'],
  url: string,
  message: object,
  headers: Record<string, string>,
): Promise<InspectExchange | null> {
  const id = (message as { id?: unknown }).id;
  return s.send(step, 'POST', url, {
    headers: { accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(message),
    maxBytes: RPC_MAX_BYTES,
    ...(typeof id === 'number' ? { stopWhen: stopAtReply(id) } : {}),
  });
}

export async function inspectMcp(s: InspectSession, url: string): Promise<void> {
  let id = 1;
  // 1. modern
  const discover = await post(s, 'mcp.discover', url, modernRequest(id++, 'server/discover'), modernHeaders('server/discover'));
  if (!discover) return;
  const d = readDiscover(discover);
  if (d.kind === 'auth') {
    await discoverAuthorization(s, url, discover);
    return;
  }
  if (d.kind === 'modern' || d.kind === 'modern-error') {
    if (d.kind === 'modern') {
      for (let i = 0; i < 2; i++) {
        const r = await post(s, 'mcp.tools-list', url, modernRequest(id++, 'tools/list'), modernHeaders('tools/list'));
        if (!r) return;
        if (r.status === 401 || r.status === 403) {
          await discoverAuthorization(s, url, r);
          return;
        }
      }
    }
    return;
  }
  if (d.kind === 'no-answer') return;

  // 2. legacy Streamable HTTP
  const init = await post(s, 'mcp.initialize', url, initializeRequest(id++), {});
  if (!init) return;
  const i = readInitialize(init);
  if (i.kind === 'auth') {
    await discoverAuthorization(s, url, init);
    return;
  }
  if (i.kind === 'ok') {
    const headers: Record<string, string> = {};
    if (i.sessionId) headers['mcp-session-id'] = i.sessionId;
    if (i.protocolVersion) headers['mcp-protocol-version'] = i.protocolVersion;
    await post(s, 'mcp.initialized', url, INITIALIZED_NOTIFICATION, headers);
    for (let k = 0; k < 2; k++) {
      const r = await post(s, 'mcp.tools-list', url, legacyRequest(id++, 'tools/list'), headers);
      if (!r) break;
    }
    if (i.sessionId) await s.send('mcp.delete-session', 'DELETE', url, { headers, maxBytes: 4096 });
    return;
  }
  if (i.kind !== 'try-sse') return;

  // 3. legacy HTTP+SSE (2024-11-05)
  await inspectLegacySse(s, url, id);
}

async function inspectLegacySse(s: InspectSession, url: string, firstId: number): Promise<void> {
  const opened = await s.stream('mcp.sse-open', url, RPC_MAX_BYTES);
  if (!opened) return;
  const { stream, finish } = opened;
  try {
    if (!stream.open) return;
    const text = await stream.waitFor((t) => sseEvents(t).length > 0, Math.min(SSE_WAIT_MS, s.timeLeftMs));
    const first = sseEvents(text)[0];
    if (!first || first.event !== 'endpoint') return;
    let endpoint: string;
    try {
      endpoint = new URL(first.data.trim(), url).href;
    } catch {
      return;
    }
    let id = firstId;
    const ask = async (message: object, step: InspectExchange['step']): Promise<InspectExchange | null> => {
      const ex = await s.send(step, 'POST', endpoint, {
        headers: { accept: JSON_AND_SSE },
        body: JSON.stringify(message),
        maxBytes: 64 * 1024,
      });
      if (!ex) return null;
      const mid = (message as { id?: unknown }).id;
      if (mid === undefined) return ex;
      const find = (t: string): string | null =>
        sseEvents(t).find((e) => e.event === 'message' && replyInText(e.data, mid) !== null)?.data ?? null;
      const all = await stream.waitFor((t) => find(t) !== null, Math.min(SSE_WAIT_MS, Math.max(0, s.timeLeftMs)));
      ex.streamReply = find(all);
      return ex;
    };
    const init = await ask(initializeRequest(id++), 'mcp.initialize');
    if (!init || init.streamReply === null) return;
    await ask(INITIALIZED_NOTIFICATION, 'mcp.initialized');
    for (let k = 0; k < 2; k++) if (!(await ask(legacyRequest(id++, 'tools/list'), 'mcp.tools-list'))) break;
  } finally {
    const all = await stream.waitFor(() => true, 0);
    finish(sseEvents(all));
  }
}
