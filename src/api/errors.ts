import type { FastifyBaseLogger, FastifyInstance, FastifyReply, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The one shape of every error the API answers: `{ error: { code, message } }`, whether
 * a route refused the request (404, 400), Fastify's validation did, no route matched, or
 * the warehouse failed. `code` is a stable word for programs; `message` is for people.
 */
export interface ApiErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ApiErrorBody {
  return { error: { code, message } };
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send(errorBody(code, message));
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

/** Validation failures, unknown routes and unexpected errors, in the one shape. */
export function installErrorHandlers<L extends FastifyBaseLogger>(app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>): void {
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, 'not_found', `Route ${req.method}:${req.url} not found`));
  app.setErrorHandler((err: { validation?: unknown; statusCode?: number; message: string }, req, reply) => {
    const status = err.validation ? 400 : err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) req.log.error({ err }, 'request failed');
    return sendError(reply, status, codeFor(status), err.message);
  });
}
