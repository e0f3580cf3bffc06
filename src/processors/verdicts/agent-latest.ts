import { leafOfRow } from '../../conformance/tree-attestation.js';
import type { BigIntText, DateTimeText, Flag, Protocol, UptimeState, VerdictResult } from '../../warehouse/rows.js';
import type { InsertRow } from '../../warehouse/tables.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { attestationText } from './batch-sign.js';

/**
 * A replay's agent_latest rows, written once it has caught up rather than after every batch (most
 * of a batch's rows would be replaced by the next batch's): each agent's newest signed verdict of
 * the version, with its check and its batch's signed head, read back from the rows the batches
 * wrote. A replay stopped part-way and started again derives them from every batch written, so
 * nothing an earlier run wrote is missed. An agent whose newest probe is past the raw tables' TTL
 * has no rows left to derive from and keeps the row it has.
 */

/** Agents derived by one statement: a bounded piece of the engine's and this process's memory. */
export const AGENT_LATEST_AGENTS_PER_STATEMENT = 50_000;

interface NewestRow {
  event_id: string;
  agent_key: string;
  protocol: Protocol;
  observed_at: DateTimeText;
  in_sample: Flag;
  suite_id: string;
  suite_version: string;
  scope: string;
  inputs_hash: string;
  result: VerdictResult;
  reasons: string[];
  warnings: string[];
  a2a_version: string;
  a2a_route: string;
  head_id: string;
  leaf_index: number;
  proof: string[];
  agent_id: string;
  source: string;
  uptime: UptimeState;
  reason: string;
  http_status: number | null;
  latency_ms: number | null;
  our_side: Flag;
}

/**
 * Each agent's newest verdict of this version (by time, then event id), in one of `parts` shares
 * of the agents: found from three narrow columns first, so only the rows that win are read whole.
 */
const NEWEST_IDS = `SELECT agent_key, argMax(event_id, (observed_at, event_id)) AS event_id FROM verdicts
   WHERE checker_version = {cv:String} AND cityHash64(agent_key) % {parts:UInt32} = {part:UInt32}
   GROUP BY agent_key`;

/**
 * Which copy of each of those verdicts is the row (the last written, as FINAL keeps it): a batch
 * written again after a failure signs its verdicts under another head, and a head may be missing
 * when a batch failed before writing it. FINAL reads only the sorting key and the head id here.
 */
const NEWEST_COPIES = `SELECT agent_key, event_id, head_id FROM verdicts FINAL
   WHERE checker_version = {cv:String} AND (agent_key, event_id) IN (${NEWEST_IDS})`;

/** The verdict rows of those copies (copies under one head are one row written twice: alike). */
const VERDICT_ROWS = (columns: string) =>
  `SELECT ${columns} FROM verdicts
   WHERE checker_version = {cv:String} AND (agent_key, event_id, head_id) IN (${NEWEST_COPIES})
   LIMIT 1 BY agent_key`;

/** Their checks, as FINAL keeps them (narrow rows). */
const CHECK_ROWS = (columns: string) =>
  `SELECT ${columns} FROM checks FINAL
   WHERE checker_version = {cv:String} AND (agent_key, event_id) IN (${NEWEST_IDS})`;

const NEWEST_SQL = `SELECT v.event_id AS event_id, v.agent_key AS agent_key, v.protocol AS protocol, v.observed_at AS observed_at,
    v.in_sample AS in_sample, v.suite_id AS suite_id, v.suite_version AS suite_version, v.scope AS scope, v.inputs_hash AS inputs_hash,
    v.result AS result, v.reasons AS reasons, v.warnings AS warnings, v.a2a_version AS a2a_version, v.a2a_route AS a2a_route,
    v.head_id AS head_id, v.leaf_index AS leaf_index, arrayMap(h -> if(length(h) = 32, lower(hex(h)), h), v.proof) AS proof,
    c.agent_id AS agent_id, c.source AS source, c.uptime AS uptime, c.reason AS reason, c.http_status AS http_status,
    c.latency_ms AS latency_ms, c.our_side AS our_side
  FROM (${VERDICT_ROWS(
    'event_id, agent_key, protocol, observed_at, in_sample, suite_id, suite_version, scope, inputs_hash, result, reasons, warnings, a2a_version, a2a_route, head_id, leaf_index, proof',
  )}) AS v
  INNER JOIN (${CHECK_ROWS('event_id, agent_key, agent_id, source, uptime, reason, http_status, latency_ms, our_side')}) AS c
    ON c.agent_key = v.agent_key AND c.event_id = v.event_id
  WHERE v.head_id != ''`;

/** Writes the agent_latest row of every agent with a signed verdict of `checkerVersion`; returns how many. */
export async function writeAgentLatest(wh: Warehouse, checkerVersion: string): Promise<number> {
  const heads = new Map<string, InsertRow<'verdict_heads'>>();
  for (const h of await wh.query<InsertRow<'verdict_heads'>>(
    `SELECT head_id, checker_version, tree_size, root_hash, alg, canonicalization, key_id, signature
     FROM verdict_heads FINAL WHERE checker_version = {cv:String}`,
    { cv: checkerVersion },
  ))
    heads.set(h.head_id, { ...h, tree_size: Number(h.tree_size) });
  if (heads.size === 0) return 0;
  // The agents table has a row (or a few) for every agent: enough to size the shares.
  const [count] = await wh.query<{ n: BigIntText }>('SELECT count() AS n FROM agents');
  const parts = Math.max(1, Math.ceil(Number(count?.n ?? 0) / AGENT_LATEST_AGENTS_PER_STATEMENT));
  let written = 0;
  for (let part = 0; part < parts; part++) {
    const rows = await wh.query<NewestRow>(NEWEST_SQL, { cv: checkerVersion, parts, part });
    const out: InsertRow<'agent_latest'>[] = [];
    for (const r of rows) {
      const head = heads.get(r.head_id);
      if (head === undefined) continue; // its batch's head is written with it; a row without one is left to `verify`
      const observedAt = fromDateTime64(r.observed_at);
      out.push({
        checker_version: checkerVersion,
        agent_key: r.agent_key,
        agent_id: r.agent_id,
        protocol: r.protocol,
        source: r.source,
        event_id: r.event_id,
        observed_at: new Date(observedAt),
        uptime: r.uptime,
        reason: r.reason,
        http_status: r.http_status,
        latency_ms: r.latency_ms,
        in_sample: Number(r.in_sample) === 1 ? 1 : 0,
        our_side: Number(r.our_side) === 1 ? 1 : 0,
        suite_id: r.suite_id,
        suite_version: r.suite_version,
        result: r.result,
        reasons: r.reasons,
        warnings: r.warnings,
        a2a_version: r.a2a_version,
        a2a_route: r.a2a_route,
        signature: attestationText(leafOfRow({ ...r, checker_version: checkerVersion }, observedAt), Number(r.leaf_index), r.proof, head),
      });
    }
    if (out.length > 0) await wh.insert('agent_latest', out);
    written += out.length;
  }
  return written;
}
