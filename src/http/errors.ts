/** Classifying what went wrong in an exchange into the recorded ErrorClass. */
import { cut } from './exchange-record.js';
import { BLOCKED_CODE } from './pinned-agent.js';
import type { ErrorClass } from './types.js';

function errorCodes(err: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (e === null || e === undefined || typeof e !== 'object' || seen.has(e) || depth > 5) return;
    seen.add(e);
    const o = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; name?: unknown };
    if (typeof o.code === 'string') codes.push(o.code);
    if (typeof o.message === 'string' && o.message) messages.push(o.message);
    if (typeof o.name === 'string' && o.name === 'AbortError') codes.push('ABORT_ERR');
    // undici's parser errors carry their kind in the name, not always in a code.
    if (typeof o.name === 'string' && o.name === 'HTTPParserError') codes.push('HPE_PARSER');
    visit(o.cause, depth + 1);
    if (Array.isArray(o.errors)) for (const x of o.errors) visit(x, depth + 1);
  };
  visit(err, 0);
  return { codes, messages };
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface Classified {
  errorClass: ErrorClass;
  message: string;
}

export function classifyError(err: unknown): Classified {
  const { codes, messages } = errorCodes(err);
  const message = cut([codes[0], messages[0]].filter(Boolean).join(': ') || String(err));
  const has = (...c: string[]): boolean => codes.some((x) => c.includes(x));
  if (has(BLOCKED_CODE)) return { errorClass: 'blocked_address', message };
  if (has('UND_ERR_HEADERS_OVERFLOW')) return { errorClass: 'headers_too_large', message };
  if (codes.some((c) => TLS_CODES.has(c) || c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_') || c.includes('CERT'))) {
    return { errorClass: 'tls', message };
  }
  if (has('EPROTO') && messages.some((m) => /ssl|tls/i.test(m))) return { errorClass: 'tls', message };
  if (has('ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETDOWN')) return { errorClass: 'refused', message };
  if (has('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT')) {
    return { errorClass: 'timeout', message };
  }
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'EAI_NONAME')) return { errorClass: 'dns', message };
  if (has('ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ERR_STREAM_PREMATURE_CLOSE')) {
    return { errorClass: 'reset', message };
  }
  if (
    codes.some((c) => c.startsWith('HPE_') || c.startsWith('Z_') || c.startsWith('ERR_BROTLI') || c === 'ERR_ZLIB_INITIALIZATION_FAILED')
  ) {
    return { errorClass: 'protocol', message };
  }
  if (has('UND_ERR_INFO', 'UND_ERR_RESPONSE_STATUS_CODE', 'UND_ERR_NOT_SUPPORTED')) return { errorClass: 'protocol', message };
  return { errorClass: 'other', message };
}
