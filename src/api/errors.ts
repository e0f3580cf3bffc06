import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifySchemaValidationError, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The one shape of every error the API answers: `{ error: { code, message, requestId } }`,
 * whether a route refused the request (404, 400), Fastify's validation did, no route
 * matched, or the warehouse failed. `code` is a stable word for programs; `message` is for
 * people; `requestId` is also the `x-request-id` response header and the `reqId` of the
 * log lines, so a report of a failure leads to its logged details. A 5xx body never carries
 * the underlying error's text (a warehouse error echoes its SQL and bound values): that
 * goes to the log only.
 */
export interface ApiErrorBody {
  error: { code: string; message: string; requestId: string };
}

export const REQUEST_ID_HEADER = 'x-request-id';
/** An incoming request id is kept only if it is a short token that is safe in a header, a log and JSON. */
export const REQUEST_ID_MAX = 64;
const SAFE_REQUEST_ID = new RegExp(`^[A-Za-z0-9._-]{1,${REQUEST_ID_MAX}}$`);

/** Fastify's genReqId: the caller's `x-request-id` when it is a safe token, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

export function errorBody(code: string, message: string, requestId: string): ApiErrorBody {
  return { error: { code, message, requestId } };
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .header(REQUEST_ID_HEADER, reply.request.id)
    .send(errorBody(code, message, reply.request.id));
}

const CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  500: 'internal',
  503: 'unavailable',
};

/** The stable code word for an HTTP status. */
export const codeFor = (status: number): string => CODES[status] ?? (status < 500 ? 'bad_request' : 'internal');

/** What a 5xx body says instead of the error's own text. */
export const GENERIC_MESSAGES = {
  internal: 'internal error: the details are logged under this request id',
  unavailable: 'the warehouse is unavailable: the details are logged under this request id',
} as const;

/** An unknown parameter is named (ajv's own text does not name it); any other validation text is ajv's. */
function validationMessage(err: { message: string; validation?: FastifySchemaValidationError[]; validationContext?: string }): string {
  const extra = err.validation?.find((v) => v.keyword === 'additionalProperties');
  const name = (extra?.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
  return typeof name === 'string' ? `unknown ${err.validationContext ?? 'request'} parameter "${name}"` : err.message;
}

type ApiError = { validation?: FastifySchemaValidationError[]; validationContext?: string; statusCode?: number; message: string };

/** Request ids, validation failures, unknown routes and unexpected errors, in the one shape. */
export function installErrorHandlers<L extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>,
): void {
  app.addHook('onRequest', async (req, reply) => {
    void reply.header(REQUEST_ID_HEADER, req.id);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, 'not_found', `Route ${req.method}:${req.url} not found`));
  app.setErrorHandler((err: ApiError, req, reply) => {
    if (err.validation) return sendError(reply, 400, 'bad_request', validationMessage(err));
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status < 500) return sendError(reply, status, codeFor(status), err.message);
    // The request logger carries reqId, the id the body and the header give the caller.
    req.log.error({ err }, 'request failed');
    return sendError(reply, status, codeFor(status), GENERIC_MESSAGES.internal);
  });
}
