import { isAttestationPayload, type Attestation } from '../conformance/attestation.js';
import { isTreeAttestation, type TreeAttestation } from '../conformance/tree-attestation.js';
import { CHECKER_VERSION } from '../conformance/version.js';
import type { Logger } from '../log.js';
import { census, latestCounts, runStats, type Census } from '../stats/run-stats.js';
import { wilson } from '../stats/wilson.js';
import { agentById, agentsPage, listingsOfAgent } from '../warehouse/read/agents.js';
import { censusTotals, newestLatestObservation } from '../warehouse/read/census.js';
import { checkerVersionServed, checkerVersionShown } from '../warehouse/read/checker-version.js';
import { dailyRollups } from '../warehouse/read/daily-rollups.js';
import { dailyRuns } from '../warehouse/read/runs.js';
import { agentListPage, searchWords, type AgentListCursor, type AgentListState } from '../warehouse/read/search.js';
import { agentStatusRows, agentUptime, lastCheckedAt, latestOfAgent } from '../warehouse/read/status.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { encodeCursor, encodeListCursor, finiteOrNull, isoTime, withIsoTimes } from './format.js';
import type {
  agentResponseSchema,
  agentSearchResponseSchema,
  agentsPageResponseSchema,
  agentStatusSchema,
  agentSummarySchema,
  censusResponseSchema,
  dailyResponseSchema,
  dailyRowSchema,
  dailyTotalSchema,
  FromSchema,
  runStatsResponseSchema,
  uptimeWindowSchema,
} from './schemas.js';

/**
 * The API's responses for ecosystem statistics and the per-agent status
 * the agent page shows, built from the read model (src/warehouse/read/). The JSON
 * routes and the dashboard both use these; no route lives here.
 *
 * Two kinds of figure, never mixed: **sample estimates** come from one daily run's
 * uniform random sample, with 95 % Wilson intervals, and a run still in progress says
 * so (its counts are partial, never the whole index); the **census** counts every
 * active agent's latest state. Everything is read under the current checker version
 * (v_checker_current__v2), or this build's CHECKER_VERSION while the warehouse has none.
 * Times are ISO 8601 UTC. Hidden agents (owner opt-out) are never served. Each response's type is
 * its schema's (schemas.ts), so the two cannot disagree.
 */

import { AGENT_SEARCH_DEFAULT } from './limits.js';

export { AGENT_SEARCH_DEFAULT, AGENT_SEARCH_MAX, STATS_DAYS_DEFAULT, STATS_DAYS_MAX } from './limits.js';

/**
 * The checker version the statistics are read under: the pinned one, else the one most recently
 * counted (both small tables), else the one the views show (which looks at every verdict: only
 * on a warehouse that has neither), else this build's.
 */
export async function currentCheckerVersion(warehouse: ReadOnlyWarehouse): Promise<string> {
  return (await checkerVersionServed(warehouse)) ?? (await checkerVersionShown(warehouse)) ?? CHECKER_VERSION;
}

/** The newest daily run (by its first event), and the newest one that finished. */
export async function latestDailyRuns(warehouse: ReadOnlyWarehouse): Promise<{ latest: string | null; latestComplete: string | null }> {
  const rows = await dailyRuns(warehouse, 50);
  return { latest: rows[0]?.run_id ?? null, latestComplete: rows.find((r) => Number(r.finished) === 1)?.run_id ?? null };
}

/** A run's sample figures; `partial` unless the run completed (the counts so far, never the whole index). */
export type RunStatsResponse = FromSchema<typeof runStatsResponseSchema>;

/** A run's sample figures, or null for a run the warehouse has no record of. */
export async function runStatsResponse(
  warehouse: ReadOnlyWarehouse,
  runId: string,
  checkerVersion: string,
): Promise<RunStatsResponse | null> {
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

/**
 * The census with `asOf`, the newest latest-state observation counted, and `computedAt`, when the
 * totals were counted (the verdict processor recounts them as it writes and when a version is pinned).
 */
export type CensusResponse = FromSchema<typeof censusResponseSchema>;

/**
 * The census as last counted (census_totals: one row); a version never counted yet (a warehouse
 * from before the table, until its next verdicts) is counted here, once per request.
 */
export async function censusResponse(warehouse: ReadOnlyWarehouse, checkerVersion: string): Promise<CensusResponse> {
  const stored = await censusTotals(warehouse, checkerVersion);
  let c: Census;
  let asOf: string | null;
  if (stored) {
    c = {
      checkerVersion,
      agents: { active: Number(stored.active ?? 0), inactive: Number(stored.inactive ?? 0) },
      latest: latestCounts(stored),
    };
    asOf = stored.as_of;
  } else {
    c = await census(warehouse, checkerVersion);
    asOf = await newestLatestObservation(warehouse, checkerVersion);
  }
  return {
    kind: 'census',
    ...c,
    asOf: isoTime(asOf),
    computedAt: isoTime(stored?.computed_at ?? null),
    note:
      "Totals of every active agent's latest check and verdict: a census of the current snapshot, not a sample estimate, " +
      "so no interval applies. Ecosystem shares with intervals come from a run's sample (/stats/runs/…).",
  };
}

/** A row of v_daily_rollups__v2 with its times as ISO. */
export type DailyRow = FromSchema<typeof dailyRowSchema>;

/**
 * A day's rows summed: uptime is up / (up + down) and passRate pass / (pass + fail) over every
 * check and verdict of the day; `sample` is the day's sample checks only, with 95 % Wilson intervals.
 */
export type DailyTotal = FromSchema<typeof dailyTotalSchema>;

/**
 * Rows of v_daily_rollups__v2 (one per day, protocol and source) and the rows summed per day (every
 * check counts under one protocol and one source), newest day first.
 */
export type DailyResponse = FromSchema<typeof dailyResponseSchema>;

export async function dailyResponse(
  warehouse: ReadOnlyWarehouse,
  checkerVersion: string,
  days: number,
  protocol: string | null,
): Promise<DailyResponse> {
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
    const up = sum('up'),
      down = sum('down'),
      pass = sum('pass'),
      fail = sum('fail');
    return {
      day,
      checks: sum('checks'),
      up,
      down,
      unknown: sum('unknown'),
      skipped: sum('skipped'),
      pass,
      fail,
      unknownVerdict: sum('unknownVerdict'),
      na: sum('na'),
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

/** An agent in a list or search, with its latest check's uptime state and its latest verdict's result under the current checker. */
export type AgentSummary = FromSchema<typeof agentSummarySchema>;

/** A page of a list or search. */
export type AgentSearchResponse = FromSchema<typeof agentSearchResponseSchema>;

/**
 * Active agents in natural name order, all of them or those matching a search (every word of `q`
 * starts a word of the name or the key, or is a word of the description), with their latest state;
 * hidden agents never appear. A page after `cursor`, with the cursor of the next page.
 */
export async function searchAgents(
  warehouse: ReadOnlyWarehouse,
  checkerVersion: string,
  opts: {
    q?: string;
    protocol?: string | null;
    limit?: number;
    cursor?: AgentListCursor | null;
    source?: string | null;
    state?: AgentListState | null;
  },
): Promise<Omit<AgentSearchResponse, 'checkerVersion'>> {
  const limit = opts.limit ?? AGENT_SEARCH_DEFAULT;
  const page = await agentListPage(warehouse, {
    words: searchWords(opts.q ?? ''),
    protocol: opts.protocol ?? null,
    after: opts.cursor ?? null,
    limit,
    source: opts.source ?? null,
    state: opts.state ?? null,
    checkerVersion,
  });
  const status = await agentStatusRows(
    warehouse,
    page.rows.map((r) => r.key),
  );
  const agents = page.rows.map((r): AgentSummary => {
    const mine = status.filter((s) => s.agent_key === r.key);
    const current = mine.find((s) => s.checker_version === checkerVersion);
    const last = mine.reduce<string | null>((m, s) => (s.latest_at && (!m || s.latest_at > m) ? s.latest_at : m), null);
    return {
      id: r.id,
      name: r.name,
      protocol: r.protocol,
      sources: r.sources ?? [],
      optOut: r.optOut,
      lastCheckedAt: isoTime(last),
      uptime: current?.latest_uptime || null,
      result: current?.latest_result || null,
      uptime7d: finiteOrNull(current?.uptime_7d),
      uptime30d: finiteOrNull(current?.uptime_30d),
    };
  });
  return { agents, more: page.next !== null, nextCursor: page.next ? encodeListCursor(page.next) : null };
}

/** Uptime (up / (up + down); null when nothing was judged up or down), checks and latency of one window. */
export type UptimeWindow = FromSchema<typeof uptimeWindowSchema>;

/**
 * An agent's latest check and verdict under the current checker (the verdict's attestation as an
 * object, null when none is stored or the stored text is not one), when it was last checked under
 * any checker version, and its uptime windows.
 */
export type AgentStatus = FromSchema<typeof agentStatusSchema>;

const ATTESTATION_KEYS = ['alg', 'canonicalization', 'keyId', 'payload', 'signature'];

/**
 * A stored verdict signature (agent_latest.signature: the attestation as JSON text) as the object
 * it is, or null with the reason, so one malformed row shows no signature instead of failing its
 * page. Only the attestation's exact shape passes (the payload as src/conformance/attestation.ts
 * signs it), the shape the response schema lists, so serializing it drops nothing.
 */
export function parseAttestation(text: string): { attestation: Attestation | TreeAttestation | null; problem: string | null } {
  if (text === '') return { attestation: null, problem: null };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { attestation: null, problem: 'not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { attestation: null, problem: 'not a JSON object' };
  const o = v as Record<string, unknown>;
  // A batch-signed verdict (docs/MERKLE.md) carries its leaf, proof and head too.
  if ('head' in o && isTreeAttestation(o)) return { attestation: o, problem: null };
  const keys = Object.keys(o).sort();
  if (keys.length !== ATTESTATION_KEYS.length || keys.some((k, i) => k !== ATTESTATION_KEYS[i])) {
    return { attestation: null, problem: `fields ${keys.join(', ')} instead of ${ATTESTATION_KEYS.join(', ')}` };
  }
  if (o.alg !== 'Ed25519' || typeof o.canonicalization !== 'string' || typeof o.keyId !== 'string' || typeof o.signature !== 'string') {
    return { attestation: null, problem: 'alg, canonicalization, keyId or signature of the wrong type' };
  }
  if (!isAttestationPayload(o.payload)) return { attestation: null, problem: 'a payload of another shape' };
  return { attestation: o as unknown as Attestation, problem: null };
}

function signatureOf(
  latest: { signature: string; event_id: string },
  key: string,
  log: Pick<Logger, 'warn'> | undefined,
): Attestation | TreeAttestation | null {
  const { attestation, problem } = parseAttestation(latest.signature);
  if (problem)
    log?.warn({ agentKey: key, eventId: latest.event_id, problem }, 'stored verdict signature is not an attestation: served as null');
  return attestation;
}

/** An agent's latest check and verdict (current checker), last check time and uptime windows, by agent key. */
export async function agentStatus(
  warehouse: ReadOnlyWarehouse,
  key: string,
  checkerVersion?: string,
  log?: Pick<Logger, 'warn'>,
): Promise<AgentStatus> {
  const cv = checkerVersion ?? (await currentCheckerVersion(warehouse));
  const latest = await latestOfAgent(warehouse, cv, key);
  const last = await lastCheckedAt(warehouse, key);
  const u = await agentUptime(warehouse, cv, key);
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
          signature: signatureOf(latest, key, log),
        }
      : null,
    uptime: { '24h': window('24h'), '7d': window('7d'), '30d': window('30d'), '90d': window('90d') },
  };
}

export { PAGE_DEFAULT, PAGE_MAX } from './limits.js';

/** A page of agents; `more` says whether a next page follows: a filtered page can be short, even empty, and still have one. */
export type AgentsPageResponse = FromSchema<typeof agentsPageResponseSchema>;

/**
 * A page of agents after the cursor's key ('' from the start), with the cursor of the next page.
 * A filtered page reads a bounded stretch of the key order (agentsPage), so it may hold fewer than
 * `limit` agents with more after it.
 */
export async function agentsPageResponse(
  warehouse: ReadOnlyWarehouse,
  filter: { after: string; limit: number; protocol?: string | undefined; source?: string | undefined; active: 'true' | 'false' | 'all' },
): Promise<AgentsPageResponse> {
  const page = await agentsPage(warehouse, filter);
  return { agents: page.rows.map(withIsoTimes), more: page.next !== null, nextCursor: page.next === null ? null : encodeCursor(page.next) };
}

/** An agent with its listings and status. */
export type AgentResponse = FromSchema<typeof agentResponseSchema>;

/** One agent with its listings and status, or null when there is none to show (unknown or hidden). */
export async function agentResponse(warehouse: ReadOnlyWarehouse, id: string, log?: Pick<Logger, 'warn'>): Promise<AgentResponse | null> {
  const agent = await agentById(warehouse, id);
  if (!agent) return null;
  const listings = await listingsOfAgent(warehouse, agent.key);
  // Latest check and verdict (current checker), last check time and uptime windows (Methods §4).
  return { ...withIsoTimes(agent), listings: listings.map(withIsoTimes), ...(await agentStatus(warehouse, agent.key, undefined, log)) };
}
