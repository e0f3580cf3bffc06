import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { classifyError } from './errors.js';
import type { ExchangeLimit } from './exchange-limit.js';
import { cut, recordHeaders, redirectLocation, type RedirectLocation } from './exchange-record.js';
import type { ResolvedOptions } from './options.js';
import type { ConnState } from './pinned-agent.js';
import { REDIRECT_STATUSES } from './types.js';

/** What an exchange records of its answer (the GET client's Exchange and the inspect requests alike). */
export interface AnswerRecord {
  status: number | null;
  headers: Record<string, string>;
  bodyTruncated: boolean;
  errorClass: string | null;
  errorMessage: string | null;
}

/**
 * Sends one request on the pinned agent and records the status, the headers and the Location.
 * `redirect` is true for an answer that will be followed (or refused): its body is not read.
 * `reset` asks the server to close the connection after the answer (a connection per hop).
 */
export async function sendPinned(
  url: URL,
  req: { method: string; headers: Record<string, string>; body?: string },
  agent: Dispatcher,
  ro: ResolvedOptions,
  limit: ExchangeLimit,
  ex: AnswerRecord,
  reset = true,
): Promise<{ body: Readable; location: RedirectLocation; redirect: boolean }> {
  const res = await request(url, {
    method: req.method as 'GET',
    headers: req.headers,
    ...(req.body !== undefined ? { body: req.body } : {}),
    dispatcher: agent,
    signal: limit.signal,
    headersTimeout: ro.timeoutMs,
    bodyTimeout: ro.timeoutMs,
    reset,
  });
  const body = res.body;
  // Destroying an unfinished undici body emits 'error'; it is expected here, never fatal.
  body.on('error', () => undefined);
  ex.status = res.statusCode;
  ex.headers = recordHeaders(res.headers as Record<string, string | string[] | undefined>);
  const location = redirectLocation(res.headers.location);
  const redirect = ro.follow && REDIRECT_STATUSES.has(res.statusCode) && location.kind !== 'none';
  if (redirect) ex.bodyTruncated = ex.headers['content-length'] !== '0';
  return { body, location, redirect };
}

/**
 * Records why an exchange failed: its own time limit, an address the guard refused at connect
 * time, or the network error's class. Returns whether the failure is transient enough to retry
 * (only failures before any response).
 */
export function recordFailure(ex: AnswerRecord, err: unknown, conn: ConnState, limit: ExchangeLimit): boolean {
  if (limit.timedOut) {
    ex.errorClass = 'timeout';
    ex.errorMessage = `exchange limit of ${limit.ms} ms reached ${conn.connected ? 'waiting for the response' : 'while connecting'}`;
    return !conn.connected;
  }
  if (conn.blocked) {
    ex.errorClass = 'blocked_address';
    ex.errorMessage = cut(conn.blocked);
    return false;
  }
  const c = classifyError(err);
  ex.errorClass = c.errorClass;
  ex.errorMessage = c.message;
  return ex.status === null && (c.errorClass === 'refused' || (c.errorClass === 'timeout' && !conn.connected) || c.errorClass === 'reset');
}
