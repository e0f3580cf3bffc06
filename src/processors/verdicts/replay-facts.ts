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
import { levelProof, merkleLevels } from '../../core/merkle.js';
import type { ChangePublisher } from '../changes/publish.js';
import { deriveVersionChanges, type VersionProbes } from '../changes/version-changes.js';
import { signHead } from '../../conformance/tree-attestation.js';
import { settleAll } from '../../util/settle.js';
import {
  insertAgentDailyHistory,
  insertDailyRollups,
  insertRunSamples,
  OLDEST_REFRESHABLE_DAY_SQL,
  type ProbeRows,
} from '../../warehouse/rollups.js';

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
 * The first share's inputs are judged with nothing beside it; each later share's while the engine
 * writes the one before (replayFromFacts), so a quarter of a million probes, not more.
 */
export const FACT_REPLAY_PROBES_PER_SHARE = 250_000;

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

/** A share of the agents (by hash): the facts a replay writes rows of in one piece. */
interface Share {
  shares: number;
  share: number;
}

const IN_SHARE = 'cityHash64(agent_key) % {shares:UInt32} = {share:UInt32}';

/** The codec and the readers of listing context and documents (with their caches) a replay judges with. */
interface InputReaders {
  codec: ReturnType<typeof eventCodec>;
  resolver: ListingContextResolver;
  documents: DocumentReader;
}

/** Up to `limit` inputs the share's facts name that this version has not judged yet. */
async function unjudged(wh: Warehouse, checker: Checker, share: Share, limit = Number.MAX_SAFE_INTEGER): Promise<string[]> {
  const rows = await wh.query<{ k: string }>(
    `SELECT DISTINCT input_key AS k FROM probe_facts
     WHERE ${IN_SHARE} AND input_key NOT IN (SELECT input_key FROM judgements WHERE checker_version = {cv:String})
     LIMIT {limit:UInt64}`,
    { cv: checker.version, ...share, limit },
  );
  return rows.map((r) => r.k);
}

/** A page of inputs read: their probe events, listing context (server.json read) and documents. */
async function readPage(wh: Warehouse, readers: InputReaders, keys: string[]): Promise<InputPage> {
  const rows = await wh.query<{ input_key: string; event: string; listing: string }>(
    `SELECT input_key, base64Encode(any(event)) AS event, any(listing) AS listing FROM probe_inputs
     WHERE input_key IN {keys:Array(String)} GROUP BY input_key`,
    { keys },
  );
  if (rows.length < keys.length) throw new FactsIncompleteError(keys.length - rows.length);
  const events = rows.map((r) => readers.codec.decodeAs('Probe', Buffer.from(r.event, 'base64')) as ProbeEvent);
  const listings = rows.map((r) => listingOf(r.listing));
  await readers.resolver.loadServerJson(listings);
  const texts = await readers.documents.texts(events.flatMap(documentHashes));
  return { keys: rows.map((r) => r.input_key), events, listings, texts };
}

/** Inputs judged between turns of the event loop: the engine's results for other work are taken in between. */
const JUDGED_PER_TURN = 1000;

/** The page's judgements as judgements rows. */
async function judgePage(checker: Checker, page: InputPage): Promise<InsertRow<'judgements'>[]> {
  const judgedAt = new Date();
  const out: InsertRow<'judgements'>[] = [];
  for (let i = 0; i < page.events.length; i++) {
    if (i > 0 && i % JUDGED_PER_TURN === 0) await new Promise((r) => setImmediate(r));
    out.push(
      judgementRow(checker.version, page.keys[i]!, judgeInputs(page.events[i]!, page.listings[i] ?? null, checker, page.texts), judgedAt),
    );
  }
  return out;
}

/** Judges pages as they come and writes their judgements, one page's while the next is judged. Returns how many. */
async function judgePages(wh: Warehouse, checker: Checker, pages: AsyncIterable<InputPage> | Iterable<InputPage>): Promise<number> {
  let judged = 0;
  let writing: Promise<void> = Promise.resolve();
  for await (const page of pages) {
    const out = await judgePage(checker, page);
    judged += out.length;
    await writing;
    writing = wh.insert('judgements', out);
    // Awaited before the next insert or at the end: a failure while the next page is judged is reported there.
    writing.catch(() => undefined);
  }
  await writing;
  return judged;
}

/** Keys in pages of FACT_REPLAY_INPUTS_PER_PAGE. */
const pagesOf = (keys: readonly string[]): string[][] =>
  Array.from({ length: Math.ceil(keys.length / FACT_REPLAY_INPUTS_PER_PAGE) }, (_, i) =>
    keys.slice(i * FACT_REPLAY_INPUTS_PER_PAGE, (i + 1) * FACT_REPLAY_INPUTS_PER_PAGE),
  );

/** Every input of the share not judged yet, a page at a time, the next page read while this one is judged. */
async function* readShare(wh: Warehouse, readers: InputReaders, keys: string[]): AsyncGenerator<InputPage> {
  const pages = pagesOf(keys);
  let next: Promise<InputPage> | null = pages.length > 0 ? readPage(wh, readers, pages[0]!) : null;
  for (let i = 1; next !== null; i++) {
    const page: InputPage = await next;
    next = i < pages.length ? readPage(wh, readers, pages[i]!) : null;
    // A read that fails while this page is judged is reported when it is awaited.
    next?.catch(() => undefined);
    yield page;
  }
}

/** Facts joined with this version's judgements: one row per probe, every column a check or a verdict needs. */
const joined = (facts: string) => `SELECT f.event_id AS event_id, f.agent_key AS agent_key, f.agent_id AS agent_id,
    f.protocol AS protocol, f.run_id AS run_id, f.observed_at AS observed_at, f.in_sample AS in_sample, f.source AS source,
    f.statuses AS statuses, f.durations AS durations, f.input_key AS input_key, j.* EXCEPT (input_key)
  FROM (${facts}) AS f
  INNER JOIN (${JUDGED}) AS j ON j.input_key = f.input_key`;
/** The share's facts joined. */
const JOINED = joined(`SELECT * FROM probe_facts FINAL WHERE ${IN_SHARE}`);

/** The version's probes as its changes are derived from them (version-changes.ts): the facts and the judgements. */
const FACT_PROBES: VersionProbes = {
  rows: (inPart) => joined(`SELECT * FROM probe_facts FINAL WHERE observed_at >= {since:DateTime64(3, 'UTC')} AND ${inPart}`),
  agents: 'SELECT uniqExact(agent_key) AS n FROM probe_facts',
};

/**
 * The facts joined with the judgements and the latency a check keeps (the duration of the exchange
 * whose status decided "up", else of the last; probeRows): one row per probe, the columns of its
 * check and verdict. The share's facts only.
 */
const PROBE_ROWS = `SELECT *,
    if(uptime = 'up' AND length(durations) > 0,
       durations[if(http_status IS NULL OR indexOf(statuses, http_status) = 0, length(durations), indexOf(statuses, http_status))], NULL) AS latency_ms
  FROM (${JOINED})`;

/** Each verdict's leaf hash (docs/MERKLE.md), from its judgement's parts and its probe's own fields. */
const LEAF = `SHA256(concat(unhex('00'), leaf_before_event, ${jsonString('event_id')}, leaf_before_time, '"', ${isoTime('observed_at')}, '"',
  leaf_before_subject, ${jsonString('agent_key')}, leaf_after_subject))`;

/**
 * The share's leaves, taken once (replay_leaves): each probe's place n in the share's (agent, time,
 * event) order, its event id and its leaf. The trees are cut from n, VERDICT_TREE_LEAVES to a tree,
 * and its verdict is found by the event id, so facts written after this have no part in the share.
 */
const TAKE_LEAVES = `INSERT INTO replay_leaves (checker_version, n, event_id, leaf)
  SELECT checker_version, toUInt64(row_number() OVER (ORDER BY agent_key, observed_at, event_id) - 1), event_id, ${LEAF}
  FROM (${JOINED})`;

/**
 * The share's trees in order, each its leaves (concatenated, hex). Each leaf is hexed alone: joining
 * the hashes as strings first would drop a hash's trailing zero bytes (a FixedString's).
 */
const TREES = `SELECT intDiv(n, {leaves:UInt32}) AS tree, arrayStringConcat(arrayMap(x -> hex(x.2), arraySort(groupArray((n, leaf))))) AS leaves
  FROM replay_leaves WHERE checker_version = {cv:String}
  GROUP BY tree ORDER BY tree`;

/** Leaf proofs written per statement. */
const PROOFS_PER_INSERT = 50_000;

/**
 * Signs the share's trees: the engine hashes the leaves, this process builds each tree
 * (src/core/merkle.ts) and signs its head, and each leaf's proof goes to replay_leaf_proofs by its
 * n, for the engine to join. Returns the heads, in the trees' order.
 */
async function signTrees(wh: Warehouse, checker: Checker, key: KeyObject, share: Share): Promise<InsertRow<'verdict_heads'>[]> {
  await wh.exec(TAKE_LEAVES, { cv: checker.version, ...share });
  const trees = await wh.query<{ tree: BigIntText; leaves: string }>(TREES, { cv: checker.version, leaves: VERDICT_TREE_LEAVES });
  const heads: InsertRow<'verdict_heads'>[] = [];
  let rows: InsertRow<'replay_leaf_proofs'>[] = [];
  for (const t of trees) {
    // The heads are found by their tree's number (writeShare): a gap would put a verdict under another's head.
    if (Number(t.tree) !== heads.length) throw new Error(`replay: tree ${t.tree} came where tree ${heads.length} was due`);
    const bytes = Buffer.from(t.leaves, 'hex');
    const size = bytes.length / 32;
    const tree = merkleLevels(
      Array.from({ length: size }, (_, i) => bytes.subarray(32 * i, 32 * i + 32)),
      VERDICT_TREE_LEAVES,
    );
    heads.push(headRow(signHead({ checker: checker.version, root: tree.root.toString('hex'), size }, key)));
    const first = Number(t.tree) * VERDICT_TREE_LEAVES;
    for (let i = 0; i < size; i++) rows.push({ checker_version: checker.version, n: first + i, proof: Buffer.concat(levelProof(tree, i)) });
    if (rows.length >= PROOFS_PER_INSERT) {
      await wh.insert('replay_leaf_proofs', rows);
      rows = [];
    }
  }
  if (rows.length > 0) await wh.insert('replay_leaf_proofs', rows);
  if (heads.length > 0) await wh.insert('verdict_heads', heads);
  return heads;
}

/**
 * The probe rows the daily read models of the facts' days are computed from (rollups.ts): the facts
 * and this version's judgements (PROBE_ROWS, the rows just written) rather than checks and verdicts
 * FINAL, which hold every version's rows. Only the days whose facts are all still kept (the raw
 * tables' rule).
 */
const dailyRows = (cv: string, share: Share): ProbeRows => ({
  sql: `SELECT * FROM (${PROBE_ROWS}) WHERE toDate(observed_at, 'UTC') >= ${OLDEST_REFRESHABLE_DAY_SQL}`,
  params: { cv, ...share },
});

/** Empties the version's scratch (replay_leaves, replay_leaf_proofs). */
async function dropScratch(wh: Warehouse, checker: Checker): Promise<void> {
  for (const table of ['replay_leaves', 'replay_leaf_proofs'])
    await wh.exec(`ALTER TABLE ${table} DROP PARTITION {cv:String}`, { cv: checker.version });
}

/**
 * Writes a share's rows once its inputs are judged: its checks, its trees (signed here), its
 * verdicts, and the share's agents' daily history and run samples. Returns the heads signed.
 */
async function writeShare(wh: Warehouse, checker: Checker, key: KeyObject, share: Share): Promise<number> {
  const params = { cv: checker.version, ...share };
  await wh.exec(
    `INSERT INTO checks (event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
       latency_ms, in_sample, our_side, source)
     SELECT event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
       latency_ms, in_sample, our_side, source
     FROM (${PROBE_ROWS})
     SETTINGS optimize_on_insert = 0`,
    params,
  );
  const heads = (await signTrees(wh, checker, key, share)).map((h) => h.head_id);
  await wh.exec(
    `INSERT INTO verdicts (event_id, agent_key, protocol, observed_at, in_sample, checker_version, suite_id, suite_version, result, reasons,
       warnings, a2a_version, a2a_route, tolerant_valid, alt_version, alt_valid, schema_file, structure_result, structure_reasons, scope,
       inputs_hash, signature, head_id, leaf_index, proof)
     SELECT j.event_id, j.agent_key, j.protocol, j.observed_at, j.in_sample, j.checker_version, j.suite_id, j.suite_version, j.result,
       j.reasons, j.warnings, j.a2a_version, j.a2a_route, j.tolerant_valid, j.alt_version, j.alt_valid, j.schema_file, j.structure_result,
       j.structure_reasons, j.scope, j.inputs_hash, '', {heads:Array(String)}[intDiv(o.n, {leaves:UInt32}) + 1],
       toUInt32(o.n % {leaves:UInt32}), arrayMap(i -> substring(p.proof, 32 * i + 1, 32), range(intDiv(length(p.proof), 32)))
     FROM (${JOINED}) AS j
     INNER JOIN (SELECT n, event_id FROM replay_leaves WHERE checker_version = {cv:String}) AS o ON o.event_id = j.event_id
     INNER JOIN (SELECT n, proof FROM replay_leaf_proofs WHERE checker_version = {cv:String}) AS p ON p.n = o.n
     SETTINGS optimize_on_insert = 0`,
    { ...params, heads, leaves: VERDICT_TREE_LEAVES },
  );
  // The share's trees are in its verdicts now.
  await dropScratch(wh, checker);
  // The daily models per agent, a share of agents at a time.
  await insertAgentDailyHistory(wh, dailyRows(checker.version, share));
  await insertRunSamples(wh, dailyRows(checker.version, share));
  return heads.length;
}

/**
 * Inputs of the next share read before the engine is given a share's rows and judged while it
 * writes them (its calls run one at a time, so a read queued behind them would wait for them all):
 * a bounded piece of this process's memory, about 100 MB of probe events and documents. The rest
 * of the next share's inputs are read and judged after.
 */
export const FACT_REPLAY_INPUTS_AHEAD = 20_000;

/**
 * Replays the facts under `checker` (see the module comment), a share of agents at a time: each
 * share's inputs are judged, then its rows written while the next share's inputs are judged.
 */
export async function replayFromFacts(
  wh: Warehouse,
  checker: Checker,
  key: KeyObject,
  publish: ChangePublisher = async () => undefined,
  {
    probesPerShare = FACT_REPLAY_PROBES_PER_SHARE,
    inputsAhead = FACT_REPLAY_INPUTS_AHEAD,
  }: { probesPerShare?: number; inputsAhead?: number } = {},
): Promise<FactReplaySummary> {
  // Before any row is written: every input to judge has its probe.
  const [missing] = await wh.query<{ n: BigIntText }>(
    `SELECT uniqExact(input_key) AS n FROM probe_facts
     WHERE input_key NOT IN (SELECT input_key FROM judgements WHERE checker_version = {cv:String})
       AND input_key NOT IN (SELECT input_key FROM probe_inputs)`,
    { cv: checker.version },
  );
  if (Number(missing?.n ?? 0) > 0) throw new FactsIncompleteError(Number(missing?.n));
  const [count] = await wh.query<{ n: BigIntText }>('SELECT count() AS n FROM probe_facts');
  const shares = Math.max(1, Math.ceil(Number(count?.n ?? 0) / probesPerShare));
  await dropScratch(wh, checker);
  const readers: InputReaders = { codec: eventCodec(), resolver: new ListingContextResolver(wh), documents: new DocumentReader(wh) };
  let inputs = 0;
  let heads = 0;
  for (let share = 0; share < shares; share++) {
    // What the share still has to judge (all of it for the first), with the engine to itself.
    inputs += await judgePages(wh, checker, readShare(wh, readers, await unjudged(wh, checker, { shares, share })));
    const next = { shares, share: share + 1 };
    const ahead = share + 1 < shares ? await unjudged(wh, checker, next, inputsAhead) : [];
    const pages: InputPage[] = [];
    for (const keys of pagesOf(ahead)) pages.push(await readPage(wh, readers, keys));
    await settleAll([
      writeShare(wh, checker, key, { shares, share }).then((n) => (heads += n)),
      judgePages(wh, checker, pages).then((n) => (inputs += n)),
    ]);
  }
  // Per day over every agent: one statement over all the facts.
  await insertDailyRollups(wh, dailyRows(checker.version, { shares: 1, share: 0 }));
  // The agents' up, down and verdict changes under this version, as its batches would have published them.
  const changes = await deriveVersionChanges(wh, checker.version, publish, { probes: FACT_PROBES });
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
