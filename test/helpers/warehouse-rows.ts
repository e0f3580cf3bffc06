import type { UptimeVerdict } from '../../src/conformance/index.js';
import { CURRENT_CHECKER, type Checker } from '../../src/processors/verdicts/checker.js';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import type { CheckRow, SourceFetchRow, UptimeState, VerdictResult, VerdictRow } from '../../src/warehouse/rows.js';
import { probeEvent, probeExchange } from './probe-events.js';

/** Row builders for the warehouse tables (test data only), and probes judged by the real verdict writer. */

/** A row as inserted: times as Date (the port writes them as DateTime64 text). */
type Inserted<T, K extends keyof T> = Omit<T, K> & { [P in K]: Date };

export const DAY_MS = 86_400_000;

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

export function checkRow(s: CheckSpec): Inserted<CheckRow, 'observed_at'> {
  const agent = s.agent ?? 'https://agent.example';
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

export function verdictRow(s: VerdictSpec): Omit<Inserted<VerdictRow, 'observed_at'>, 'judged_at' | 'structure_result' | 'structure_reasons'> {
  return {
    event_id: s.id,
    agent_key: s.agent ?? 'https://agent.example',
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
  };
}

export function sourceFetchRow(id: string, at: Date): Partial<Inserted<SourceFetchRow, 'observed_at'>> {
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
  };
}

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
  return probeEvent(p.at.getTime(), p.id, p.agent, p.protocol ?? 'mcp', [exchange], { inSample: p.inSample ?? false, runId: p.runId ?? 'run-1' });
}

/**
 * Writes probes through the verdict processor's own writer (checks, verdicts, agent_latest,
 * then the touched rollup days) under a scripted checker of the given version.
 */
export async function writeJudged(wh: Warehouse, probes: readonly JudgedProbeSpec[], checkerVersion = '1.0.0'): Promise<void> {
  const writer = new VerdictWriter(wh, scriptedChecker(checkerVersion, probes), () => 'sig');
  await writer.write(probes.map(probeEventFor));
}

/** A live listing_history row, so the verdict writer attributes the agent's probes to `source`. */
export function listingHistoryRow(agentKey: string, source: string, at: Date) {
  return { agent_key: agentKey, observed_at: at, event_id: `lh-${source}-${agentKey}`, source, item_id: agentKey, status: 'active', endpoint_transport: '', server_json: '' };
}
