/**
 * Row types of the warehouse's tables and analyst views, as the Warehouse port returns
 * them (JSONEachRow, the same on both adapters): DateTime64 as 'YYYY-MM-DD HH:MM:SS.mmm'
 * UTC text, Date as 'YYYY-MM-DD', 64-bit integers as decimal strings, UInt8 flags as 0 | 1,
 * Nullable as null. One type per table or view, named after it; the columns follow the
 * migrations in clickhouse/ (test/warehouse/schema.test.ts holds the views to SCHEMA.md).
 */

/** DateTime64(3, 'UTC') as text: 'YYYY-MM-DD HH:MM:SS.mmm'. */
export type DateTimeText = string;
/** Date as text: 'YYYY-MM-DD'. */
export type DateText = string;
/** UInt64 / Int64 as a decimal string (no precision lost). */
export type BigIntText = string;
/** UInt8 used as a boolean. */
export type Flag = 0 | 1;

export type Protocol = 'a2a' | 'mcp';
export type UptimeState = 'up' | 'down' | 'unknown' | 'skipped';
export type VerdictResult = 'pass' | 'fail' | 'unknown' | 'n/a';
export type OptOut = '' | 'unchecked' | 'hidden';

/** listings (0001): latest state per listing item. */
export interface ListingRow {
  source: string;
  item_id: string;
  agent_key: string;
  protocol: Protocol;
  name: string;
  description: string;
  version_label: string;
  endpoint_url: string;
  endpoint_transport: string;
  card_url: string;
  server_json: string;
  status: string;
  raw: string;
  raw_truncated: Flag;
  tombstoned: Flag;
  content_hash: string;
  changed_at: DateTimeText;
  first_seen: DateTimeText;
  last_seen: DateTimeText;
  last_event_id: string;
  version: BigIntText;
}

/** agents (0002, 0017): one merged agent per dedupe key. */
export interface AgentRow {
  agent_id: string;
  agent_key: string;
  protocol: Protocol;
  name: string;
  description: string;
  endpoint_url: string;
  card_url: string;
  sources: string[];
  source_first_seen: Record<string, DateTimeText>;
  first_seen: DateTimeText;
  last_seen: DateTimeText;
  changed_at: DateTimeText;
  active: Flag;
  inactive_since: DateTimeText | null;
  has_server_json: Flag;
  opt_out: OptOut;
  opt_out_reason: string;
  version: BigIntText;
}

/** source_fetches (0003): one request to a listing source. */
export interface SourceFetchRow {
  event_id: string;
  run_id: string;
  source: string;
  url: string;
  page: number;
  cursor: string;
  mode: string;
  status: number | null;
  ok: Flag;
  not_modified: Flag;
  etag: string;
  item_count: number;
  invalid_item_count: number;
  next_cursor: string;
  bytes: BigIntText;
  gate: string;
  duration_ms: number;
  error_class: string;
  error: string;
  observed_at: DateTimeText;
}

/** checks (0004): one probe's uptime judgement under one checker version. */
export interface CheckRow {
  event_id: string;
  checker_version: string;
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  run_id: string;
  observed_at: DateTimeText;
  uptime: UptimeState;
  reason: string;
  http_status: number | null;
  latency_ms: number | null;
  in_sample: Flag;
  our_side: Flag;
  source: string;
}

/** verdicts (0005): one probe's conformance verdict under one checker version. */
export interface VerdictRow {
  event_id: string;
  agent_key: string;
  protocol: Protocol;
  observed_at: DateTimeText;
  checker_version: string;
  suite_id: string;
  suite_version: string;
  result: VerdictResult;
  reasons: string[];
  warnings: string[];
  a2a_version: string;
  a2a_route: string;
  tolerant_valid: Flag | null;
  alt_version: string;
  alt_valid: Flag | null;
  schema_file: string;
  structure_result: string;
  structure_reasons: string[];
  /** What the signed leaf says was judged (0031): `document` or `observation`; '' on rows signed one at a time. */
  scope: string;
  inputs_hash: string;
  /** The attestation (JSON text) of a verdict signed alone; '' when its batch's tree signs it (head_id). */
  signature: string;
  /**
   * The signed head of its batch's tree (verdict_heads), its leaf's index and inclusion proof; '' / 0 / [] when signed alone.
   * The proof's hashes are stored as their 32 bytes (clickhouse/0036; 64 hex digits on older rows): read them hexed.
   */
  head_id: string;
  leaf_index: number;
  proof: string[];
  in_sample: Flag;
  judged_at: DateTimeText;
}

/** probe_facts (0040): one probe's facts that no checker version changes, and the key of its judged inputs. */
export interface ProbeFactRow {
  event_id: string;
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  run_id: string;
  observed_at: DateTimeText;
  in_sample: Flag;
  source: string;
  input_key: string;
  statuses: Array<number | null>;
  durations: number[];
}

/** probe_inputs (0040): one probe event (Avro bytes) of an input key, with its listing context (JSON, '' for none). */
export interface ProbeInputRow {
  input_key: string;
  event: string;
  listing: string;
  seen_at: DateTimeText;
}

/** The columns of a verdict row that are its judgement's: the same for every probe with the same inputs. */
export type VerdictJudgementColumn =
  | 'suite_id'
  | 'suite_version'
  | 'result'
  | 'reasons'
  | 'warnings'
  | 'a2a_version'
  | 'a2a_route'
  | 'tolerant_valid'
  | 'alt_version'
  | 'alt_valid'
  | 'schema_file'
  | 'structure_result'
  | 'structure_reasons'
  | 'scope'
  | 'inputs_hash';

/** judgements (0040): a checker version's judgement of one input key: the columns its probes' checks and verdicts take from it. */
export type JudgementRow = Pick<CheckRow, 'checker_version' | 'uptime' | 'reason' | 'http_status' | 'our_side'> &
  Pick<VerdictRow, VerdictJudgementColumn> & {
    input_key: string;
    /** The signed leaf's bytes (docs/MERKLE.md: its domain, then its JSON) up to the probe's event id, its time and its subject, and after the subject. */
    leaf_before_event: string;
    leaf_before_time: string;
    leaf_before_subject: string;
    leaf_after_subject: string;
    judged_at: DateTimeText;
  };

/** verdict_heads (0032): the signed head of one batch's Merkle tree of verdicts (docs/MERKLE.md). */
export interface VerdictHeadRow {
  head_id: string;
  checker_version: string;
  tree_size: number;
  root_hash: string;
  alg: string;
  canonicalization: string;
  key_id: string;
  signature: string;
  signed_at: DateTimeText;
}

/** agent_latest (0006): each agent's latest check and verdict per checker version. */
export interface AgentLatestRow {
  checker_version: string;
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  source: string;
  event_id: string;
  observed_at: DateTimeText;
  uptime: UptimeState;
  reason: string;
  http_status: number | null;
  latency_ms: number | null;
  in_sample: Flag;
  our_side: Flag;
  suite_id: string;
  suite_version: string;
  result: VerdictResult;
  reasons: string[];
  warnings: string[];
  a2a_version: string;
  a2a_route: string;
  signature: string;
}

/** Checks by uptime state and verdicts by result: the counts every rollup and run figure is made of. */
export interface OutcomeCounts {
  checks: number;
  up: number;
  down: number;
  unknown: number;
  skipped: number;
  pass: number;
  fail: number;
  unknown_verdict: number;
  na: number;
}

interface DailyCounts extends OutcomeCounts {
  sample_checks: number;
  sample_up: number;
  sample_down: number;
  sample_unknown: number;
  sample_skipped: number;
  sample_pass: number;
  sample_fail: number;
  sample_unknown_verdict: number;
  sample_na: number;
}

/** daily_rollups (0007): totals per (day, protocol, source, checker_version). */
export interface DailyRollupRow extends DailyCounts {
  day: DateText;
  protocol: Protocol;
  source: string;
  checker_version: string;
  computed_at: DateTimeText;
}

/** agent_daily_history (0008), without latency_digest (an aggregate state, not readable as JSON). */
export interface AgentDailyHistoryRow {
  checker_version: string;
  agent_key: string;
  day: DateText;
  agent_id: string;
  protocol: Protocol;
  checks: number;
  up: number;
  down: number;
  unknown: number;
  skipped: number;
  sample_checks: number;
  sample_up: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  computed_at: DateTimeText;
}

/** checker_current (0009): the pinned checker version. */
export interface CheckerCurrentRow {
  checker_version: string;
  set_at: DateTimeText;
  note: string;
}

/** listing_history (0018): every listing event of an agent. */
export interface ListingHistoryRow {
  agent_key: string;
  observed_at: DateTimeText;
  event_id: string;
  source: string;
  item_id: string;
  status: string;
  endpoint_transport: string;
  server_json: string;
}

/** runs (0019): start and finish of every run. */
export interface RunRow {
  run_id: string;
  phase: 'start' | 'finish';
  kind: string;
  observed_at: DateTimeText;
  event_id: string;
  budget: number | null;
  sample_size: number | null;
  seed: string;
  /** Map(String, Int64): values as decimal strings. */
  counts: Record<string, BigIntText>;
  complete: Flag;
  note: string;
}

/** documents (0021): a document probes judged (a card, RFC 9728 metadata), by content hash. */
export interface DocumentRow {
  sha256: string;
  text: string;
  valid_utf8: Flag;
  bytes: number;
  url: string;
  observed_at: DateTimeText;
}

/** schema_migrations (created by migrate.ts, not by a migration): one row per applied migration. */
export interface SchemaMigrationRow {
  version: number;
  name: string;
  checksum: string;
  applied_at: DateTimeText;
}

// ---- analyst views (__v2, clickhouse/0020) ----

/** v_checker_current__v2. Both columns are NULL-able: an empty warehouse has no version yet. */
export interface CheckerCurrentViewRow {
  checker_version: string | null;
  pinned: Flag | null;
}

/** v_listings_current__v2: listings without raw, tombstones removed. */
export type ListingCurrentRow = Omit<ListingRow, 'raw'>;

/** v_agents_current__v2. */
export interface AgentCurrentRow extends AgentRow {
  source_count: number;
}

/** v_verdicts_current__v2. */
export type VerdictCurrentRow = VerdictRow;

/** v_agent_latest_current__v2. */
export interface AgentLatestCurrentRow extends AgentLatestRow {
  /** From agents; '' and 0 when the agent row is missing (LEFT JOIN). */
  name: string;
  active: Flag;
}

/** v_daily_rollups__v2: rates are null when there is nothing to measure. */
export interface DailyRollupViewRow extends DailyCounts {
  day: DateText;
  protocol: Protocol;
  source: string;
  checker_version: string;
  uptime: number | null;
  pass_rate: number | null;
  sample_uptime: number | null;
  sample_uptime_low: number | null;
  sample_uptime_high: number | null;
  sample_pass_rate: number | null;
  sample_pass_rate_low: number | null;
  sample_pass_rate_high: number | null;
  computed_at: DateTimeText;
}

/** v_agent_uptime__v2 and __v3 (the same columns, read from agent_status): per agent, uptime and latency over 24 h, 7, 30 and 90 days. */
export interface AgentUptimeRow {
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  uptime_24h: number | null;
  checks_24h: number;
  latency_p50_24h: number | null;
  latency_p95_24h: number | null;
  uptime_7d: number | null;
  checks_7d: number;
  latency_p50_7d: number | null;
  latency_p95_7d: number | null;
  uptime_30d: number | null;
  checks_30d: number;
  latency_p50_30d: number | null;
  latency_p95_30d: number | null;
  uptime_90d: number | null;
  checks_90d: number;
  latency_p50_90d: number | null;
  latency_p95_90d: number | null;
  last_day: DateText;
}

/** agent_changes (0027): one change of one agent, by deterministic change id. */
export interface AgentChangeRow {
  observed_at: DateTimeText;
  change_id: string;
  kind: 'down' | 'up' | 'verdict' | 'listed' | 'delisted' | 'corrected';
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  name: string;
  checker_version: string;
  cause_event_id: string;
  from_state: string | null;
  to_state: string | null;
  summary: string;
  reasons: string[];
}

/** webhook_deliveries (0028): the final outcome of one change's delivery to one subscription. */
export interface WebhookDeliveryRow {
  subscription_id: string;
  change_id: string;
  delivery_id: string;
  kind: string;
  agent_id: string;
  agent_key: string;
  change_observed_at: DateTimeText;
  status: 'delivered' | 'dead' | 'refused' | 'stale' | 'hidden';
  attempts: number;
  last_status: number | null;
  error_class: string;
  error: string;
  duration_ms: number;
  recorded_at: DateTimeText;
}

/** corrections (0029): the corrections log, one row per dispute (Methods §9). */
export interface CorrectionRow {
  dispute_id: string;
  requested_at: DateTimeText;
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  name: string;
  reason: string;
  disputed_checker_version: string;
  disputed_event_id: string;
  disputed_at: DateTimeText | null;
  /** '' when the agent had no check under that version. */
  disputed_uptime: UptimeState | '';
  disputed_result: VerdictResult | '';
  disputed_reasons: string[];
  request_id: string;
  outcome: 'answered' | 'not_completed' | 'not_reprobed';
  /** Why a dispute was closed without a judged re-probe ('' when answered). */
  note: string;
  checker_version: string;
  reprobe_event_id: string;
  reprobed_at: DateTimeText | null;
  reprobe_uptime: UptimeState | '';
  reprobe_result: VerdictResult | '';
  reprobe_reasons: string[];
  verdict_changed: Flag;
  uptime_changed: Flag;
  /** The `corrected` agent change published for it. */
  change_id: string;
  closed_at: DateTimeText;
  /** Version: 2 answered, 1 closed without a judged re-probe. */
  rank: number;
}

/** search_documents (clickhouse/0035): one agent's search document. */
export interface SearchDocumentRow {
  agent_id: string;
  agent_key: string;
  version: BigIntText;
  listable: Flag;
  /** Which postings are current (a hash of the indexed text), as text: a UInt64. */
  content: BigIntText;
  card_sha256: string;
  protocol: Protocol;
  sources: string[];
  transports: string[];
  auth_required: Flag;
  name: string;
  title: string;
  description: string;
  impacts: Record<string, number>;
}

/** search_postings (clickhouse/0035): a term's posting, best impact first (rank = 65535 - impact). */
export interface SearchPostingRow {
  term: string;
  rank: number;
  agent_id: string;
  content: BigIntText;
}

/** search_term_postings (clickhouse/0037): a current posting with its agent's facets (replaces search_postings). */
export interface SearchTermPostingRow extends SearchPostingRow {
  protocol: Protocol;
  sources: string[];
  transports: string[];
  auth_required: Flag;
}

/** search_terms (clickhouse/0035): a document-frequency delta (+1 / -1) of a term. */
export interface SearchTermRow {
  term: string;
  df: BigIntText;
}

/** search_term_facets (clickhouse/0038): a delta (+1 / -1) of a term's listable agents with one combination of facet values. */
export interface SearchTermFacetRow {
  term: string;
  protocol: Protocol;
  sources: string[];
  transports: string[];
  auth_required: Flag;
  agents: BigIntText;
}

/** The analyst views of clickhouse/0020 (and v_agent_uptime__v3, clickhouse/0026), by name. */
export const VIEWS = {
  checkerCurrent: 'v_checker_current__v2',
  listingsCurrent: 'v_listings_current__v2',
  agentsCurrent: 'v_agents_current__v2',
  verdictsCurrent: 'v_verdicts_current__v2',
  agentLatestCurrent: 'v_agent_latest_current__v2',
  dailyRollups: 'v_daily_rollups__v2',
  agentUptime: 'v_agent_uptime__v3',
} as const;
