import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { classifyError } from './errors.js';
import type { ExchangeLimit } from './exchange-limit.js';
import { cut, recordHeaders, redirectLocation, type RedirectLocation } from './exchange-record.js';
import type { ResolvedOptions } from './options.js';
import type { ConnState } from './pinned-agent.js';
import { REDIRECT_STATUSES, type Exchange } from './types.js';

/**
 * Sends one request on a pinned connection and records the status, the headers and the Location.
 * `redirect` is true for an answer that will be followed (or refused): its body is not read.
 * The headers must come within `timeoutMs`; the body may take the whole exchange limit (longer
 * only for an answer that may be kept open).
 */
export async function sendPinned(
  url: URL,
  req: { headers: Record<string, string>; body?: string },
  dispatcher: Dispatcher,
  ro: ResolvedOptions,
  limit: ExchangeLimit,
  ex: Exchange,
): Promise<{ body: Readable; location: RedirectLocation; redirect: boolean }> {
  const res = await request(url, {
    method: ex.method,
    headers: req.headers,
    ...(req.body !== undefined ? { body: req.body } : {}),
    dispatcher,
    signal: limit.signal,
    headersTimeout: ro.timeoutMs,
    bodyTimeout: limit.ms,
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
export function recordFailure(ex: Exchange, err: unknown, conn: ConnState, limit: ExchangeLimit): boolean {
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
