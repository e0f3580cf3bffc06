import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import type { A2AStructureDetail, Result, UptimeVerdict, Verdict } from '../../conformance/index.js';
import type { ProbeEvent } from '../../events/types.js';
import type { ListingContext } from './observation.js';

/**
 * Judgements by the digest of what they judged. A verdict is a pure function of the checker
 * version and the inputs the checker reads: the target and transport, the robots and canary
 * states, each exchange's role, URL, status, judged headers, error and body (a judged document by
 * the SHA-256 the event already carries, an excerpt or an inline body by its bytes), and the
 * listing context (its server.json by the hash of its text, its declared transport). Durations,
 * addresses and times are not read by the rules, so they are not in the digest: the daily probe of
 * an unchanged agent has the digest of yesterday's, and costs a lookup instead of a judgement.
 * The subject and the observation time are put back on the memoised verdict by the caller.
 */

/** What a row keeps of a verdict: everything but its subject and time, which are the event's. */
export interface JudgedVerdict {
  suite: { id: string; version: number };
  result: Result;
  reasons: string[];
  scope: Verdict['scope'];
  inputsHash: string;
  a2a?: A2AStructureDetail;
}

/** One judgement: the uptime, the protocol suite's verdict and (A2A) the structural check. */
export interface Judgement {
  uptime: UptimeVerdict;
  primary: JudgedVerdict;
  structure: JudgedVerdict | null;
}

/**
 * Judgements kept per verdict writer, least recently used dropped first. It must hold a day's
 * distinct inputs (every agent probed in turn: with fewer entries than agents, a least recently
 * used memo would drop each judgement just before its agent's next probe). A judgement is its
 * rows' words (results, reasons), about 1 KB, so this bounds the memo to a few hundred MB; an index
 * of more distinct inputs than this still judges right, only more often.
 */
export const JUDGEMENT_MEMO_ENTRIES = 200_000;

/** The digest (hex SHA-256) of every input of `ev`'s judgement by checker `checkerVersion`. */
export function inputDigest(checkerVersion: string, ev: ProbeEvent, listing: ListingContext | null): string {
  const h = createHash('sha256');
  const exchanges: unknown[] = [];
  for (const x of ev.exchanges) {
    const kept = x.bodyKept ?? 'whole';
    // A document by the hash it is stored under; any other body by its own bytes (excerpts are short).
    const body = kept === 'document' ? x.bodySha256 : x.body.length === 0 ? '' : createHash('sha256').update(x.body).digest('hex');
    const headers = Object.keys(x.headers)
      .sort()
      .map((k) => [k, x.headers[k]]);
    exchanges.push([x.role, x.url, x.status, headers, x.bodyTruncated, x.errorClass, kept, body]);
  }
  const context = listing === null ? null : [listingDocument(listing), listing.transport];
  // JSON of short fields (URLs, statuses, header values, hashes) only: no document text.
  h.update(JSON.stringify([checkerVersion, ev.protocol, ev.targetUrl, ev.transport, ev.robots, ev.canary, context, exchanges]));
  return h.digest('hex');
}

function listingDocument(listing: ListingContext): string {
  if (listing.serverJsonSha256 !== undefined) return listing.serverJsonSha256;
  if (listing.serverJson === null || listing.serverJson === undefined) return '';
  return `value:${createHash('sha256').update(canonicalJson(listing.serverJson)).digest('hex')}`;
}

/** A bounded map of judgements by input digest, least recently used evicted first. */
export class JudgementMemo {
  private readonly entries = new Map<string, Judgement>();
  hits = 0;
  misses = 0;
  constructor(readonly capacity: number = JUDGEMENT_MEMO_ENTRIES) {}

  get(digest: string): Judgement | undefined {
    const j = this.entries.get(digest);
    if (j === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last, so the first key is the one to drop.
    this.entries.delete(digest);
    this.entries.set(digest, j);
    return j;
  }

  /** The judgement of `digest` without counting a lookup (an input the same batch judged a moment ago). */
  peek(digest: string): Judgement | undefined {
    return this.entries.get(digest);
  }

  set(digest: string, j: Judgement): void {
    this.entries.set(digest, j);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
