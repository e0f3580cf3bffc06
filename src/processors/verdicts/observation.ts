import type {
  A2AObservation,
  DocumentText as ConformanceDocumentText,
  HttpExchange,
  McpObservation,
  RobotsDecision,
} from '../../conformance/types.js';
import type { BodyKept, ProbeEvent } from '../../events/types.js';
import { textOrNull } from '../../util/text.js';

/** The fields of a recorded exchange (client Exchange or Avro ProbeExchange) the engine judges. */
export interface RecordedExchange {
  url: string;
  status: number | null;
  headers: Record<string, string>;
  body: Uint8Array;
  bodyTruncated: boolean;
  errorClass: string | null;
  /** What `body` holds (events.ts BodyKept); absent or `whole` on older events: the body itself. */
  bodyKept?: BodyKept;
  bodySha256?: string;
}

/** A document as the documents table keeps it: decoded, with whether its bytes were valid UTF-8. */
export type DocumentText = Required<ConformanceDocumentText>;

/** Documents by SHA-256. */
export type DocumentTexts = ReadonlyMap<string, DocumentText>;

const NO_DOCUMENTS: DocumentTexts = new Map();

/** The document hashes a probe event names (bodyKept = document). */
export function documentHashes(ev: ProbeEvent): string[] {
  return ev.exchanges.filter((x) => x.bodyKept === 'document').map((x) => x.bodySha256);
}

/**
 * A recorded exchange as the conformance engine reads it: the bounded body decoded as UTF-8, or
 * the document its hash names. A document is kept only when it was read whole, so its text is
 * the text an inline body would have given.
 */
export function toHttpExchange(e: RecordedExchange, documents: DocumentTexts = NO_DOCUMENTS): HttpExchange {
  const out: HttpExchange = { url: e.url, status: e.status, headers: e.headers, bodyTruncated: e.bodyTruncated, errorClass: e.errorClass };
  if (e.status === null) return out;
  if (e.bodyKept === 'document') {
    const doc = documents.get(e.bodySha256 ?? '');
    // The verdict processor fetches every named document first; judging without it would be a wrong verdict.
    if (doc === undefined) throw new Error(`document ${e.bodySha256 ?? '?'} named by the probe event was not given`);
    out.body = doc.text;
    // A document that was not UTF-8 is judged as such (A2A-CARD-003), as `check` judges it.
    if (!doc.validUtf8) out.bodyValidUtf8 = false;
    return out;
  }
  const { text, validUtf8 } = textOrNull(e.body, e.bodyTruncated);
  if (text !== null) {
    out.body = text;
    if (!validUtf8) out.bodyValidUtf8 = false;
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
  /**
   * The server.json document (parsed), or null when no listing of the agent carried one; undefined
   * while it is named by its hash only and not read (ListingContextResolver.loadServerJson).
   */
  serverJson: unknown;
  /** Declared transport of the remote (streamable-http | sse), when known. */
  transport: string | null;
  /** The source that listed the agent first, for per-source rollups. */
  source: string;
  /**
   * SHA-256 (hex) of the server.json text as listed ('' when none): what the judgement's input
   * digest (memo.ts) names the document by. Absent, the digest hashes the parsed document.
   */
  serverJsonSha256?: string;
}

/**
 * A robots.txt that could not be fetched because the host did not answer at all
 * (refused, DNS, TLS, timeout) says nothing about robots and everything about the
 * host: the probe is judged on that failed exchange as if it were the first GET, so
 * a dead host reads as down (or unknown), never as skipped. A robots.txt that
 * answered 5xx or 429 is a disallow (RFC 9309 §2.3.1.4): skipped (robots).
 */
function hostUnreachable(ev: ProbeEvent): ProbeEvent['exchanges'][number] | null {
  if (ev.robots !== 'unreachable') return null;
  const last = ev.exchanges.filter((x) => x.role === 'robots').at(-1);
  return last && last.status === null ? last : null;
}

export function a2aObservation(ev: ProbeEvent, documents: DocumentTexts = NO_DOCUMENTS): A2AObservation {
  const dead = hostUnreachable(ev);
  if (dead) return { exchanges: [toHttpExchange({ ...dead, url: ev.targetUrl }, documents)], robots: 'allowed', canary: ev.canary };
  return {
    exchanges: ev.exchanges.filter((x) => x.role !== 'redirect' && x.role !== 'robots').map((x) => toHttpExchange(x, documents)),
    robots: robotsDecision(ev.robots),
    canary: ev.canary,
  };
}

export function mcpObservation(ev: ProbeEvent, listing: ListingContext | null, documents: DocumentTexts = NO_DOCUMENTS): McpObservation {
  const dead = hostUnreachable(ev);
  const get = dead ? { ...dead, url: ev.targetUrl } : (ev.exchanges.filter((x) => x.role === 'mcp-get').at(-1) ?? null);
  const metadata = ev.exchanges.filter((x) => x.role === 'resource-metadata').at(-1) ?? null;
  return {
    remote: { type: ev.transport ?? listing?.transport ?? 'streamable-http', url: ev.targetUrl },
    get: get ? toHttpExchange(get, documents) : null,
    metadata: metadata ? toHttpExchange(metadata, documents) : null,
    robots: dead ? 'allowed' : robotsDecision(ev.robots),
    canary: ev.canary,
    serverJson: listing?.serverJson ?? null,
  };
}
