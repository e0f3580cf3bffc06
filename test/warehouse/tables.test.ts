import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsertRow, TableName } from '../../src/warehouse/tables.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import {
  agentChangeRow,
  agentDailyHistoryRow,
  agentLatestRow,
  agentRow,
  checkerCurrentRow,
  checkRow,
  correctionRow,
  DEFAULT_AGENT,
  dailyRollupRow,
  documentRow,
  listingHistoryRow,
  listingRow,
  runRow,
  searchDocumentRow,
  searchPostingRow,
  searchTermPostingRow,
  sourceFetchRow,
  verdictHeadRow,
  verdictRow,
  webhookDeliveryRow,
} from '../helpers/warehouse-rows.js';

/**
 * The table map (src/warehouse/tables.ts) held to the migrations through the row builders, which
 * it types: one builder per table of the map (the record below must name every one), each row's
 * fields are columns of its table, and every column a row leaves out has a DEFAULT.
 */

const AT = new Date();
const BUILT: { [T in TableName]: InsertRow<T> } = {
  listings: listingRow(),
  agents: agentRow(),
  source_fetches: sourceFetchRow('fetch-1', AT),
  checks: checkRow({ id: 'probe-1', at: AT }),
  verdicts: verdictRow({ id: 'probe-1', at: AT }),
  agent_latest: agentLatestRow(),
  daily_rollups: dailyRollupRow(),
  agent_daily_history: agentDailyHistoryRow(),
  checker_current: checkerCurrentRow(),
  listing_history: listingHistoryRow(DEFAULT_AGENT, 'mcp-registry', AT),
  runs: runRow(),
  documents: documentRow(),
  agent_changes: agentChangeRow(),
  webhook_deliveries: webhookDeliveryRow(),
  corrections: correctionRow(),
  verdict_heads: verdictHeadRow(),
  probe_facts: {
    event_id: 'probe-1',
    agent_key: DEFAULT_AGENT,
    agent_id: 'a1',
    protocol: 'mcp',
    run_id: 'run-1',
    observed_at: AT,
    in_sample: 1,
    source: 'mcp-registry',
    input_key: 'k1',
    statuses: [200, null],
    durations: [12, 0],
  },
  probe_inputs: { input_key: 'k1', event: Buffer.from([0xc3, 0x01, 0x00]), listing: '', seen_at: AT },
  probe_fact_spans: { topic: 'probes', topic_partition: 0, first_offset: 0, last_offset: 9 },
  judgements: {
    checker_version: 'v1',
    input_key: 'k1',
    uptime: 'up',
    reason: 'HTTP 200',
    http_status: 200,
    our_side: 0,
    suite_id: 'veronikai-mcp-conformance',
    suite_version: '1',
    result: 'pass',
    reasons: [],
    warnings: [],
    a2a_version: '',
    a2a_route: '',
    tolerant_valid: null,
    alt_version: '',
    alt_valid: null,
    schema_file: '',
    structure_result: '',
    structure_reasons: [],
    scope: 'observation',
    inputs_hash: 'sha256:0',
    leaf_before_event: '{',
    leaf_before_time: ',',
    leaf_before_subject: ',',
    leaf_after_subject: '}',
    judged_at: AT,
  },
  replay_leaves: { checker_version: 'v1', n: 7, event_id: 'probe-1', leaf: Buffer.alloc(32, 2) },
  replay_leaf_proofs: { checker_version: 'v1', n: 7, proof: Buffer.alloc(64, 1) },
  schema_migrations: { version: 9_999, name: 'test', checksum: 'c', applied_at: AT },
  search_documents: searchDocumentRow(),
  search_postings: searchPostingRow(),
  search_term_postings: searchTermPostingRow(),
  search_terms: { term: 'weather', df: 1 },
  search_term_facets: {
    term: 'weather',
    protocol: 'mcp',
    sources: ['mcp-registry'],
    transports: ['streamable-http'],
    auth_required: 0,
    agents: 1,
  },
};

/** Columns without a DEFAULT that no insert writes: an aggregate state the rollup's INSERT … SELECT fills. */
const WRITTEN_BY_SQL: Partial<Record<TableName, string[]>> = { agent_daily_history: ['latency_digest'] };

describe('the table map', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('tables');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names columns of its tables only, and leaves out only columns with a DEFAULT', async () => {
    for (const [table, row] of Object.entries(BUILT)) {
      const columns = await t.wh.query<{ name: string; default_kind: string }>(
        'SELECT name, default_kind FROM system.columns WHERE database = currentDatabase() AND table = {table:String}',
        { table },
      );
      expect(columns.length, table).toBeGreaterThan(0);
      expect(
        Object.keys(row).filter((k) => !columns.some((c) => c.name === k)),
        table,
      ).toEqual([]);
      const left = columns.filter((c) => !(c.name in row) && c.default_kind === '').map((c) => c.name);
      expect(left, table).toEqual(WRITTEN_BY_SQL[table as TableName] ?? []);
    }
  });

  it('inserts each builder row as it is', async () => {
    const insert = <T extends TableName>(table: T) => t.wh.insert(table, [BUILT[table]]);
    for (const table of Object.keys(BUILT) as TableName[]) await insert(table);
    const [row] = await t.wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM agents FINAL');
    expect(row?.n).toBe(1);
  });
});
