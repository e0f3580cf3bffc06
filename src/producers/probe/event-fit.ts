/**
 * Keeping an encoded probe event under the size limit (EVENT_MAX_BYTES: Kafka refuses a batch
 * over 1 MB) while keeping what the judgement reads. A kept event carries no document (those go
 * to the documents topic) and excerpts of at most MCP_EXCERPT_MAX_BYTES, so it fits unless its
 * URLs and error messages alone are huge; the steps below keep the guarantee unconditional.
 */
import type { ProbeEvent, ProbeExchange } from '../../events/types.js';
import { JUDGED_HEADERS } from '../../http/client.js';
import { OMITTED_HEADERS_MARKER } from '../../http/types.js';

/**
 * Leaves bodies out past the budget, keeping `keep` (the card) first, then the others in order.
 */
export function applyBodyBudget(exchanges: ProbeExchange[], budget: number, keep: number | null = null): ProbeExchange[] {
  let left = budget;
  const order = exchanges.map((_, i) => i);
  if (keep !== null && keep >= 0 && keep < exchanges.length) {
    order.splice(keep, 1);
    order.unshift(keep);
  }
  const out = [...exchanges];
  for (const i of order) {
    const e = out[i]!;
    if (e.body.length <= left) {
      left -= e.body.length;
      continue;
    }
    // Marked truncated, so a rule never reads the left-out body as an empty one.
    out[i] = { ...e, body: Buffer.alloc(0), bodyTruncated: true, bodyKept: e.bodyKept === 'document' ? 'document' : 'none' };
  }
  return out;
}

/** The exchange with only the `keep` headers, and a marker naming what was left out. */
function shedHeaders(e: ProbeExchange, keep: readonly string[]): ProbeExchange {
  const kept: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(e.headers)) {
    if (name === OMITTED_HEADERS_MARKER) continue;
    if (keep.includes(name)) kept[name] = value;
    else {
      count += 1;
      bytes += name.length + value.length;
    }
  }
  if (count === 0) return e;
  const before = e.headers[OMITTED_HEADERS_MARKER];
  kept[OMITTED_HEADERS_MARKER] = `${count} header(s), ${bytes} bytes, left out to fit the event size limit${before ? `; ${before}` : ''}`;
  return { ...e, headers: kept };
}

const NO_BODY = Buffer.alloc(0);

/**
 * Fits a probe event within `maxBytes` as `size` measures it (the encoded Kafka message):
 *
 * 1. redirect hops lose their headers, Location kept (each marked with OMITTED_HEADERS_MARKER);
 * 2. bodies are left out, the `keep` exchange's (the MCP excerpt's) last (applyBodyBudget: `body`
 *    empty, `bodyKept` none, `bodyTruncated` true, `bodyBytes` and `bodySha256` still those of the
 *    body read);
 * 3. every exchange keeps only the headers processors read (marked);
 * 4. as a last resort the exchanges are left out (errorClass `other` unless it had one).
 *
 * With the client's bounds (URLs ≤ MAX_URL_CHARS, headers ≤ 16 KB, at most 3 × 6 hops) steps 1
 * and 2 always suffice; 3 and 4 only keep the guarantee unconditional (an event written before
 * bodies were kept apart may still carry every header).
 */
export function fitProbeEvent(ev: ProbeEvent, maxBytes: number, keep: number | null, size: (e: ProbeEvent) => number): ProbeEvent {
  if (size(ev) <= maxBytes) return ev;
  let out: ProbeEvent = { ...ev, exchanges: ev.exchanges.map((e) => (e.role === 'redirect' ? shedHeaders(e, ['location']) : e)) };
  if (size(out) <= maxBytes) return out;
  const bare = size({ ...out, exchanges: out.exchanges.map((e) => ({ ...e, body: NO_BODY })) });
  // An Avro bytes field is its length (a varint, up to 5 bytes more than an empty one's) and its bytes.
  const room = maxBytes - bare - 5 * out.exchanges.length;
  out = { ...out, exchanges: applyBodyBudget(out.exchanges, Math.max(0, room), keep) };
  if (size(out) <= maxBytes) return out;
  out = { ...out, exchanges: out.exchanges.map((e) => shedHeaders(e, JUDGED_HEADERS)) };
  if (size(out) <= maxBytes) return out;
  return { ...out, exchanges: [], errorClass: out.errorClass ?? 'other' };
}
