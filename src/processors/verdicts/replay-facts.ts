import type { KeyObject } from 'node:crypto';
import { eventCodec } from '../../events/codec.js';
import type { ProbeEvent } from '../../events/types.js';
import type { BigIntText } from '../../warehouse/rows.js';
import type { InsertRow } from '../../warehouse/tables.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { headRow, VERDICT_TREE_LEAVES } from './batch-sign.js';
import type { Checker } from './checker.js';
import { judgeInputs, judgementRow } from './judge-probe.js';
import { ListingContextResolver } from './listing-context.js';
import { documentHashes, type DocumentTexts, type ListingContext } from './observation.js';
import { DocumentReader } from '../documents.js';
import { listingOf } from './probe-facts.js';
import { merkleTree } from '../../core/merkle.js';
import type { ChangePublisher } from '../changes/publish.js';
import { deriveVersionChanges } from '../changes/version-changes.js';
import { signHead } from '../../conformance/tree-attestation.js';

/**
 * A replay that reads no probe event twice (docs/REPLAY.md): the verdict writer kept every probe's
 * facts and one probe of each distinct input (probe-facts.ts), so a new checker version judges
 * each input once, here, and the engine writes its checks and verdicts by joining the judgements
 * with the facts. The engine hashes each verdict's leaf; the trees are built and their heads signed
 * here. The rows are those the verdict writer would have written, column for column.
 */

/** Inputs judged and written per statement: a bounded piece of memory on both sides. */
export const FACT_REPLAY_INPUTS_PER_PAGE = 10_000;
/**
 * Probes whose trees one statement hands over and whose rows one statement writes (a share of the
 * agents, by hash): the leaves and proofs of a share are held here at once, about 200 bytes each.
 */
export const FACT_REPLAY_PROBES_PER_SHARE = 500_000;

export interface FactReplaySummary {
  inputs: number;
  events: number;
  heads: number;
  /** Agent changes published. */
  changes: number;
}

const JUDGED = `SELECT * FROM judgements FINAL WHERE checker_version = {cv:String}`;

/** The characters JSON.stringify escapes, with their escapes, as SQL string literals. */
const ESCAPES: Array<[string, string]> = [
  ['\\\\', '\\\\\\\\'],
  ['"', '\\\\"'],
  ...Array.from({ length: 32 }, (_, c): [string, string] => [
    `\\x${c.toString(16).padStart(2, '0')}`,
    JSON.stringify(String.fromCharCode(c)).slice(1, -1).replace(/\\/g, '\\\\'),
  ]),
];
/**
 * JSON text of a string in SQL, as JSON.stringify writes it (a string the engine holds has no lone
 * surrogate): quoted, and only a string with a quote, a backslash or a control character (an id or
 * a canonical key has none) goes through the escapes.
 */
const jsonString = (col: string) =>
  `concat('"', if(match(${col}, '[\\\\x00-\\\\x1f"\\\\\\\\]'), ${ESCAPES.reduce((e, [from, to]) => `replaceAll(${e}, '${from}', '${to}')`, col)}, ${col}), '"')`;

/** An observation time as Date.toISOString writes it. */
const isoTime = (col: string) =>
  `concat(formatDateTime(${col}, '%Y-%m-%dT%H:%i:%S', 'UTC'), '.', leftPad(toString(toUnixTimestamp64Milli(${col}) % 1000), 3, '0'), 'Z')`;

/** Facts name inputs whose probe is no longer stored: they cannot stand for the topic, which is read instead. */
export class FactsIncompleteError extends Error {
  override name = 'FactsIncompleteError';
  constructor(readonly inputs: number) {
    super(`${inputs} input(s) the facts name have no stored probe`);
  }
}

interface InputPage {
  keys: string[];
  events: ProbeEvent[];
  listings: Array<ListingContext | null>;
  texts: DocumentTexts;
}

/**
 * Judges every input the facts name that this version has not judged yet, a page of inputs at a
 * time: the next page is read (its probe events, server.json and documents) while this one is
 * judged. Returns how many.
 */
async function judgeInputsOnce(wh: Warehouse, checker: Checker): Promise<number> {
  const keys = (
    await wh.query<{ k: string }>(
      `SELECT DISTINCT input_key AS k FROM probe_facts WHERE input_key NOT IN (SELECT input_key FROM judgements WHERE checker_version = {cv:String})`,
      { cv: checker.version },
    )
  ).map((r) => r.k);
  const codec = eventCodec();
  const resolver = new ListingContextResolver(wh);
  const documents = new DocumentReader(wh);
  const load = async (page: string[]): Promise<InputPage> => {
    const rows = await wh.query<{ input_key: string; event: string; listing: string }>(
      `SELECT input_key, base64Encode(any(event)) AS event, any(listing) AS listing FROM probe_inputs
       WHERE input_key IN {keys:Array(String)} GROUP BY input_key`,
      { keys: page },
    );
    if (rows.length < page.length) throw new FactsIncompleteError(page.length - rows.length);
    const events = rows.map((r) => codec.decodeAs('Probe', Buffer.from(r.event, 'base64')) as ProbeEvent);
    const listings = rows.map((r) => listingOf(r.listing));
    await resolver.loadServerJson(listings);
    const texts = await documents.texts(events.flatMap(documentHashes));
    return { keys: rows.map((r) => r.input_key), events, listings, texts };
  };
  let next: Promise<InputPage> | null = keys.length > 0 ? load(keys.slice(0, FACT_REPLAY_INPUTS_PER_PAGE)) : null;
  let writing: Promise<void> = Promise.resolve();
  for (let at = 0; next !== null; at += FACT_REPLAY_INPUTS_PER_PAGE) {
    const page = await next;
    const after = keys.slice(at + FACT_REPLAY_INPUTS_PER_PAGE, at + 2 * FACT_REPLAY_INPUTS_PER_PAGE);
    next = after.length > 0 ? load(after) : null;
    const judgedAt = new Date();
    const out = page.events.map((ev, i) =>
      judgementRow(checker.version, page.keys[i]!, judgeInputs(ev, page.listings[i] ?? null, checker, page.texts), judgedAt),
    );
    await writing;
    writing = wh.insert('judgements', out);
  }
  await writing;
  return keys.length;
}

/** The facts joined with this version's judgements: one row per probe, every column a check or a verdict needs. */
const JOINED = `SELECT f.event_id AS event_id, f.agent_key AS agent_key, f.agent_id AS agent_id, f.protocol AS protocol, f.run_id AS run_id,
    f.observed_at AS observed_at, f.in_sample AS in_sample, f.source AS source, f.statuses AS statuses, f.durations AS durations,
    f.input_key AS input_key, j.* EXCEPT (input_key)
  FROM (SELECT * FROM probe_facts FINAL WHERE cityHash64(agent_key) % {shares:UInt32} = {share:UInt32}) AS f
  INNER JOIN (${JUDGED}) AS j ON j.input_key = f.input_key`;

/** Each verdict's leaf hash (docs/MERKLE.md), from its judgement's parts and its probe's own fields. */
const LEAF = `SHA256(concat(unhex('00'), leaf_before_event, ${jsonString('event_id')}, leaf_before_time, '"', ${isoTime('observed_at')}, '"',
  leaf_before_subject, ${jsonString('agent_key')}, leaf_after_subject))`;

/**
 * The leaves in trees: the probes in (agent, time, event) order, VERDICT_TREE_LEAVES to a tree;
 * per tree its event ids and its leaves (concatenated, hex). Each leaf is hexed alone: joining the
 * hashes as strings first would drop a hash's trailing zero bytes (SHA256 gives a FixedString).
 */
const TREES = `SELECT tree, arrayMap(x -> x.2, arraySort(groupArray((n, event_id)))) AS ids,
    arrayStringConcat(arrayMap(x -> hex(x.2), arraySort(groupArray((n, ${LEAF}))))) AS leaves
  FROM (SELECT *, toUInt64(row_number() OVER (ORDER BY agent_key, observed_at, event_id) - 1) AS n, intDiv(n, {leaves:UInt32}) AS tree FROM (${JOINED}))
  GROUP BY tree ORDER BY tree`;

/**
 * Signs the trees of this version's verdicts: the engine hashes the leaves, this process builds
 * each tree (src/core/merkle.ts) and signs its head, and each verdict's head, index and proof go
 * to replay_proofs for the engine to join. Returns the heads.
 */
async function signTrees(
  wh: Warehouse,
  checker: Checker,
  key: KeyObject,
  share: { shares: number; share: number },
): Promise<InsertRow<'verdict_heads'>[]> {
  const trees = await wh.query<{ ids: string[]; leaves: string }>(TREES, { cv: checker.version, leaves: VERDICT_TREE_LEAVES, ...share });
  const heads: InsertRow<'verdict_heads'>[] = [];
  let proofs: InsertRow<'replay_proofs'>[] = [];
  for (const t of trees) {
    const bytes = Buffer.from(t.leaves, 'hex');
    const leaves = t.ids.map((_, i) => bytes.subarray(32 * i, 32 * i + 32));
    const tree = merkleTree(leaves);
    const head = headRow(signHead({ checker: checker.version, root: tree.root.toString('hex'), size: leaves.length }, key));
    heads.push(head);
    t.ids.forEach((id, i) =>
      proofs.push({ checker_version: checker.version, event_id: id, head_id: head.head_id, leaf_index: i, proof: tree.proofs[i]! }),
    );
    if (proofs.length >= 100_000) {
      await wh.insert('replay_proofs', proofs);
      proofs = [];
    }
  }
  if (proofs.length > 0) await wh.insert('replay_proofs', proofs);
  if (heads.length > 0) await wh.insert('verdict_heads', heads);
  return heads;
}

/** Replays the facts under `checker` (see the module comment). */
export async function replayFromFacts(
  wh: Warehouse,
  checker: Checker,
  key: KeyObject,
  publish: ChangePublisher = async () => undefined,
  probesPerShare: number = FACT_REPLAY_PROBES_PER_SHARE,
): Promise<FactReplaySummary> {
  const inputs = await judgeInputsOnce(wh, checker);
  const [count] = await wh.query<{ n: BigIntText }>('SELECT count() AS n FROM probe_facts');
  const shares = Math.max(1, Math.ceil(Number(count?.n ?? 0) / probesPerShare));
  const cv = { cv: checker.version };
  await wh.exec('ALTER TABLE replay_proofs DROP PARTITION {cv:String}', cv);
  let heads = 0;
  for (let share = 0; share < shares; share++) {
    const params = { ...cv, shares, share };
    await wh.exec(
      `INSERT INTO checks (event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
         latency_ms, in_sample, our_side, source)
       SELECT event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
         if(uptime = 'up' AND length(durations) > 0,
            durations[if(http_status IS NULL OR indexOf(statuses, http_status) = 0, length(durations), indexOf(statuses, http_status))], NULL),
         in_sample, our_side, source
       FROM (${JOINED})
       SETTINGS optimize_on_insert = 0`,
      params,
    );
    heads += (await signTrees(wh, checker, key, { shares, share })).length;
    await wh.exec(
      `INSERT INTO verdicts (event_id, agent_key, protocol, observed_at, in_sample, checker_version, suite_id, suite_version, result, reasons,
         warnings, a2a_version, a2a_route, tolerant_valid, alt_version, alt_valid, schema_file, structure_result, structure_reasons, scope,
         inputs_hash, signature, head_id, leaf_index, proof)
       SELECT j.event_id, j.agent_key, j.protocol, j.observed_at, j.in_sample, j.checker_version, j.suite_id, j.suite_version, j.result,
         j.reasons, j.warnings, j.a2a_version, j.a2a_route, j.tolerant_valid, j.alt_version, j.alt_valid, j.schema_file, j.structure_result,
         j.structure_reasons, j.scope, j.inputs_hash, '', p.head_id, p.leaf_index, p.proof
       FROM (${JOINED}) AS j
       INNER JOIN (SELECT event_id, head_id, leaf_index, proof FROM replay_proofs WHERE checker_version = {cv:String}) AS p
         ON p.event_id = j.event_id
       SETTINGS optimize_on_insert = 0`,
      params,
    );
    // The share's proofs are in its verdicts now.
    await wh.exec('ALTER TABLE replay_proofs DROP PARTITION {cv:String}', cv);
  }
  // The agents' up, down and verdict changes under this version, as its batches would have published them.
  const changes = await deriveVersionChanges(wh, checker.version, publish);
  const [n] = await wh.query<{ n: BigIntText }>(`SELECT count() AS n FROM probe_facts FINAL`);
  return { inputs, events: Number(n?.n ?? 0), heads, changes };
}

/** Offsets of the probes topic whose facts were written (probe_fact_spans). */
export interface FactSpan {
  partition: number;
  first: bigint;
  last: bigint;
}

/** The spans of `topic` whose facts the verdict writer has written. */
export async function factSpans(wh: Warehouse, topic: string): Promise<FactSpan[]> {
  const rows = await wh.query<{ p: number; first: BigIntText; last: BigIntText }>(
    'SELECT topic_partition AS p, first_offset AS first, last_offset AS last FROM probe_fact_spans WHERE topic = {topic:String}',
    { topic },
  );
  return rows.map((r) => ({ partition: Number(r.p), first: BigInt(r.first), last: BigInt(r.last) }));
}

/**
 * Where the facts stand for the topic: per partition, the offset a replay from them has covered up
 * to (the topic is read from there on), when the spans cover each partition without a gap from
 * `from` (the first offset whose probes can still have rows: older ones are past the raw tables'
 * TTL) on; null when a partition is not covered so, and the replay reads the whole topic.
 */
export function factCoverage(
  spans: readonly FactSpan[],
  partitions: ReadonlyArray<{ partition: number; from: bigint; high: bigint }>,
): Map<number, bigint> | null {
  const out = new Map<number, bigint>();
  for (const p of partitions) {
    if (p.from >= p.high) {
      out.set(p.partition, p.high);
      continue;
    }
    const own = spans.filter((s) => s.partition === p.partition).sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    // The run of touching spans that holds `from`.
    let start: bigint | null = null;
    let end = -1n;
    for (const s of own) {
      if (start !== null && s.first > end + 1n) {
        if (start <= p.from && end >= p.from) break;
        start = null;
      }
      if (start === null) {
        start = s.first;
        end = s.last;
      } else if (s.last > end) end = s.last;
    }
    if (start === null || start > p.from || end < p.from) return null;
    out.set(p.partition, end + 1n < p.high ? end + 1n : p.high);
  }
  return out;
}
