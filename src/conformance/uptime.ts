import { ERROR_WORDS, errorWords, type A2AObservation, type HttpExchange, type McpObservation } from './types.js';

/**
 * Uptime classification from one observation (docs/RULES.md, Uptime). Uptime is separate from
 * conformance: an agent can be up and fail.
 *
 * - robots.txt disallows the target → skipped (robots), never down. So does an exchange the
 *   probe refused with `robots_disallowed` (a redirect led to a path robots.txt disallows us),
 *   unless the chain also shows the agent up.
 * - Our other politeness refusals (`robots_unreachable`, `rate_limited`, `budget_exhausted`,
 *   `hop_refused`) → unknown: we chose not to ask, for reasons that are not the owner's opt-out.
 * - A2A: any 200 in the card chain → up; 401/403 → up (conformance fails); 402 → up
 *   (conformance unknown).
 * - MCP: 200, 202, 204, 3xx, 400, 401, 402, 403, 405, 406, 409, 415, 421 → up (a server answered).
 * - 429, timeouts and unconfirmed resets → unknown.
 * - A failed canary turns anything that is not up into unknown (our side), never down.
 *
 * Decisions the method leaves open: other answered statuses (404 on every card URL, 5xx,
 * 410, …) → down; refused connections, DNS, TLS and malformed-HTTP failures, redirect loops →
 * down (the server did not answer usefully, and the canary says our side works); an address
 * our SSRF guard refused, a host skipped after repeated failures, a response over our read
 * bound, an invalid URL or an unclassified error → unknown (we did not get to ask, or cannot
 * tell); a robots decision other than `disallowed` is judged on whatever the exchanges show.
 */
export type UptimeState = 'up' | 'down' | 'unknown' | 'skipped';

export interface UptimeVerdict {
  state: UptimeState;
  reason: string;
  /** True when the state reflects a problem on our side (failed canary). */
  ourSide: boolean;
  /** The status that decided, when one did. */
  status: number | null;
}

export const MCP_UP_STATUSES: ReadonlySet<number> = new Set([200, 202, 204, 400, 401, 402, 403, 405, 406, 409, 415, 421]);

/** Error classes after which we cannot say the server is down: we did not get to ask, or it may be us. */
const UNKNOWN_ERRORS = new Set([
  'timeout',
  'reset',
  'blocked_address',
  'host_skipped',
  'body_too_large',
  'headers_too_large',
  'invalid_url',
  'other',
  // We chose not to ask (politeness), so nothing is known about the server.
  'robots_unreachable',
  'rate_limited',
  'budget_exhausted',
  'hop_refused',
]);

const SKIPPED_ROBOTS: UptimeVerdict = { state: 'skipped', reason: 'skipped (robots)', ourSide: false, status: null };

function robotsRefused(ex: HttpExchange): boolean {
  return typeof ex.status !== 'number' && ex.errorClass === 'robots_disallowed';
}

function noAnswer(ex: HttpExchange): UptimeVerdict {
  const cls =
    typeof ex.errorClass === 'string' && Object.prototype.hasOwnProperty.call(ERROR_WORDS, ex.errorClass) ? ex.errorClass : 'other';
  if (cls === 'robots_disallowed') return { ...SKIPPED_ROBOTS, reason: `skipped (robots): ${errorWords(cls)}` };
  if (UNKNOWN_ERRORS.has(cls)) return { state: 'unknown', reason: `no answer: ${errorWords(cls)}`, ourSide: false, status: null };
  return { state: 'down', reason: `no answer: ${errorWords(cls)}`, ourSide: false, status: null };
}

function withCanary(v: UptimeVerdict, canary: string): UptimeVerdict {
  if (v.state !== 'up' && v.state !== 'skipped' && canary === 'failed') {
    return { state: 'unknown', reason: `our side: canary failed (${v.reason})`, ourSide: true, status: v.status };
  }
  return v;
}

export function classifyA2AUptime(obs: A2AObservation): UptimeVerdict {
  const ex = Array.isArray(obs.exchanges) ? obs.exchanges : [];
  if (obs.robots === 'disallowed') return { ...SKIPPED_ROBOTS };
  const find = (pred: (s: number) => boolean): HttpExchange | undefined => ex.find((e) => typeof e.status === 'number' && pred(e.status));
  const ok = find((s) => s === 200);
  if (ok) return { state: 'up', reason: 'card URL answered 200', ourSide: false, status: 200 };
  const auth = find((s) => s === 401 || s === 403);
  if (auth)
    return { state: 'up', reason: `HTTP ${auth.status}: up, card not public (conformance fails)`, ourSide: false, status: auth.status };
  const paid = find((s) => s === 402);
  if (paid) return { state: 'up', reason: 'HTTP 402: up, conformance unknown', ourSide: false, status: 402 };
  // Not seen up, and robots.txt kept us off part of the chain: skipped (robots), never down or unknown.
  const disallowed = ex.find(robotsRefused);
  if (disallowed) return noAnswer(disallowed);
  let v: UptimeVerdict;
  const limited = find((s) => s === 429);
  const unanswered = ex.filter((e) => typeof e.status !== 'number');
  if (ex.length === 0) v = { state: 'unknown', reason: 'no request was made', ourSide: false, status: null };
  else if (limited) v = { state: 'unknown', reason: 'HTTP 429: rate limited', ourSide: false, status: 429 };
  else if (unanswered.some((e) => noAnswer(e).state === 'unknown')) v = noAnswer(unanswered.find((e) => noAnswer(e).state === 'unknown')!);
  else if (unanswered.length === ex.length) v = noAnswer(unanswered[0]!);
  else {
    const last = [...ex].reverse().find((e) => typeof e.status === 'number')!;
    v = { state: 'down', reason: `no agent card (last answer HTTP ${last.status})`, ourSide: false, status: last.status };
  }
  return withCanary(v, obs.canary);
}

export function classifyMcpUptime(obs: McpObservation): UptimeVerdict {
  if (obs.robots === 'disallowed') return { ...SKIPPED_ROBOTS };
  const get = obs.get;
  let v: UptimeVerdict;
  if (!get) v = { state: 'unknown', reason: 'no GET was made', ourSide: false, status: null };
  else if (typeof get.status !== 'number') v = noAnswer(get);
  else if (get.status === 429) v = { state: 'unknown', reason: 'HTTP 429: rate limited', ourSide: false, status: 429 };
  else if (MCP_UP_STATUSES.has(get.status) || (get.status >= 300 && get.status < 400)) {
    v = { state: 'up', reason: `HTTP ${get.status}: a server answered`, ourSide: false, status: get.status };
  } else v = { state: 'down', reason: `HTTP ${get.status}`, ourSide: false, status: get.status };
  return withCanary(v, obs.canary);
}
