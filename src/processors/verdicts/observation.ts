import type { A2AObservation, HttpExchange, McpObservation, RobotsDecision } from '../../conformance/types.js';
import type { ProbeEvent } from '../../events/types.js';
import { textOrNull } from '../../producers/http/text.js';

/** The fields of a recorded exchange (client Exchange or Avro ProbeExchange) the engine judges. */
export interface RecordedExchange {
  url: string;
  status: number | null;
  headers: Record<string, string>;
  body: Uint8Array;
  bodyTruncated: boolean;
  errorClass: string | null;
}

/** A recorded exchange as the conformance engine reads it: the bounded body decoded as UTF-8. */
export function toHttpExchange(e: RecordedExchange): HttpExchange {
  const out: HttpExchange = { url: e.url, status: e.status, headers: e.headers, bodyTruncated: e.bodyTruncated, errorClass: e.errorClass };
  if (e.status !== null) {
    const { text } = textOrNull(e.body, e.bodyTruncated);
    if (text !== null) out.body = text;
  }
  return out;
}

/** RFC 9309: an unreachable robots.txt means complete disallow, so the probe was skipped for robots. */
export function robotsDecision(robots: ProbeEvent['robots']): RobotsDecision {
  if (robots === 'allowed') return 'allowed';
  if (robots === 'disallowed' || robots === 'unreachable') return 'disallowed';
  return 'unknown';
}

/** What the agent's listings said at the time of the probe. */
export interface ListingContext {
  /** The server.json document (parsed), or null when no listing of the agent carried one. */
  serverJson: unknown;
  /** Declared transport of the remote (streamable-http | sse), when known. */
  transport: string | null;
  /** The source that listed the agent first, for per-source rollups. */
  source: string;
}

export function a2aObservation(ev: ProbeEvent): A2AObservation {
  return {
    exchanges: ev.exchanges.filter((x) => x.role !== 'redirect').map(toHttpExchange),
    robots: robotsDecision(ev.robots),
    canary: ev.canary,
  };
}

export function mcpObservation(ev: ProbeEvent, listing: ListingContext | null): McpObservation {
  const get = ev.exchanges.filter((x) => x.role === 'mcp-get').at(-1) ?? null;
  const metadata = ev.exchanges.filter((x) => x.role === 'resource-metadata').at(-1) ?? null;
  return {
    remote: { type: ev.transport ?? listing?.transport ?? 'streamable-http', url: ev.targetUrl },
    get: get ? toHttpExchange(get) : null,
    metadata: metadata ? toHttpExchange(metadata) : null,
    robots: robotsDecision(ev.robots),
    canary: ev.canary,
    serverJson: listing?.serverJson ?? null,
  };
}
