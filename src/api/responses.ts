import { CHECKER_VERSION } from '../conformance/version.js';
import { census, runStats, type Census, type RunStats } from '../stats/run-stats.js';
import { wilson, type Proportion } from '../stats/wilson.js';
import {
  agentById,
  agentsPage,
  agentUptime,
  checkerVersionShown,
  dailyRollups,
  dailyRuns,
  lastCheckedAt,
  latestOfAgent,
  listingsOfAgent,
  newestLatestObservation,
  searchAgentRows,
  type AgentApiRow,
  type AgentListingApiRow,
  type DailyRollupApiRow,
} from '../warehouse/queries.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { encodeCursor, finiteOrNull, isoTime, withIsoTimes } from './format.js';

/**
 * The API's responses for ecosystem statistics (Methods §4-5) and the per-agent status
 * the agent page shows, built from the read model (src/warehouse/queries.ts). The JSON
 * routes and the dashboard both use these; no route lives here.
 *
 * Two kinds of figure, never mixed: **sample estimates** come from one daily run's
 * uniform random sample, with 95 % Wilson intervals, and a run still in progress says
 * so (its counts are partial, never the whole index); the **census** counts every
 * active agent's latest state. Everything is read under the current checker version
 * (v_checker_current__v2), or this build's CHECKER_VERSION while the warehouse has none.
 * Times are ISO 8601 UTC. Hidden agents (owner opt-out) are never served.
 */

export const STATS_DAYS_DEFAULT = 30;
export const STATS_DAYS_MAX = 400;
export const AGENT_SEARCH_DEFAULT = 50;
export const AGENT_SEARCH_MAX = 500;

/** The checker version the statistics are read under: the one the views show, else this build's. */
export async function currentCheckerVersion(warehouse: ReadOnlyWarehouse): Promise<string> {
  return (await checkerVersionShown(warehouse)) ?? CHECKER_VERSION;
}

/** The newest daily run (by its first event), and the newest one that finished. */
export async function latestDailyRuns(warehouse: ReadOnlyWarehouse): Promise<{ latest: string | null; latestComplete: string | null }> {
  const rows = await dailyRuns(warehouse, 50);
  return { latest: rows[0]?.run_id ?? null, latestComplete: rows.find((r) => Number(r.finished) === 1)?.run_id ?? null };
}

export interface RunStatsResponse extends Omit<RunStats, 'status'> {
  status: 'complete' | 'incomplete' | 'in progress';
  kind: 'sample estimate';
  /** True unless the run completed: the counts so far, not the run's figures and never the whole index. */
  partial: boolean;
}

/** A run's sample figures, or null for a run the warehouse has no record of. */
export async function runStatsResponse(warehouse: ReadOnlyWarehouse, runId: string, checkerVersion: string): Promise<RunStatsResponse | null> {
  const s = await runStats(warehouse, runId, checkerVersion);
  if (s.status === 'unknown run') return null;
  return {
    ...s,
    status: s.status,
    startedAt: isoTime(s.startedAt),
    finishedAt: isoTime(s.finishedAt),
    kind: 'sample estimate',
    partial: s.status !== 'complete',
  };
}

export interface CensusResponse extends Census {
  kind: 'census';
  /** Newest latest-state observation counted (ISO), null when nothing was checked yet. */
  asOf: string | null;
  note: string;
}

export async function censusResponse(warehouse: ReadOnlyWarehouse, checkerVersion: string): Promise<CensusResponse> {
  const c = await census(warehouse, checkerVersion);
  const asOf = await newestLatestObservation(warehouse, checkerVersion);
  return {
    kind: 'census',
    ...c,
    asOf: isoTime(asOf),
    note:
      "Totals of every active agent's latest check and verdict: a census of the current snapshot, not a sample estimate, " +
      'so no interval applies. Ecosystem shares with intervals come from a run\'s sample (/stats/runs/…).',
  };
}

/** A row of v_daily_rollups__v2 with its times as ISO. */
export type DailyRow = DailyRollupApiRow;

export interface DailyTotal {
  day: string;
  checks: number; up: number; down: number; unknown: number; skipped: number;
  pass: number; fail: number; unknownVerdict: number; na: number;
  /** up / (up + down) over every check of the day. */
  uptime: number | null;
  /** pass / (pass + fail) over every verdict of the day. */
  passRate: number | null;
  /** The day's sample checks only, with 95 % Wilson intervals. */
  sample: { checks: number; up: Proportion; pass: Proportion };
}

export interface DailyResponse {
  checkerVersion: string;
  days: number;
  protocol: string | null;
  /** Rows of v_daily_rollups__v2 (one per day, protocol and source), newest day first. */
  rows: DailyRow[];
  /** The rows summed per day (every check counts under one protocol and one source), newest first. */
  totals: DailyTotal[];
}

export async function dailyResponse(warehouse: ReadOnlyWarehouse, checkerVersion: string, days: number, protocol: string | null): Promise<DailyResponse> {
  const rows = (await dailyRollups(warehouse, checkerVersion, days, protocol)).map((r): DailyRow => {
    const out = { ...r };
    for (const [k, v] of Object.entries(out) as Array<[keyof DailyRow, unknown]>) {
      // NaN / inf never reach JSON: a rate with nothing to measure is null.
      if (typeof v === 'number' && !Number.isFinite(v)) (out as Record<keyof DailyRow, unknown>)[k] = null;
    }
    out.computedAt = isoTime(r.computedAt);
    return out;
  });
  const byDay = new Map<string, DailyRow[]>();
  for (const r of rows) byDay.set(r.day, [...(byDay.get(r.day) ?? []), r]);
  const totals = [...byDay.entries()].map(([day, list]) => {
    const sum = (k: keyof DailyRow) => list.reduce((n, r) => n + Number(r[k] ?? 0), 0);
    const up = sum('up'), down = sum('down'), pass = sum('pass'), fail = sum('fail');
    return {
      day,
      checks: sum('checks'), up, down, unknown: sum('unknown'), skipped: sum('skipped'),
      pass, fail, unknownVerdict: sum('unknownVerdict'), na: sum('na'),
      uptime: up + down > 0 ? up / (up + down) : null,
      passRate: pass + fail > 0 ? pass / (pass + fail) : null,
      sample: {
        checks: sum('sampleChecks'),
        up: wilson(sum('sampleUp'), sum('sampleUp') + sum('sampleDown')),
        pass: wilson(sum('samplePass'), sum('samplePass') + sum('sampleFail')),
      },
    };
  });
  return { checkerVersion, days, protocol, rows, totals };
}

export interface AgentSummary {
  id: string;
  name: string;
  protocol: string;
  sources: string[];
  /** 'unchecked' when the owner opted out of probing (listed, never checked). */
  optOut: string;
  lastCheckedAt: string | null;
  /** The latest check's uptime state and the latest verdict's result, under the current checker. */
  uptime: string | null;
  result: string | null;
  uptime7d: number | null;
  uptime30d: number | null;
}

/** Active agents by name (or URL) fragment, with their latest state; hidden agents never appear. */
export async function searchAgents(
  warehouse: ReadOnlyWarehouse,
  checkerVersion: string,
  opts: { q?: string; protocol?: string | null; limit?: number },
): Promise<{ agents: AgentSummary[]; more: boolean }> {
  const limit = opts.limit ?? AGENT_SEARCH_DEFAULT;
  const rows = await searchAgentRows(warehouse, { checkerVersion, q: opts.q ?? '', protocol: opts.protocol ?? null, limit: limit + 1 });
  const agents = rows.slice(0, limit).map((r) => ({
    id: String(r.id),
    name: String(r.name ?? ''),
    protocol: String(r.protocol ?? ''),
    sources: r.sources ?? [],
    optOut: String(r.optOut ?? ''),
    lastCheckedAt: isoTime(r.lastCheckedAt),
    uptime: r.uptime ?? null,
    result: r.result ?? null,
    uptime7d: finiteOrNull(r.uptime7d),
    uptime30d: finiteOrNull(r.uptime30d),
  }));
  return { agents, more: rows.length > limit };
}

export interface UptimeWindow {
  /** up / (up + down) in the window; null when nothing was judged up or down. */
  uptime: number | null;
  checks: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export interface AgentStatus {
  checkerVersion: string;
  /** When the agent was last checked, under any checker version (Methods §4); null if never. */
  lastCheckedAt: string | null;
  latestCheck: {
    at: string | null; eventId: string; uptime: string; reason: string; httpStatus: number | null; latencyMs: number | null;
    inSample: boolean; ourSide: boolean; source: string;
  } | null;
  latestVerdict: {
    checkerVersion: string; result: string; reasons: string[]; warnings: string[]; suiteId: string; suiteVersion: string;
    a2aVersion: string; a2aRoute: string; signature: string;
  } | null;
  uptime: { '24h': UptimeWindow; '7d': UptimeWindow; '30d': UptimeWindow; '90d': UptimeWindow };
}

/** An agent's latest check and verdict (current checker), last check time and uptime windows, by agent key. */
export async function agentStatus(warehouse: ReadOnlyWarehouse, key: string, checkerVersion?: string): Promise<AgentStatus> {
  const cv = checkerVersion ?? (await currentCheckerVersion(warehouse));
  const latest = await latestOfAgent(warehouse, cv, key);
  const last = await lastCheckedAt(warehouse, key);
  const u = await agentUptime(warehouse, key);
  const window = (w: '24h' | '7d' | '30d' | '90d'): UptimeWindow => ({
    uptime: finiteOrNull(u?.[`uptime_${w}`]),
    checks: Number(u?.[`checks_${w}`] ?? 0),
    latencyP50Ms: finiteOrNull(u?.[`latency_p50_${w}`]),
    latencyP95Ms: finiteOrNull(u?.[`latency_p95_${w}`]),
  });
  return {
    checkerVersion: cv,
    lastCheckedAt: isoTime(last),
    latestCheck: latest
      ? {
          at: isoTime(latest.observed_at),
          eventId: latest.event_id,
          uptime: latest.uptime,
          reason: latest.reason,
          httpStatus: latest.http_status ?? null,
          latencyMs: latest.latency_ms ?? null,
          inSample: Number(latest.in_sample) === 1,
          ourSide: Number(latest.our_side) === 1,
          source: latest.source,
        }
      : null,
    latestVerdict: latest
      ? {
          checkerVersion: cv,
          result: latest.result,
          reasons: latest.reasons ?? [],
          warnings: latest.warnings ?? [],
          suiteId: latest.suite_id,
          suiteVersion: latest.suite_version,
          a2aVersion: latest.a2a_version,
          a2aRoute: latest.a2a_route,
          signature: latest.signature,
        }
      : null,
    uptime: { '24h': window('24h'), '7d': window('7d'), '30d': window('30d'), '90d': window('90d') },
  };
}

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 500;

export interface AgentsPageResponse {
  agents: AgentApiRow[];
  nextCursor: string | null;
}

/** A page of agents after the cursor's key ('' from the start), with the cursor of the next page. */
export async function agentsPageResponse(
  warehouse: ReadOnlyWarehouse,
  filter: { after: string; limit: number; protocol?: string | undefined; source?: string | undefined; active: 'true' | 'false' | 'all' },
): Promise<AgentsPageResponse> {
  const rows = await agentsPage(warehouse, { ...filter, limit: filter.limit + 1 });
  const page = rows.slice(0, filter.limit);
  const nextCursor = rows.length > filter.limit ? encodeCursor(page[page.length - 1]!.key) : null;
  return { agents: page.map(withIsoTimes), nextCursor };
}

export type AgentResponse = AgentApiRow & { listings: AgentListingApiRow[] } & AgentStatus;

/** One agent with its listings and status, or null when there is none to show (unknown or hidden). */
export async function agentResponse(warehouse: ReadOnlyWarehouse, id: string): Promise<AgentResponse | null> {
  const agent = await agentById(warehouse, id);
  if (!agent) return null;
  const listings = await listingsOfAgent(warehouse, agent.key);
  // Latest check and verdict (current checker), last check time and uptime windows (Methods §4).
  return { ...withIsoTimes(agent), listings: listings.map(withIsoTimes), ...(await agentStatus(warehouse, agent.key)) };
}
