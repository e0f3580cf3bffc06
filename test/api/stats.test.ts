import { describe, expect, it } from 'vitest';
import type { AgentResponse, AgentSearchResponse, CensusResponse, DailyResponse, RunStatsResponse } from '../../src/api/responses.js';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import { wilson } from '../../src/stats/wilson.js';
import { AGENTS, EVENTS, idOf, iso, useFilledApi, T } from './fixture.js';

/** The events of agents the API may count: a hidden agent's (c4, up and pass in the complete run) never are. */
const SHOWN_EVENTS = EVENTS.filter((e) => e.agent !== 'hidden');

/**
 * The statistics API and the agent page's status on the chdb engine: sample figures with
 * Wilson intervals for a complete run and one in progress (which says so), the census kept
 * apart, daily rows of the current checker version, the agent search, and an agent page
 * with its latest check and verdict, last check time and uptime windows. Hidden agents stay hidden.
 */

describe('statistics API', () => {
  const api = useFilledApi('api-stats');
  const get = api.get;

  it('reports a complete run from its sample, with 95% Wilson intervals', async () => {
    const { status, body } = await get<RunStatsResponse>('/stats/runs/run-complete');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      runId: 'run-complete',
      status: 'complete',
      partial: false,
      kind: 'sample estimate',
      checkerVersion: CHECKER_VERSION,
      startedAt: iso(T.completeStart),
      finishedAt: iso(T.completeFinish),
      planned: 4,
    });
    // alpha up/pass, beta down/unknown, hostile up/fail; the hidden agent's sampled check is not counted
    expect(body.sample).toEqual({
      checks: 3,
      up: wilson(2, 3),
      pass: wilson(1, 2),
      unknown: 0,
      skipped: 0,
      notApplicable: 0,
      unknownVerdict: 1,
    });
    expect(body.sample.up.low).toBeGreaterThan(0.2);
    expect(body.sample.up.high).toBeLessThan(1);
    expect(body.note).toMatch(/uniform random sample.*Wilson/);
  });

  it('says a run is in progress and never presents its counts as the whole index', async () => {
    const { body } = await get<RunStatsResponse>('/stats/runs/run-progress');
    expect(body).toMatchObject({ runId: 'run-progress', status: 'in progress', partial: true, finishedAt: null, planned: 10 });
    expect(body.sample).toMatchObject({ checks: 2, up: wilson(1, 2), pass: wilson(1, 1) });
    expect(body.note).toMatch(/in progress: 2 of 10 sampled checks.*not the whole index/);
  });

  it('serves the newest daily run as the latest (not a newer run of another kind), naming the last complete one', async () => {
    const { status, body } = await get('/stats/runs/latest');
    expect(status).toBe(200);
    expect(body).toMatchObject({ runId: 'run-progress', status: 'in progress', partial: true, latestCompleteRunId: 'run-complete' });
  });

  it('answers 404 for an unknown run and 400 for a malformed run id', async () => {
    expect((await get('/stats/runs/no-such-run')).status).toBe(404);
    expect((await api.app().inject({ method: 'GET', url: '/stats/runs/bad%20id' })).statusCode).toBe(400);
  });

  it('labels the census as a census of latest states, apart from sample estimates', async () => {
    const { status, body } = await get<CensusResponse>('/stats/census');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      kind: 'census',
      checkerVersion: CHECKER_VERSION,
      // the hidden agent is not counted anywhere: not as active, not by its latest state
      agents: { active: 4, inactive: 1 },
      // alpha up/pass (its newest probe), beta down/unknown, hostile up/fail; the unchecked one never checked
      latest: { up: 2, down: 1, unknown: 0, skipped: 0, pass: 1, fail: 1, unknownVerdict: 1, notApplicable: 0, neverChecked: 1 },
      asOf: iso(T.p2),
    });
    expect(body.note).toMatch(/census.*not a sample estimate/);
  });

  it('serves daily rollups of the current checker version with sample intervals, per source and per day', async () => {
    const { status, body } = await get<DailyResponse>('/stats/daily?days=30');
    expect(status).toBe(200);
    expect(body).toMatchObject({ checkerVersion: CHECKER_VERSION, days: 30, protocol: null });
    // Every check of the current version counted once, a hidden agent's never; the older checker's rows are not in it.
    const rowChecks = body.rows.reduce((n: number, r: { checks: number }) => n + r.checks, 0);
    expect(rowChecks).toBe(SHOWN_EVENTS.length);
    expect(body.totals.reduce((n: number, t: { checks: number }) => n + t.checks, 0)).toBe(SHOWN_EVENTS.length);
    const completeDay = iso(T.completeChecks).slice(0, 10);
    const day = body.totals.find((t: { day: string }) => t.day === completeDay);
    expect(day).toMatchObject({ checks: 3, up: 2, down: 1, pass: 1, fail: 1, unknownVerdict: 1, uptime: 2 / 3 });
    expect(day!.sample).toEqual({ checks: 3, up: wilson(2, 3), pass: wilson(1, 2) });
    // The row the hidden agent's check was rolled up in (mcp, mcp-registry: alpha's and its) keeps alpha's alone,
    // with its rates and intervals recomputed.
    const sharedRow = body.rows.find((r: { day: string; source: string }) => r.day === completeDay && r.source === 'mcp-registry');
    expect(sharedRow).toMatchObject({
      protocol: 'mcp',
      checks: 1,
      up: 1,
      down: 0,
      pass: 1,
      fail: 0,
      uptime: 1,
      passRate: 1,
      sampleChecks: 1,
      sampleUp: 1,
      sampleDown: 0,
      samplePass: 1,
      sampleFail: 0,
      sampleUptime: 1,
      samplePassRate: 1,
    });
    expect(sharedRow!.sampleUptimeLow).toBeCloseTo(wilson(1, 1).low!, 9);
    expect(sharedRow!.samplePassRateLow).toBeCloseTo(wilson(1, 1).low!, 9);
    expect(sharedRow!.sampleUptimeHigh).toBeCloseTo(1, 9);
    // The view's own Wilson bounds for one source agree with the code's formula.
    const smitheryRow = body.rows.find((r: { day: string; source: string }) => r.day === completeDay && r.source === 'smithery');
    expect(smitheryRow).toMatchObject({ checks: 1, sampleUp: 1, sampleDown: 0 });
    expect(smitheryRow!.sampleUptimeLow).toBeCloseTo(wilson(1, 1).low!, 9);
    // newest day first
    expect([...body.totals.map((t: { day: string }) => t.day)]).toEqual(
      [...body.totals.map((t: { day: string }) => t.day)].sort().reverse(),
    );

    const a2a = await get<DailyResponse>('/stats/daily?days=30&protocol=a2a');
    expect(a2a.body.rows.every((r: { protocol: string }) => r.protocol === 'a2a')).toBe(true);
    expect(a2a.body.rows.reduce((n: number, r: { checks: number }) => n + r.checks, 0)).toBe(2);

    const short = await get<DailyResponse>('/stats/daily?days=1');
    expect(short.body.rows.every((r: { day: string }) => r.day >= iso(Date.now()).slice(0, 10))).toBe(true);
  });

  it('validates the daily querystring', async () => {
    for (const q of ['days=0', 'days=401', 'days=x', 'protocol=smtp']) {
      expect((await api.app().inject({ method: 'GET', url: `/stats/daily?${q}` })).statusCode, q).toBe(400);
    }
  });

  it("shows an agent's latest check and verdict, the time of its last check and its uptime windows", async () => {
    const { status, body } = await get<AgentResponse>(`/agents/${idOf('alpha')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: idOf('alpha'), name: 'Alpha MCP', checkerVersion: CHECKER_VERSION, lastCheckedAt: iso(T.p1) });
    expect(body.listings).toEqual([]);
    expect(body.latestCheck).toMatchObject({
      at: iso(T.p1),
      eventId: 'p1',
      uptime: 'up',
      httpStatus: 200,
      latencyMs: 120,
      inSample: true,
      ourSide: false,
    });
    // the current checker's verdict, not the older checker's 'fail'
    expect(body.latestVerdict).toMatchObject({ checkerVersion: CHECKER_VERSION, result: 'pass', reasons: [] });
    expect(body.uptime['24h']).toMatchObject({ uptime: 1, checks: 1, latencyP50Ms: 120 });
    for (const w of ['7d', '30d', '90d'] as const) expect(body.uptime[w], w).toMatchObject({ uptime: 2 / 3, checks: 3 });
  });

  it('shows an agent that was never checked as such', async () => {
    const { status, body } = await get<AgentResponse>(`/agents/${idOf('unchecked')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ lastCheckedAt: null, latestCheck: null, latestVerdict: null });
    expect(body.uptime['30d']).toEqual({ uptime: null, checks: 0, latencyP50Ms: null, latencyP95Ms: null });
  });

  it('keeps hidden agents hidden: no agent page, not in the search', async () => {
    expect((await get(`/agents/${idOf('hidden')}`)).status).toBe(404);
    const { body } = await get<AgentSearchResponse>('/stats/agents?limit=500');
    const names = body.agents.map((a: { name: string }) => a.name);
    expect(names).not.toContain('Hidden One');
    expect(names).not.toContain('Gone Server'); // inactive
    expect(names).toEqual(
      ['Alpha MCP', 'Beta Agent', 'Quiet Server', AGENTS.hostile.name].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    expect((await get<AgentSearchResponse>('/stats/agents?q=hidden')).body.agents).toEqual([]);
  });

  it('searches agents by name or URL, case-insensitively, with their latest state', async () => {
    const { body } = await get<AgentSearchResponse>('/stats/agents?q=ALPHA');
    expect(body).toMatchObject({ checkerVersion: CHECKER_VERSION, more: false });
    expect(body.agents).toEqual([
      {
        id: idOf('alpha'),
        name: 'Alpha MCP',
        protocol: 'mcp',
        sources: ['mcp-registry', 'smithery'],
        optOut: '',
        lastCheckedAt: iso(T.p1),
        uptime: 'up',
        result: 'pass',
        uptime7d: 2 / 3,
        uptime30d: 2 / 3,
      },
    ]);
    expect((await get<AgentSearchResponse>('/stats/agents?q=agents-hub.dev')).body.agents.map((a: { name: string }) => a.name)).toEqual([
      'Beta Agent',
    ]);
    const quiet = (await get<AgentSearchResponse>('/stats/agents?q=quiet')).body.agents[0];
    expect(quiet).toMatchObject({ optOut: 'unchecked', lastCheckedAt: null, uptime: null, result: null, uptime7d: null });
    const page = await get<AgentSearchResponse>('/stats/agents?limit=1');
    expect(page.body).toMatchObject({ more: true, nextCursor: expect.any(String) });
    expect(page.body.agents).toHaveLength(1);
    // Following nextCursor walks the whole list, one agent a page, in the same order.
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof get<AgentSearchResponse>>> = await get<AgentSearchResponse>(
        `/stats/agents?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      walked.push(...res.body.agents.map((a: { name: string }) => a.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual((await get<AgentSearchResponse>('/stats/agents')).body.agents.map((a: { name: string }) => a.name));
    expect((await get('/stats/agents?cursor=not-a-cursor')).status).toBe(400);
    expect((await api.app().inject({ method: 'GET', url: '/stats/agents?limit=0' })).statusCode).toBe(400);
  });
});
