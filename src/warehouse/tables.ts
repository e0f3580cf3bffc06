import type {
  AgentChangeRow,
  AgentDailyHistoryRow,
  AgentLatestRow,
  AgentRow,
  BigIntText,
  CheckerCurrentRow,
  CheckRow,
  JudgementRow,
  ProbeFactRow,
  ProbeInputRow,
  CorrectionRow,
  DailyRollupRow,
  DateTimeText,
  DocumentRow,
  ListingHistoryRow,
  ListingRow,
  RunRow,
  SchemaMigrationRow,
  SearchDocumentRow,
  SearchPostingRow,
  SearchTermFacetRow,
  SearchTermPostingRow,
  SearchTermRow,
  SourceFetchRow,
  VerdictHeadRow,
  VerdictRow,
  WebhookDeliveryRow,
} from './rows.js';

/**
 * The tables `Warehouse.insert` writes, each with the row it takes, so `insert('agents', rows)`
 * accepts agent rows only. Each declaration starts from the row a read returns (rows.ts) and says
 * which columns are DateTime64 (an insert may give a Date), which are 64-bit integers (a number or
 * a bigint will do) and which have a DEFAULT in their migration (they may be left out). Tables the
 * verdict writer fills with INSERT … SELECT (agent_status, agent_search_*, census_totals,
 * run_samples) are not here: no row is ever inserted into them.
 */

/** A DateTime64 value as an insert takes it: a Date (written as UTC text) or the text itself. */
type TimeValue = Date | DateTimeText;
/** A 64-bit integer as an insert takes it. */
type IntegerValue = number | bigint | BigIntText;

type Written<Row, Time extends keyof Row, Integer extends keyof Row> = {
  [K in keyof Row]: K extends Time ? TimeValue | Extract<Row[K], null> : K extends Integer ? IntegerValue : Row[K];
};

/** One object type, so an error names the row's columns rather than the parts it is built of. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** A row as an insert takes it: `Time` columns, `Integer` columns, and `Defaulted` columns that may be left out. */
type Insert<Row, Time extends keyof Row = never, Integer extends keyof Row = never, Defaulted extends keyof Row = never> = Flat<
  Omit<Written<Row, Time, Integer>, Defaulted> & Partial<Pick<Written<Row, Time, Integer>, Defaulted>>
>;

/** Every table an insert writes (clickhouse/NNNN), by name. */
export interface Tables {
  listings: Insert<
    ListingRow,
    'changed_at' | 'first_seen' | 'last_seen',
    'version',
    'endpoint_transport' | 'status' | 'raw_truncated' | 'content_hash'
  >;
  agents: Insert<AgentRow, 'first_seen' | 'last_seen' | 'changed_at' | 'inactive_since', 'version', 'opt_out' | 'opt_out_reason'>;
  source_fetches: Insert<SourceFetchRow, 'observed_at', 'bytes', 'mode' | 'etag' | 'invalid_item_count' | 'next_cursor' | 'bytes' | 'gate'>;
  checks: Insert<CheckRow, 'observed_at'>;
  /** proof: the hashes as bytes (clickhouse/0036); read back through SQL, hex them (verify.ts). */
  verdicts: Insert<
    Omit<VerdictRow, 'proof'> & { proof: readonly Uint8Array[] },
    'observed_at' | 'judged_at',
    never,
    'structure_result' | 'structure_reasons' | 'judged_at' | 'scope' | 'inputs_hash' | 'head_id' | 'leaf_index' | 'proof'
  >;
  verdict_heads: Insert<VerdictHeadRow, 'signed_at', never, 'signed_at'>;
  probe_facts: Insert<ProbeFactRow, 'observed_at'>;
  /** event: the probe event's Avro bytes (read back through SQL as base64Encode(event)). */
  probe_inputs: Insert<Omit<ProbeInputRow, 'event'> & { event: Uint8Array }, 'seen_at'>;
  judgements: Insert<JudgementRow, 'judged_at'>;
  probe_fact_spans: { topic: string; topic_partition: number; first_offset: IntegerValue; last_offset: IntegerValue };
  /** Written by the engine (a replay's INSERT … SELECT); declared for the table map's checks. */
  replay_leaves: { checker_version: string; n: number; event_id: string; leaf: Uint8Array };
  /** proof: the leaf's proof, its hashes' bytes joined. */
  replay_leaf_proofs: { checker_version: string; n: number; proof: Uint8Array };
  agent_latest: Insert<AgentLatestRow, 'observed_at'>;
  daily_rollups: Insert<DailyRollupRow, 'computed_at'>;
  /** Without latency_digest, an aggregate state only the rollup's INSERT … SELECT writes. */
  agent_daily_history: Insert<AgentDailyHistoryRow, 'computed_at'>;
  checker_current: Insert<CheckerCurrentRow, 'set_at', never, 'note'>;
  listing_history: Insert<ListingHistoryRow, 'observed_at'>;
  /** counts is Map(String, Int64): its values are 64-bit integers too. */
  runs: Insert<Omit<RunRow, 'counts'> & { counts: Record<string, IntegerValue> }, 'observed_at'>;
  documents: Insert<DocumentRow, 'observed_at'>;
  /** written_at (DEFAULT now64) is no column a read returns; a test may set it. */
  agent_changes: Insert<AgentChangeRow & { written_at: DateTimeText }, 'observed_at' | 'written_at', never, 'written_at'>;
  webhook_deliveries: Insert<WebhookDeliveryRow, 'change_observed_at' | 'recorded_at'>;
  /** The disputed and re-probe states are the Dispute event's own strings (the columns have no CHECK). */
  corrections: Insert<
    Omit<CorrectionRow, 'disputed_uptime' | 'disputed_result' | 'reprobe_uptime' | 'reprobe_result'> &
      Record<'disputed_uptime' | 'disputed_result' | 'reprobe_uptime' | 'reprobe_result', string>,
    'requested_at' | 'disputed_at' | 'reprobed_at' | 'closed_at'
  >;
  schema_migrations: Insert<SchemaMigrationRow, 'applied_at'>;
  search_documents: Insert<SearchDocumentRow, never, 'version' | 'content'>;
  search_postings: Insert<SearchPostingRow, never, 'content'>;
  search_term_postings: Insert<SearchTermPostingRow, never, 'content'>;
  search_terms: Insert<SearchTermRow, never, 'df'>;
  search_term_facets: Insert<SearchTermFacetRow, never, 'agents'>;
}

export type TableName = keyof Tables;

/** The row `insert(table, rows)` takes for a table. */
export type InsertRow<T extends TableName> = Tables[T];
