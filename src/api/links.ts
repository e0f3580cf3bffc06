import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The base of a response's absolute links (feeds, the agent page's badge snippet).
 *
 * Under the configured public URL the links are the same for every request, so the response may
 * be kept by a shared cache. Without one they come from the request's protocol and Host, a
 * header the client chooses: the response then says so (`Vary: Host`) and the caller must not
 * mark it cacheable by a shared cache, or one request with a forged Host would put its links
 * into the copy every later reader gets.
 */

/** A plain host[:port] (name, IPv4 or bracketed IPv6); any other Host is not echoed. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export interface LinkBase {
  /** `protocol://host[:port]` (or the public URL), no trailing slash. */
  url: string;
  /** True when the links do not depend on the request: a shared cache may keep the response. */
  shared: boolean;
}

/** Adds a field to the response's Vary header, keeping the ones already there. */
export function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (!fields.some((f) => f === '*' || f.toLowerCase() === field.toLowerCase())) fields.push(field);
  void reply.header('vary', fields.join(', '));
}

/** The links' base for this request; adds `Vary: Host` to the reply when it comes from the request. */
export function linkBase(req: FastifyRequest, reply: FastifyReply, publicUrl: string | null | undefined): LinkBase {
  if (publicUrl) return { url: publicUrl.replace(/\/+$/, ''), shared: true };
  addVary(reply, 'Host');
  return { url: `${req.protocol}://${HOST.test(req.host) ? req.host : 'localhost'}`, shared: false };
}
