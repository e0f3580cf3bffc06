import type { UptimeVerdict } from '../../src/conformance/index.js';
import { agentId } from '../../src/identity/agent-key.js';
import { CURRENT_CHECKER, type Checker } from '../../src/processors/verdicts/checker.js';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import type { UptimeState, VerdictResult } from '../../src/warehouse/rows.js';
import type { InsertRow, TableName } from '../../src/warehouse/tables.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { probeEvent, probeExchange } from './probe-events.js';
import { TEST_SIGNING_KEY } from './signing.js';

/**
 * Row builders for the warehouse tables (test data only), each typed by the table map
 * (src/warehouse/tables.ts) so a builder cannot drift from its table, and probes judged by the
 * real verdict writer. Every builder takes overrides of any of its table's columns, last.
 */

/** Any of a table's columns, as an insert takes them. */
export type RowOverrides<T extends TableName> = Partial<InsertRow<T>>;

export const DAY_MS = 86_400_000;

/** The agent a builder describes unless told otherwise: an MCP agent, whose key is its endpoint. */
export const DEFAULT_AGENT = 'https://agent.example';

// ---- listings and agents ----

/**
 * An agents row: an active MCP agent at `agent_key` (its endpoint, default DEFAULT_AGENT), listed
 * by mcp-registry, not opted out, first seen, last seen and changed at `first_seen` (default: now).
 */
export function agentRow(overrides: RowOverrides<'agents'> = {}): InsertRow<'agents'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  const at = overrides.first_seen ?? new Date();
  return {
    agent_id: agentId(key),
    agent_key: key,
    protocol: 'mcp',
    name: key,
    description: '',
    endpoint_url: key,
    card_url: '',
    sources: ['mcp-registry'],
    source_first_seen: {},
    first_seen: at,
    last_seen: at,
    changed_at: at,
    active: 1,
    inactive_since: null,
    has_server_json: 0,
    opt_out: '',
    opt_out_reason: '',
    version: 1,
    ...overrides,
  };
}

/** A listings row: a live mcp-registry item (its id the key) of the MCP agent at `agent_key`, seen at `first_seen` (default: now). */
export function listingRow(overrides: RowOverrides<'listings'> = {}): InsertRow<'listings'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  const at = overrides.first_seen ?? new Date();
  return {
    source: 'mcp-registry',
    item_id: key,
    agent_key: key,
    protocol: 'mcp',
    name: key,
    description: '',
    version_label: '',
    endpoint_url: key,
    endpoint_transport: '',
    card_url: '',
    server_json: '',
    status: 'active',
    raw: '',
    raw_truncated: 0,
    tombstoned: 0,
    content_hash: '',
    changed_at: at,
    first_seen: at,
    last_seen: at,
    last_event_id: `listing-${key}`,
    version: 1,
    ...overrides,
  };
}

/** A live listing_history row, so the verdict writer attributes the agent's probes to `source`. */
export function listingHistoryRow(
  agentKey: string,
  source: string,
  at: Date,
  overrides: RowOverrides<'listing_history'> = {},
): InsertRow<'listing_history'> {
  return {
    agent_key: agentKey,
    observed_at: at,
    event_id: `lh-${source}-${agentKey}`,
    source,
    item_id: agentKey,
    status: 'active',
    endpoint_transport: '',
    server_json: '',
    ...overrides,
  };
}

/** A source_fetches row: one good page of mcp-registry. */
export function sourceFetchRow(id: string, at: Date, overrides: RowOverrides<'source_fetches'> = {}): InsertRow<'source_fetches'> {
  return {
    event_id: id,
    run_id: 'run-1',
    source: 'mcp-registry',
    url: 'https://registry.example/v0/servers',
    page: 1,
    cursor: '',
    status: 200,
    ok: 1,
    not_modified: 0,
    item_count: 10,
    duration_ms: 42,
    error_class: '',
    error: '',
    observed_at: at,
    ...overrides,
  };
}

// ---- checks and verdicts ----

export interface CheckSpec {
  id: string;
  checker?: string;
  agent?: string;
  at: Date;
  uptime?: 'up' | 'down' | 'unknown' | 'skipped';
  latency?: number | null;
  inSample?: boolean;
  source?: string;
  protocol?: 'a2a' | 'mcp';
}

/** A checks row of one probe of the spec's agent (default DEFAULT_AGENT). */
export function checkRow(s: CheckSpec, overrides: RowOverrides<'checks'> = {}): InsertRow<'checks'> {
  const agent = s.agent ?? DEFAULT_AGENT;
  return {
    event_id: s.id,
    checker_version: s.checker ?? '1.0.0',
    agent_key: agent,
    agent_id: `id-${agent.length}`,
    protocol: s.protocol ?? 'mcp',
    run_id: 'run-1',
    observed_at: s.at,
    uptime: s.uptime ?? 'up',
    reason: s.uptime === 'down' ? 'http_5xx' : '',
    http_status: s.uptime === 'down' ? 503 : 200,
    latency_ms: s.latency === undefined ? 120 : s.latency,
    in_sample: s.inSample ? 1 : 0,
    our_side: 0,
    source: s.source ?? 'mcp-registry',
    ...overrides,
  };
}

export interface VerdictSpec {
  id: string;
  agent?: string;
  at: Date;
  checker?: string;
  result?: 'pass' | 'fail' | 'unknown' | 'n/a';
  inSample?: boolean;
  protocol?: 'a2a' | 'mcp';
}

/** A verdicts row of one probe of the spec's agent (default DEFAULT_AGENT); judged_at and the structure columns left to the table. */
/** A verdict_heads row (0032): the signed head of one tree of verdicts (its values are not a real signature). */
export function verdictHeadRow(overrides: RowOverrides<'verdict_heads'> = {}): InsertRow<'verdict_heads'> {
  return {
    head_id: 'a'.repeat(32),
    checker_version: 'test',
    tree_size: 1,
    root_hash: 'b'.repeat(64),
    alg: 'Ed25519',
    canonicalization: 'veronikai-jcs-1',
    key_id: 'ed25519:test',
    signature: 'sig',
    ...overrides,
  };
}

export function verdictRow(s: VerdictSpec, overrides: RowOverrides<'verdicts'> = {}): InsertRow<'verdicts'> {
  return {
    event_id: s.id,
    agent_key: s.agent ?? DEFAULT_AGENT,
    protocol: s.protocol ?? 'mcp',
    observed_at: s.at,
    checker_version: s.checker ?? '1.0.0',
    suite_id: 'mcp-remote',
    suite_version: '2025-06-18',
    result: s.result ?? 'pass',
    reasons: s.result === 'fail' ? ['MCP-001'] : [],
    warnings: [],
    a2a_version: '',
    a2a_route: '',
    tolerant_valid: null,
    alt_version: '',
    alt_valid: null,
    schema_file: '',
    signature: 'sig',
    in_sample: s.inSample ? 1 : 0,
    ...overrides,
  };
}

/** An agent_latest row: the agent's latest check (up) and verdict (pass) under checker 1.0.0, observed now. */
export function agentLatestRow(overrides: RowOverrides<'agent_latest'> = {}): InsertRow<'agent_latest'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  return {
    checker_version: '1.0.0',
    agent_key: key,
    agent_id: agentId(key),
    protocol: 'mcp',
    source: 'mcp-registry',
    event_id: `latest-${key}`,
    observed_at: new Date(),
    uptime: 'up',
    reason: '',
    http_status: 200,
    latency_ms: 120,
    in_sample: 0,
    our_side: 0,
    suite_id: 'mcp-remote',
    suite_version: '2025-06-18',
    result: 'pass',
    reasons: [],
    warnings: [],
    a2a_version: '',
    a2a_route: '',
    signature: 'sig',
    ...overrides,
  };
}

// ---- rollups ----

/** A daily_rollups row of one day (default today, UTC) with every count zero. */
export function dailyRollupRow(overrides: RowOverrides<'daily_rollups'> = {}): InsertRow<'daily_rollups'> {
  return {
    day: new Date().toISOString().slice(0, 10),
    protocol: 'mcp',
    source: 'mcp-registry',
    checker_version: '1.0.0',
    checks: 0,
    up: 0,
    down: 0,
    unknown: 0,
    skipped: 0,
    pass: 0,
    fail: 0,
    unknown_verdict: 0,
    na: 0,
    sample_checks: 0,
    sample_up: 0,
    sample_down: 0,
    sample_unknown: 0,
    sample_skipped: 0,
    sample_pass: 0,
    sample_fail: 0,
    sample_unknown_verdict: 0,
    sample_na: 0,
    computed_at: new Date(),
    ...overrides,
  };
}

/** An agent_daily_history row of one agent and day (default today, UTC) with every count zero. */
export function agentDailyHistoryRow(overrides: RowOverrides<'agent_daily_history'> = {}): InsertRow<'agent_daily_history'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  return {
    checker_version: '1.0.0',
    agent_key: key,
    day: new Date().toISOString().slice(0, 10),
    agent_id: agentId(key),
    protocol: 'mcp',
    checks: 0,
    up: 0,
    down: 0,
    unknown: 0,
    skipped: 0,
    sample_checks: 0,
    sample_up: 0,
    latency_p50_ms: null,
    latency_p95_ms: null,
    computed_at: new Date(),
    ...overrides,
  };
}

// ---- runs, documents, the checker version ----

/** A checker_current row: checker 1.0.0 pinned now. */
export function checkerCurrentRow(overrides: RowOverrides<'checker_current'> = {}): InsertRow<'checker_current'> {
  return { checker_version: '1.0.0', set_at: new Date(), note: 'test', ...overrides };
}

/** A runs row: the start of daily run run-1, now. */
export function runRow(overrides: RowOverrides<'runs'> = {}): InsertRow<'runs'> {
  const runId = overrides.run_id ?? 'run-1';
  return {
    run_id: runId,
    phase: 'start',
    kind: 'daily',
    observed_at: new Date(),
    event_id: `${runId}-${overrides.phase ?? 'start'}`,
    budget: null,
    sample_size: null,
    seed: '',
    counts: {},
    complete: 0,
    note: '',
    ...overrides,
  };
}

/** A documents row holding `text` (default '{}'), fetched from DEFAULT_AGENT's card URL now. */
export function documentRow(overrides: RowOverrides<'documents'> = {}): InsertRow<'documents'> {
  const text = overrides.text ?? '{}';
  return {
    sha256: 'd'.repeat(64),
    text,
    valid_utf8: 1,
    bytes: Buffer.byteLength(text),
    url: `${DEFAULT_AGENT}/.well-known/agent-card.json`,
    observed_at: new Date(),
    ...overrides,
  };
}

// ---- the search index ----

/** A search_documents row: DEFAULT_AGENT, listable, indexed under 'weather'. */
export function searchDocumentRow(overrides: RowOverrides<'search_documents'> = {}): InsertRow<'search_documents'> {
  return {
    agent_id: agentId(DEFAULT_AGENT),
    agent_key: DEFAULT_AGENT,
    version: 1,
    listable: 1,
    content: '7',
    card_sha256: '',
    protocol: 'mcp',
    sources: ['mcp-registry'],
    transports: ['streamable-http'],
    auth_required: 0,
    name: 'Weather',
    title: '',
    description: 'Forecasts',
    impacts: { weather: 40000 },
    ...overrides,
  };
}

/** A search_postings row of searchDocumentRow(). */
export function searchPostingRow(overrides: RowOverrides<'search_postings'> = {}): InsertRow<'search_postings'> {
  return { term: 'weather', rank: 65535 - 40000, agent_id: agentId(DEFAULT_AGENT), content: '7', ...overrides };
}

/** A search_term_postings row of searchDocumentRow(). */
export function searchTermPostingRow(overrides: RowOverrides<'search_term_postings'> = {}): InsertRow<'search_term_postings'> {
  return {
    term: 'weather',
    rank: 65535 - 40000,
    agent_id: agentId(DEFAULT_AGENT),
    content: '7',
    protocol: 'mcp',
    sources: ['mcp-registry'],
    transports: ['streamable-http'],
    auth_required: 0,
    ...overrides,
  };
}

// ---- changes, webhook deliveries, corrections ----

/** An agent_changes row: the agent at `agent_key` went down, now. */
export function agentChangeRow(overrides: RowOverrides<'agent_changes'> = {}): InsertRow<'agent_changes'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  const id = overrides.change_id ?? 'change-1';
  return {
    observed_at: new Date(),
    change_id: id,
    kind: 'down',
    agent_key: key,
    agent_id: agentId(key),
    protocol: 'mcp',
    name: key,
    checker_version: '',
    cause_event_id: `cause-${id}`,
    from_state: 'up',
    to_state: 'down',
    summary: 'went down',
    reasons: [],
    ...overrides,
  };
}

/** A webhook_deliveries row: change-1 of DEFAULT_AGENT delivered to subscription sub-1 on the first attempt, now. */
export function webhookDeliveryRow(overrides: RowOverrides<'webhook_deliveries'> = {}): InsertRow<'webhook_deliveries'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  return {
    subscription_id: 'sub-1',
    change_id: 'change-1',
    delivery_id: 'delivery-1',
    kind: 'down',
    agent_id: agentId(key),
    agent_key: key,
    change_observed_at: new Date(),
    status: 'delivered',
    attempts: 1,
    last_status: 200,
    error_class: '',
    error: '',
    duration_ms: 50,
    recorded_at: new Date(),
    ...overrides,
  };
}

/** A corrections row: dispute-1 of DEFAULT_AGENT answered by a re-probe that found it up and passing as before. */
export function correctionRow(overrides: RowOverrides<'corrections'> = {}): InsertRow<'corrections'> {
  const key = overrides.agent_key ?? DEFAULT_AGENT;
  return {
    dispute_id: 'dispute-1',
    requested_at: new Date(),
    agent_key: key,
    agent_id: agentId(key),
    protocol: 'mcp',
    name: key,
    reason: 'the owner says it is up',
    disputed_checker_version: '1.0.0',
    disputed_event_id: 'probe-before',
    disputed_at: new Date(),
    disputed_uptime: 'up',
    disputed_result: 'pass',
    disputed_reasons: [],
    request_id: 'request-1',
    outcome: 'answered',
    note: '',
    checker_version: '1.0.0',
    reprobe_event_id: 'probe-after',
    reprobed_at: new Date(),
    reprobe_uptime: 'up',
    reprobe_result: 'pass',
    reprobe_reasons: [],
    verdict_changed: 0,
    uptime_changed: 0,
    change_id: 'change-1',
    closed_at: new Date(),
    rank: 2,
    ...overrides,
  };
}

// ---- probes judged by the verdict writer ----

/** 'YYYY-MM-DD' of a UTC day `daysAgo` days before `now`. */
export function utcDay(now: number, daysAgo: number): string {
  return new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 10);
}

/** One probe and how the scripted checker judges it. */
export interface JudgedProbeSpec {
  id: string;
  agent: string;
  at: Date;
  protocol?: 'a2a' | 'mcp';
  uptime?: UptimeState;
  result?: VerdictResult;
  /** Latency of an `up` probe (default 120 ms). */
  latency?: number;
  inSample?: boolean;
  runId?: string;
}

/**
 * A checker whose judgements are given per probe (by agent key and time): the real
 * engine's verdict with the scripted uptime state and result laid over it.
 */
export function scriptedChecker(version: string, probes: readonly JudgedProbeSpec[]): Checker {
  const byProbe = new Map(probes.map((p) => [`${p.agent}|${p.at.toISOString()}`, p]));
  const spec = (subject: string, observedAt: string): JudgedProbeSpec => {
    const p = byProbe.get(`${subject}|${observedAt}`);
    if (!p) throw new Error(`scriptedChecker: no judgement for ${subject} at ${observedAt}`);
    return p;
  };
  const uptimeOf = (p: JudgedProbeSpec): UptimeVerdict => {
    const state = p.uptime ?? 'up';
    return { state, reason: state === 'down' ? 'http_5xx' : '', ourSide: false, status: state === 'down' ? 503 : 200 };
  };
  const reasonsOf = (p: JudgedProbeSpec): string[] => (p.result === 'fail' ? ['MCP-001'] : []);
  return {
    version,
    judgeA2A: (obs, ctx) => {
      const p = spec(ctx.subject, ctx.observedAt);
      const r = CURRENT_CHECKER.judgeA2A(obs, ctx);
      return { ...r, uptime: uptimeOf(p), card: { ...r.card, checker: version, result: p.result ?? 'pass', reasons: reasonsOf(p) } };
    },
    judgeMcp: (obs, ctx) => {
      const p = spec(ctx.subject, ctx.observedAt);
      const r = CURRENT_CHECKER.judgeMcp(obs, ctx);
      return { uptime: uptimeOf(p), verdict: { ...r.verdict, checker: version, result: p.result ?? 'pass', reasons: reasonsOf(p) } };
    },
  };
}

/** The probe event a worker would have recorded for the spec: one exchange with the scripted status and latency. */
export function probeEventFor(p: JudgedProbeSpec) {
  const status = (p.uptime ?? 'up') === 'down' ? 503 : 200;
  const exchange = { ...probeExchange('mcp-get', p.agent, status), durationMs: p.latency ?? 120 };
  return probeEvent(p.at.getTime(), p.id, p.agent, p.protocol ?? 'mcp', [exchange], {
    inSample: p.inSample ?? false,
    runId: p.runId ?? 'run-1',
  });
}

/**
 * Writes probes through the verdict processor's own writer (checks, verdicts, agent_latest,
 * then the touched rollup days) under a scripted checker of the given version.
 */
export async function writeJudged(wh: Warehouse, probes: readonly JudgedProbeSpec[], checkerVersion = '1.0.0'): Promise<void> {
  const writer = new VerdictWriter(wh, scriptedChecker(checkerVersion, probes), TEST_SIGNING_KEY);
  await writer.write(probes.map(probeEventFor));
}
