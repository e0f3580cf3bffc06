import type { FastifyPluginAsync } from 'fastify';
import { CHECKER_VERSION } from '../conformance/version.js';
import { census, runStats, type Census, type RunStats } from '../stats/run-stats.js';
import { wilson, type Proportion } from '../stats/wilson.js';
import type { Warehouse } from '../warehouse/warehouse.js';

/**
 * Ecosystem statistics (Methods §4-5) and the per-agent status the agent page shows.
 *
 * Two kinds of figure, never mixed: **sample estimates** come from one daily run's
 * uniform random sample, with 95 % Wilson intervals, and a run still in progress says
 * so (its counts are partial, never the whole index); the **census** counts every
 * active agent's latest state. Everything is read under the current checker version
 * (v_checker_current__v1), or this build's CHECKER_VERSION while the warehouse has none.
 * Times are ISO 8601 UTC. Hidden agents (owner opt-out) are never served.
 */

export const STATS_DAYS_DEFAULT = 30;
export const STATS_DAYS_MAX = 400;
export const AGENT_SEARCH_DEFAULT = 50;
export const AGENT_SEARCH_MAX = 500;

/** 'YYYY-MM-DD HH:MM:SS.mmm' (ClickHouse, UTC) → ISO 8601 with Z; null stays null. */
export function isoTime(value: string | null | undefined): string | null {
  if (!value) return null;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(value)) return `${value.replace(' ', 'T')}${value.includes('.') ? '' : '.000'}Z`;
  return value;
}

/** The checker version the statistics are read under: the one the views show, else this build's. */
export async function currentCheckerVersion(warehouse: Warehouse): Promise<string> {
  const [row] = await warehouse.query<{ checker_version: string }>('SELECT checker_version FROM v_checker_current__v1');
  return row?.checker_version ? row.checker_version : CHECKER_VERSION;
}

/** The newest daily run (by its first event), and the newest one that finished. */
export async function latestDailyRuns(warehouse: Warehouse): Promise<{ latest: string | null; latestComplete: string | null }> {
  const rows = await warehouse.query<{ run_id: string; finished: number }>(
    `SELECT run_id, toUInt8(countIf(phase = 'finish') > 0) AS finished
     FROM runs FINAL WHERE kind = 'daily'
     GROUP BY run_id ORDER BY min(observed_at) DESC, run_id DESC LIMIT 50`,
  );
  return { latest: rows[0]?.run_id ?? null, latestComplete: rows.find((r) => Number(r.finished) === 1)?.run_id ?? null };
}

export interface RunStatsResponse extends Omit<RunStats, 'status'> {
  status: 'complete' | 'incomplete' | 'in progress';
  kind: 'sample estimate';
  /** True unless the run completed: the counts so far, not the run's figures and never the whole index. */
  partial: boolean;
}

/** A run's sample figures, or null for a run the warehouse has no record of. */
export async function runStatsResponse(warehouse: Warehouse, runId: string, checkerVersion: string): Promise<RunStatsResponse | null> {
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

export async function censusResponse(warehouse: Warehouse, checkerVersion: string): Promise<CensusResponse> {
  const c = await census(warehouse, checkerVersion);
  const [row] = await warehouse.query<{ as_of: string | null }>(
    `SELECT if(count() = 0, NULL, max(observed_at)) AS as_of FROM agent_latest FINAL WHERE checker_version = {cv:String}`,
    { cv: checkerVersion },
  );
  return {
    kind: 'census',
    ...c,
    asOf: isoTime(row?.as_of ?? null),
    note:
      "Totals of every active agent's latest check and verdict: a census of the current snapshot, not a sample estimate, " +
      'so no interval applies. Ecosystem shares with intervals come from a run\'s sample (/stats/runs/…).',
  };
}

export interface DailyRow {
  day: string;
  protocol: string;
  source: string;
  checks: number; up: number; down: number; unknown: number; skipped: number;
  pass: number; fail: number; unknownVerdict: number; na: number;
  uptime: number | null;
  passRate: number | null;
  sampleChecks: number; sampleUp: number; sampleDown: number; samplePass: number; sampleFail: number;
  sampleUptime: number | null; sampleUptimeLow: number | null; sampleUptimeHigh: number | null;
  samplePassRate: number | null; samplePassRateLow: number | null; samplePassRateHigh: number | null;
  computedAt: string | null;
}

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
  /** Rows of v_daily_rollups__v1 (one per day, protocol and source), newest day first. */
  rows: DailyRow[];
  /** The rows summed per day (every check counts under one protocol and one source), newest first. */
  totals: DailyTotal[];
}

export async function dailyResponse(warehouse: Warehouse, checkerVersion: string, days: number, protocol: string | null): Promise<DailyResponse> {
  const raw = await warehouse.query<Record<string, unknown>>(
    `SELECT day, protocol, source, checks, up, down, unknown, skipped, pass, fail,
            unknown_verdict AS unknownVerdict, na, uptime, pass_rate AS passRate,
            sample_checks AS sampleChecks, sample_up AS sampleUp, sample_down AS sampleDown,
            sample_pass AS samplePass, sample_fail AS sampleFail,
            sample_uptime AS sampleUptime, sample_uptime_low AS sampleUptimeLow, sample_uptime_high AS sampleUptimeHigh,
            sample_pass_rate AS samplePassRate, sample_pass_rate_low AS samplePassRateLow, sample_pass_rate_high AS samplePassRateHigh,
            computed_at AS computedAt
     FROM v_daily_rollups__v1
     WHERE checker_version = {cv:String}
       AND day > toDate(now64(3, 'UTC'), 'UTC') - {days:UInt32}
       AND ({protocol:String} = '' OR protocol = {protocol:String})
     ORDER BY day DESC, protocol, source`,
    { cv: checkerVersion, days, protocol: protocol ?? '' },
  );
  const rows = raw.map((r) => {
    const out = { ...r } as Record<string, unknown>;
    for (const [k, v] of Object.entries(out)) {
      // NaN / inf never reach JSON: a rate with nothing to measure is null.
      if (typeof v === 'number' && !Number.isFinite(v)) out[k] = null;
    }
    out.computedAt = isoTime(r.computedAt as string | null);
    return out as unknown as DailyRow;
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
  warehouse: Warehouse,
  checkerVersion: string,
  opts: { q?: string; protocol?: string | null; limit?: number },
): Promise<{ agents: AgentSummary[]; more: boolean }> {
  const limit = opts.limit ?? AGENT_SEARCH_DEFAULT;
  const rows = await warehouse.query<Record<string, unknown>>(
    `SELECT a.agent_id AS id, a.name AS name, a.protocol AS protocol, a.sources AS sources, a.opt_out AS optOut,
            t.last AS lastCheckedAt, l.uptime AS uptime, l.result AS result,
            u.uptime_7d AS uptime7d, u.uptime_30d AS uptime30d
     FROM (
       SELECT agent_key, agent_id, name, protocol, sources, opt_out FROM agents FINAL
       WHERE active = 1 AND opt_out != 'hidden'
         AND ({protocol:String} = '' OR protocol = {protocol:String})
         AND ({q:String} = '' OR positionCaseInsensitiveUTF8(name, {q:String}) > 0 OR positionCaseInsensitiveUTF8(agent_key, {q:String}) > 0)
     ) AS a
     LEFT JOIN (SELECT agent_key, uptime, result FROM agent_latest FINAL WHERE checker_version = {cv:String}) AS l ON l.agent_key = a.agent_key
     LEFT JOIN (SELECT agent_key, max(observed_at) AS last FROM agent_latest FINAL GROUP BY agent_key) AS t ON t.agent_key = a.agent_key
     LEFT JOIN (SELECT agent_key, uptime_7d, uptime_30d FROM v_agent_uptime__v1) AS u ON u.agent_key = a.agent_key
     ORDER BY lowerUTF8(a.name), a.agent_key
     LIMIT {limit:UInt32}
     SETTINGS join_use_nulls = 1`,
    { cv: checkerVersion, q: opts.q ?? '', protocol: opts.protocol ?? '', limit: limit + 1 },
  );
  const agents = rows.slice(0, limit).map((r) => ({
    id: String(r.id),
    name: String(r.name ?? ''),
    protocol: String(r.protocol ?? ''),
    sources: (r.sources as string[] | null) ?? [],
    optOut: String(r.optOut ?? ''),
    lastCheckedAt: isoTime(r.lastCheckedAt as string | null),
    uptime: (r.uptime as string | null) ?? null,
    result: (r.result as string | null) ?? null,
    uptime7d: finiteOrNull(r.uptime7d),
    uptime30d: finiteOrNull(r.uptime30d),
  }));
  return { agents, more: rows.length > limit };
}

const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

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
export async function agentStatus(warehouse: Warehouse, key: string, checkerVersion?: string): Promise<AgentStatus> {
  const cv = checkerVersion ?? (await currentCheckerVersion(warehouse));
  const [latest] = await warehouse.query<Record<string, unknown>>(
    `SELECT observed_at, event_id, uptime, reason, http_status, latency_ms, in_sample, our_side, source,
            suite_id, suite_version, result, reasons, warnings, a2a_version, a2a_route, signature
     FROM agent_latest FINAL WHERE checker_version = {cv:String} AND agent_key = {key:String} LIMIT 1`,
    { cv, key },
  );
  const [last] = await warehouse.query<{ last: string | null }>(
    'SELECT if(count() = 0, NULL, max(observed_at)) AS last FROM agent_latest FINAL WHERE agent_key = {key:String}',
    { key },
  );
  const [u] = await warehouse.query<Record<string, unknown>>('SELECT * FROM v_agent_uptime__v1 WHERE agent_key = {key:String} LIMIT 1', { key });
  const window = (w: string): UptimeWindow => ({
    uptime: finiteOrNull(u?.[`uptime_${w}`]),
    checks: Number(u?.[`checks_${w}`] ?? 0),
    latencyP50Ms: finiteOrNull(u?.[`latency_p50_${w}`]),
    latencyP95Ms: finiteOrNull(u?.[`latency_p95_${w}`]),
  });
  return {
    checkerVersion: cv,
    lastCheckedAt: isoTime(last?.last ?? null),
    latestCheck: latest
      ? {
          at: isoTime(latest.observed_at as string),
          eventId: String(latest.event_id),
          uptime: String(latest.uptime),
          reason: String(latest.reason),
          httpStatus: (latest.http_status as number | null) ?? null,
          latencyMs: (latest.latency_ms as number | null) ?? null,
          inSample: Number(latest.in_sample) === 1,
          ourSide: Number(latest.our_side) === 1,
          source: String(latest.source),
        }
      : null,
    latestVerdict: latest
      ? {
          checkerVersion: cv,
          result: String(latest.result),
          reasons: (latest.reasons as string[]) ?? [],
          warnings: (latest.warnings as string[]) ?? [],
          suiteId: String(latest.suite_id),
          suiteVersion: String(latest.suite_version),
          a2aVersion: String(latest.a2a_version),
          a2aRoute: String(latest.a2a_route),
          signature: String(latest.signature),
        }
      : null,
    uptime: { '24h': window('24h'), '7d': window('7d'), '30d': window('30d'), '90d': window('90d') },
  };
}

const PROTOCOL = { type: 'string', enum: ['a2a', 'mcp'] } as const;

/** GET /stats/runs/latest, /stats/runs/:runId, /stats/census, /stats/daily, /stats/agents. */
export const statsRoutes: FastifyPluginAsync<{ warehouse: Warehouse }> = async (app, { warehouse }) => {
  app.get('/stats/runs/latest', async (_req, reply) => {
    const cv = await currentCheckerVersion(warehouse);
    const { latest, latestComplete } = await latestDailyRuns(warehouse);
    const stats = latest ? await runStatsResponse(warehouse, latest, cv) : null;
    if (!stats) return reply.code(404).send({ error: 'no daily run yet' });
    return { ...stats, latestCompleteRunId: latestComplete };
  });

  app.get<{ Params: { runId: string } }>(
    '/stats/runs/:runId',
    {
      schema: {
        params: {
          type: 'object',
          required: ['runId'],
          properties: { runId: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' } },
        },
      },
    },
    async (req, reply) => {
      const stats = await runStatsResponse(warehouse, req.params.runId, await currentCheckerVersion(warehouse));
      if (!stats) return reply.code(404).send({ error: 'run not found' });
      return stats;
    },
  );

  app.get('/stats/census', async () => censusResponse(warehouse, await currentCheckerVersion(warehouse)));

  app.get<{ Querystring: { days?: number; protocol?: string } }>(
    '/stats/daily',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { days: { type: 'integer', minimum: 1, maximum: STATS_DAYS_MAX }, protocol: PROTOCOL },
        },
      },
    },
    async (req) => dailyResponse(warehouse, await currentCheckerVersion(warehouse), req.query.days ?? STATS_DAYS_DEFAULT, req.query.protocol ?? null),
  );

  app.get<{ Querystring: { q?: string; protocol?: string; limit?: number } }>(
    '/stats/agents',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            q: { type: 'string', maxLength: 200 },
            protocol: PROTOCOL,
            limit: { type: 'integer', minimum: 1, maximum: AGENT_SEARCH_MAX },
          },
        },
      },
    },
    async (req) => {
      const cv = await currentCheckerVersion(warehouse);
      const found = await searchAgents(warehouse, cv, { q: req.query.q?.trim() ?? '', protocol: req.query.protocol ?? null, limit: req.query.limit ?? AGENT_SEARCH_DEFAULT });
      return { checkerVersion: cv, ...found };
    },
  );
};
