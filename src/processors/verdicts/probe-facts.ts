import type { EventCodec } from '../../events/codec.js';
import type { ProbeEvent } from '../../events/types.js';
import type { InsertRow } from '../../warehouse/tables.js';
import type { ListingContext } from './observation.js';

/**
 * What the verdict writer keeps of each probe for a replay under another checker version
 * (clickhouse/0040, docs/REPLAY.md): the probe's facts that no version changes, with the digest of
 * its judged inputs (memo.ts), and, once per input, one probe event with those inputs and the
 * listing context it was judged with. A replay then judges each input once and has the engine
 * join the judgements with the facts, never reading the probes topic again.
 */

/** The probe_facts row of `ev`, from its check row (the columns no checker version changes) and its input digest. */
export function factRow(ev: ProbeEvent, check: InsertRow<'checks'>, inputKey: string): InsertRow<'probe_facts'> {
  return {
    event_id: ev.id,
    agent_key: ev.agentKey,
    agent_id: check.agent_id,
    protocol: ev.protocol,
    run_id: ev.runId,
    observed_at: check.observed_at,
    in_sample: check.in_sample,
    source: check.source,
    input_key: inputKey,
    statuses: ev.exchanges.map((x) => x.status),
    durations: ev.exchanges.map((x) => x.durationMs),
  };
}

/** The listing context as probe_inputs keeps it: what the judgement read of it ('' when the agent had no listing). */
export function listingText(listing: ListingContext | null): string {
  if (listing === null) return '';
  const named = listing.serverJsonSha256 !== undefined;
  return JSON.stringify({
    transport: listing.transport,
    source: listing.source,
    ...(named ? { serverJsonSha256: listing.serverJsonSha256 } : { serverJson: listing.serverJson ?? null }),
  });
}

/** The listing context a probe_inputs row keeps, its server.json still to be read when named by hash (loadServerJson). */
export function listingOf(text: string): ListingContext | null {
  if (text === '') return null;
  const v = JSON.parse(text) as { transport: string | null; source: string; serverJsonSha256?: string; serverJson?: unknown };
  if (v.serverJsonSha256 !== undefined) {
    // A listing without a server.json has the hash '' and no document to read.
    return {
      transport: v.transport,
      source: v.source,
      serverJsonSha256: v.serverJsonSha256,
      serverJson: v.serverJsonSha256 === '' ? null : undefined,
    };
  }
  return { transport: v.transport, source: v.source, serverJson: v.serverJson ?? null };
}

/** The probe_inputs row of an input first met in `ev`. */
export function inputRow(codec: EventCodec, ev: ProbeEvent, listing: ListingContext | null, inputKey: string): InsertRow<'probe_inputs'> {
  return { input_key: inputKey, event: codec.encode('Probe', ev), listing: listingText(listing), seen_at: new Date(ev.observedAt) };
}
