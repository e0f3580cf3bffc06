import type { KeyObject } from 'node:crypto';
import type { Verdict } from '../../conformance/index.js';
import { LEAF_DOMAIN, leafParts, type LeafPayload } from '../../conformance/tree-attestation.js';
import type { ProbeEvent } from '../../events/types.js';
import { agentId } from '../../identity/agent-key.js';
import type { VerdictJudgementColumn } from '../../warehouse/rows.js';
import type { InsertRow } from '../../warehouse/tables.js';
import type { ProbeFacts } from '../changes/derive.js';
import type { Checker } from './checker.js';
import { inputDigest, type JudgedVerdict, type Judgement, type JudgementMemo } from './memo.js';
import { a2aObservation, mcpObservation, type DocumentTexts, type ListingContext } from './observation.js';

/**
 * One probe event judged by one checker: its `checks` row (uptime), its `verdicts`
 * row (the protocol's VeronikAI suite, with A2A's structural census alongside), and the
 * leaf its batch's tree signs (batch-sign.ts fills in the signature fields). Pure: the
 * same event, listing context, documents and checker give the same rows, whether judged
 * now or taken from the memo of an earlier probe with the same inputs (memo.ts).
 */

/** The Ed25519 private key (a KeyObject or PKCS#8 PEM) that signs each batch's tree head. */
export type Signer = KeyObject | string;

const dt = (ms: number) => new Date(ms);

export interface JudgedProbe {
  check: InsertRow<'checks'>;
  /** Without its signature fields (head_id, leaf_index, proof) until the batch is signed. */
  verdict: InsertRow<'verdicts'>;
  /** What the verdict's leaf in its batch's tree says. */
  leaf: LeafPayload;
  /** What the check and verdict rows say, as the change derivation reads them (changes/derive.ts). */
  facts: ProbeFacts;
}

const kept = (v: Verdict): JudgedVerdict => ({
  suite: { id: v.suite.id, version: v.suite.version },
  result: v.result,
  reasons: v.reasons,
  scope: v.scope,
  inputsHash: v.inputsHash,
  ...(v.a2a ? { a2a: v.a2a } : {}),
});

/** The checker's judgement of `ev` (no memo). `documents`: the text of every document the event names by hash. */
export function judgeInputs(ev: ProbeEvent, listing: ListingContext | null, checker: Checker, documents?: DocumentTexts): Judgement {
  if (listing !== null && listing.serverJson === undefined)
    throw new Error(`the listing's server.json ${listing.serverJsonSha256 ?? ''} was not read before judging ${ev.id}`);
  const ctx = { subject: ev.agentKey, observedAt: new Date(ev.observedAt).toISOString() };
  if (ev.protocol === 'a2a') {
    const r = checker.judgeA2A(a2aObservation(ev, documents), ctx);
    return { uptime: r.uptime, primary: kept(r.card), structure: kept(r.structure) };
  }
  const r = checker.judgeMcp(mcpObservation(ev, listing, documents), ctx);
  return { uptime: r.uptime, primary: kept(r.verdict), structure: null };
}

/**
 * `ev` as rows. With a memo (one checker's: its keys do not name the version), a probe whose inputs
 * were judged before (same input digest) takes that judgement; the rows differ only by what is the
 * event's own (ids, times, latency).
 */
export function judgeProbe(
  ev: ProbeEvent,
  listing: ListingContext | null,
  checker: Checker,
  documents?: DocumentTexts,
  memo?: JudgementMemo,
): JudgedProbe {
  let judgement: Judgement | undefined;
  if (memo) {
    const digest = inputDigest(ev, listing);
    judgement = memo.get(digest);
    if (judgement === undefined) {
      judgement = judgeInputs(ev, listing, checker, documents);
      memo.set(digest, judgement);
    }
  } else judgement = judgeInputs(ev, listing, checker, documents);
  return probeRows(ev, listing, checker, judgement);
}

/** The columns of a verdict row that are its judgement's (the rest are the probe's own and the signature's). */
type VerdictJudgement = Required<Pick<InsertRow<'verdicts'>, VerdictJudgementColumn>>;

/** What every row of one judgement says alike: worked out once a judgement, which the memo hands to many probes. */
interface JudgementColumns {
  verdict: VerdictJudgement & { reasons: string[] };
  latencyState: boolean;
}

const columnsByJudgement = new WeakMap<Judgement, JudgementColumns>();

/** Agent ids by key: every probe of an agent needs its id, a hash of the key; an index's agents fit many times over. */
const AGENT_IDS_KEPT = 100_000;
const agentIds = new Map<string, string>();
function cachedAgentId(key: string): string {
  let id = agentIds.get(key);
  if (id === undefined) {
    if (agentIds.size >= AGENT_IDS_KEPT) agentIds.clear();
    agentIds.set(key, (id = agentId(key)));
  }
  return id;
}

function columnsOf(judgement: Judgement): JudgementColumns {
  let c = columnsByJudgement.get(judgement);
  if (c !== undefined) return c;
  const { uptime, primary, structure } = judgement;
  const a2a = structure?.a2a;
  c = {
    verdict: {
      suite_id: primary.suite.id,
      suite_version: String(primary.suite.version),
      result: primary.result,
      reasons: primary.reasons.filter((r) => !r.startsWith('warn:')),
      warnings: primary.reasons.filter((r) => r.startsWith('warn:')),
      a2a_version: a2a?.version ?? '',
      a2a_route: a2a?.route ?? '',
      tolerant_valid: a2a?.tolerantValid == null ? null : a2a.tolerantValid ? 1 : 0,
      alt_version: a2a?.alternative?.version ?? '',
      alt_valid: a2a?.alternative ? (a2a.alternative.valid ? 1 : 0) : null,
      schema_file: a2a?.schema ?? '',
      structure_result: structure?.result ?? '',
      structure_reasons: structure?.reasons ?? [],
      scope: primary.scope,
      inputs_hash: primary.inputsHash,
    },
    latencyState: uptime.state === 'up',
  };
  columnsByJudgement.set(judgement, c);
  return c;
}

/**
 * The rows of `ev` under `judgement` (its own, or a memoised one of the same inputs). Rows of one
 * judgement share its word arrays (reasons, warnings), which nothing writes to. Its agent_latest row
 * is latestRow's: a batch writes only each agent's newest.
 */
export function probeRows(ev: ProbeEvent, listing: ListingContext | null, checker: Checker, judgement: Judgement): JudgedProbe {
  const { uptime, primary } = judgement;
  const cols = columnsOf(judgement);
  let decisive: ProbeEvent['exchanges'][number] | undefined;
  if (cols.latencyState) {
    for (const x of ev.exchanges) if (x.status !== null && x.status === uptime.status) decisive ??= x;
    decisive ??= ev.exchanges.at(-1);
  }
  const latencyMs = decisive ? decisive.durationMs : null;
  const source = listing?.source ?? '';
  const observedAt = dt(ev.observedAt);
  const inSample = ev.inSample ? 1 : 0;
  const check: InsertRow<'checks'> = {
    event_id: ev.id,
    agent_key: ev.agentKey,
    protocol: ev.protocol,
    observed_at: observedAt,
    in_sample: inSample,
    checker_version: checker.version,
    agent_id: cachedAgentId(ev.agentKey),
    run_id: ev.runId,
    uptime: uptime.state,
    reason: uptime.reason,
    http_status: uptime.status,
    latency_ms: latencyMs,
    our_side: uptime.ourSide ? 1 : 0,
    source,
  };
  const verdict: InsertRow<'verdicts'> = {
    event_id: ev.id,
    agent_key: ev.agentKey,
    protocol: ev.protocol,
    observed_at: observedAt,
    in_sample: inSample,
    checker_version: checker.version,
    ...cols.verdict,
    signature: '',
  };
  const facts: ProbeFacts = {
    eventId: ev.id,
    agentKey: ev.agentKey,
    protocol: ev.protocol,
    observedAt: ev.observedAt,
    uptime: check.uptime,
    reason: check.reason,
    verdict: verdict.result,
    verdictReasons: cols.verdict.reasons,
  };
  const leaf: LeafPayload = {
    eventId: ev.id,
    subject: ev.agentKey,
    observedAt: observedAt.toISOString(),
    checker: checker.version,
    suite: primary.suite,
    scope: primary.scope,
    inputsHash: primary.inputsHash,
    result: primary.result,
    reasons: primary.reasons,
  };
  return { check, verdict, leaf, facts };
}

/**
 * A judgement as a `judgements` row (a replay's, clickhouse/0040): the columns its probes' checks and
 * verdicts share, as probeRows writes them, and the parts of their leaves around each probe's own fields.
 */
export function judgementRow(checkerVersion: string, inputKey: string, judgement: Judgement, judgedAt: Date): InsertRow<'judgements'> {
  const { uptime, primary } = judgement;
  const cols = columnsOf(judgement);
  const [beforeEvent, beforeTime, beforeSubject, afterSubject] = leafParts({
    checker: checkerVersion,
    suite: primary.suite,
    scope: primary.scope,
    inputsHash: primary.inputsHash,
    result: primary.result,
    reasons: primary.reasons,
  });
  return {
    checker_version: checkerVersion,
    input_key: inputKey,
    uptime: uptime.state,
    reason: uptime.reason,
    http_status: uptime.status,
    our_side: uptime.ourSide ? 1 : 0,
    ...cols.verdict,
    // The leaf's bytes whole, its domain first, as the engine hashes them.
    leaf_before_event: LEAF_DOMAIN + beforeEvent,
    leaf_before_time: beforeTime,
    leaf_before_subject: beforeSubject,
    leaf_after_subject: afterSubject,
    judged_at: judgedAt,
  };
}

/** A judged probe's agent_latest row, unsigned (a batch writes only each agent's newest). */
export function latestRow(j: JudgedProbe): InsertRow<'agent_latest'> {
  const { check, verdict } = j;
  return {
    checker_version: check.checker_version,
    agent_key: check.agent_key,
    agent_id: check.agent_id,
    protocol: check.protocol,
    source: check.source,
    event_id: check.event_id,
    observed_at: check.observed_at,
    uptime: check.uptime,
    reason: check.reason,
    http_status: check.http_status,
    latency_ms: check.latency_ms,
    in_sample: check.in_sample,
    our_side: check.our_side,
    suite_id: verdict.suite_id,
    suite_version: verdict.suite_version,
    result: verdict.result,
    reasons: verdict.reasons,
    warnings: verdict.warnings,
    a2a_version: verdict.a2a_version,
    a2a_route: verdict.a2a_route,
    signature: '',
  };
}
