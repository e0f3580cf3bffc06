import { LRUCache } from 'lru-cache';
import { canonicalJson, sha256, sha256Hex } from '../../core/canonical-json.js';
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
 * used memo would drop each judgement just before its agent's next probe), and a replay's inputs
 * are many times more. An entry is its digest and its rows' words (results, reasons): a few
 * hundred bytes for most, a few KB for an A2A card with many findings. So the memo is bounded by
 * those bytes (JUDGEMENT_MEMO_BYTES, as estimated by entryBytes), and by a count far beyond any
 * index's daily inputs; an index of more distinct inputs than this still judges right, only more often.
 */
export const JUDGEMENT_MEMO_ENTRIES = 2_000_000;
export const JUDGEMENT_MEMO_BYTES = 512 * 1024 * 1024;

/**
 * The digest (base64 SHA-256) of every input of `ev`'s judgement, whatever the checker version:
 * the key of a writer's memo (one writer, one version) and of the probe's stored inputs
 * (probe_facts.input_key), which a replay under another version judges once each.
 */
export function inputDigest(ev: ProbeEvent, listing: ListingContext | null): string {
  const exchanges: unknown[] = [];
  let bodies = '';
  for (const x of ev.exchanges) {
    const kept = x.bodyKept ?? 'whole';
    // A document by the hash it is stored under; any other body (excerpts are short) by its length
    // here and its bytes after the JSON (each byte one character), in order: the JSON ends
    // unambiguously and the lengths part the bytes.
    let body: string | number;
    if (kept === 'document') body = x.bodySha256;
    else {
      body = x.body.length;
      if (x.body.length > 0) bodies += Buffer.from(x.body.buffer, x.body.byteOffset, x.body.byteLength).toString('latin1');
    }
    const headers = Object.keys(x.headers)
      .sort()
      .map((k) => [k, x.headers[k]]);
    exchanges.push([x.role, x.url, x.status, headers, x.bodyTruncated, x.errorClass, kept, body]);
  }
  const context = listing === null ? null : [listingDocument(listing), listing.transport];
  // JSON of short fields (URLs, statuses, header values, hashes, lengths) only: no document text.
  return sha256(JSON.stringify([ev.protocol, ev.targetUrl, ev.transport, ev.robots, ev.canary, context, exchanges]) + bodies).toString(
    'base64',
  );
}

function listingDocument(listing: ListingContext): string {
  if (listing.serverJsonSha256 !== undefined) return listing.serverJsonSha256;
  if (listing.serverJson === null || listing.serverJson === undefined) return '';
  return `value:${sha256Hex(canonicalJson(listing.serverJson))}`;
}

/** The heap an entry holds, roughly: objects and arrays at a fixed cost, each string by its length. */
export function entryBytes(digest: string, j: Judgement): number {
  const words = (v: JudgedVerdict | null): number => {
    if (v === null) return 0;
    let n = 160 + v.inputsHash.length + v.suite.id.length;
    for (const r of v.reasons) n += 32 + 2 * r.length; // each string, and its copy among the row's reasons or warnings
    if (v.a2a) n += 96 + JSON.stringify(v.a2a).length;
    return n;
  };
  return 200 + digest.length + j.uptime.reason.length + words(j.primary) + words(j.structure);
}

/** A bounded map of judgements by input digest, least recently used evicted first. */
export class JudgementMemo {
  private readonly entries: LRUCache<string, Judgement>;
  hits = 0;
  misses = 0;
  constructor(
    readonly capacity: number = JUDGEMENT_MEMO_ENTRIES,
    readonly capacityBytes: number = JUDGEMENT_MEMO_BYTES,
  ) {
    this.entries = new LRUCache({ max: capacity, maxSize: capacityBytes, sizeCalculation: (j, digest) => entryBytes(digest, j) });
  }

  get(digest: string): Judgement | undefined {
    const j = this.entries.get(digest);
    if (j === undefined) this.misses++;
    else this.hits++;
    return j;
  }

  /** The judgement of `digest` without counting a lookup (an input the same batch judged a moment ago). */
  peek(digest: string): Judgement | undefined {
    return this.entries.peek(digest);
  }

  set(digest: string, j: Judgement): void {
    this.entries.set(digest, j);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes held (entryBytes of every entry). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}
