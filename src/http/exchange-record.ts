/** Building the recorded Exchange: request headers sent, response headers kept, synthetic exchanges. */
import { createHash } from 'node:crypto';
import { MAX_ERROR_MESSAGE, MAX_RECORDED_HEADER_BYTES, MAX_RECORDED_HEADER_VALUE, MAX_URL_CHARS } from './limits.js';
import type { RequestOptions } from './options.js';
import { OMITTED_HEADERS_MARKER, type ErrorClass, type Exchange, type RequestMethod } from './types.js';

/** The crawler's User-Agent, built from the configured contact address. */
export function userAgent(contact: string): string {
  const clean = String(contact ?? '')
    .replace(/[^\x21-\x7e]/g, '')
    .replace(/[();<>,"\\]/g, '')
    .slice(0, 200);
  return `VeronikAI/0.1 (+mailto:${clean}; read-only directory crawler)`;
}

/** Headers the transport owns: a caller never sets them. */
const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
]);

/** Credentials: the crawler never authenticates, so they go out only when a caller declares them secret. */
function isCredential(name: string): boolean {
  return name === 'authorization' || name === 'cookie' || name.startsWith('proxy-');
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** What a recorded request header reads in place of a credential. */
export const REDACTED = '[redacted]';

/** Response headers never recorded (server-set cookies are not ours to keep; our own size mark is ours alone). */
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', OMITTED_HEADERS_MARKER]);

/**
 * Response headers the judgement reads: recorded first, so the total-size cap never drops
 * them, and the last a probe event sheds when it must shrink.
 */
export const JUDGED_HEADERS: readonly string[] = [
  'content-type',
  'content-length',
  'content-encoding',
  'location',
  'www-authenticate',
  'retry-after',
  'mcp-session-id',
  'mcp-protocol-version',
];

/** Recorded first, so the total-size cap never drops them. */
const PRIORITY_HEADERS = [...JUDGED_HEADERS, 'etag', 'last-modified', 'cache-control', 'allow', 'date', 'server'];

export const EMPTY = Buffer.alloc(0);
const EMPTY_SHA256 = sha256(EMPTY);

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** An error message or URL cut to what an event records. */
export function cut(text: string, max = MAX_ERROR_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The headers of one hop: what is sent, and what is recorded (credentials redacted). */
export interface HopHeaders {
  send: Record<string, string>;
  record: Record<string, string>;
}

/**
 * The request headers of one hop. The caller's secret headers go only to the origin of the
 * first URL (`sameOrigin`); every other credential, and every framing header, is dropped.
 */
export function requestHeaders(opts: RequestOptions, sameOrigin: boolean): HopHeaders {
  const secret = new Set((opts.secretHeaders ?? []).map((h) => h.toLowerCase()));
  const send: Record<string, string> = {
    'user-agent': opts.userAgent ?? userAgent(opts.contact ?? ''),
    accept: opts.accept ?? '*/*',
    'accept-encoding': 'gzip, deflate, br',
  };
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    const n = name.toLowerCase().trim();
    const v = String(value);
    if (!HEADER_NAME.test(n) || FRAMING_HEADERS.has(n) || /[\r\n\0]/.test(v)) continue;
    if (secret.has(n) ? !sameOrigin : isCredential(n)) continue;
    send[n] = v;
  }
  if (opts.body !== undefined) send['content-type'] = opts.contentType ?? 'application/json';
  if (secret.size === 0) return { send, record: send };
  const record: Record<string, string> = {};
  for (const [n, v] of Object.entries(send)) record[n] = secret.has(n) ? REDACTED : v;
  return { send, record };
}

/** The response headers kept: lowercase, cut per value, priority headers first within the total cap. */
export function recordHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    if (DROPPED_RESPONSE_HEADERS.has(n)) continue;
    const v = Array.isArray(value) ? value.join(', ') : String(value);
    entries.push([n, v.length > MAX_RECORDED_HEADER_VALUE ? v.slice(0, MAX_RECORDED_HEADER_VALUE) : v]);
  }
  const rank = (n: string): number => {
    const i = PRIORITY_HEADERS.indexOf(n);
    return i < 0 ? PRIORITY_HEADERS.length : i;
  };
  entries.sort((a, b) => rank(a[0]) - rank(b[0]));
  const out: Record<string, string> = {};
  let total = 0;
  for (const [n, v] of entries) {
    const size = n.length + v.length + 4;
    if (total + size > MAX_RECORDED_HEADER_BYTES) continue;
    total += size;
    out[n] = n in out ? `${out[n]}, ${v}` : v;
  }
  return out;
}

export function baseExchange(url: string, method: RequestMethod, requestHeaders: Record<string, string>, started: Date): Exchange {
  return {
    url,
    method,
    requestHeaders,
    status: null,
    headers: {},
    body: EMPTY,
    bodyTruncated: false,
    bodyBytes: 0,
    bodySha256: EMPTY_SHA256,
    remoteAddress: null,
    startedAt: started.toISOString(),
    durationMs: 0,
    errorClass: null,
    errorMessage: null,
    retries: 0,
  };
}

/** A synthetic exchange: nothing was sent (invalid URL, loop, too many redirects, skipped host, a gate's refusal). */
export function syntheticExchange(
  url: string,
  method: RequestMethod,
  headers: HopHeaders,
  errorClass: ErrorClass,
  message: string,
): Exchange {
  const ex = baseExchange(cut(url, MAX_URL_CHARS), method, headers.record, new Date());
  ex.errorClass = errorClass;
  ex.errorMessage = cut(message);
  return ex;
}

/**
 * The Location of a response: none, one usable value, or one we will not follow (longer than we
 * record, MAX_RECORDED_HEADER_VALUE, or several different values).
 */
export type RedirectLocation = { kind: 'none' } | { kind: 'url'; value: string } | { kind: 'refused'; reason: string };

export const NO_LOCATION: RedirectLocation = { kind: 'none' };

export function redirectLocation(raw: string | string[] | undefined): RedirectLocation {
  if (raw === undefined) return NO_LOCATION;
  const values = [...new Set((Array.isArray(raw) ? raw : [raw]).map(String))];
  if (values.length === 0) return NO_LOCATION;
  if (values.length > 1) return { kind: 'refused', reason: `${values.length} different Location headers` };
  const value = values[0]!;
  // The recorded Location is cut at MAX_RECORDED_HEADER_VALUE: a longer one would be followed unrecorded.
  if (value.length > MAX_RECORDED_HEADER_VALUE) {
    return {
      kind: 'refused',
      reason: `Location is ${value.length} characters long, over the ${MAX_RECORDED_HEADER_VALUE}-character limit`,
    };
  }
  return { kind: 'url', value };
}
