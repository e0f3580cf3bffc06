/**
 * A warehouse filled for the API tests (stats and dashboard): agents (one with a hostile
 * name, one hidden, one unchecked, one inactive), a complete daily run and one in progress,
 * probes judged under the current checker and an older one by the verdict processor's own
 * writer (checks, verdicts, agent_latest and the rollups it recomputes).
 */
import { afterAll, beforeAll } from 'vitest';
import { indexAgents } from '../../src/warehouse/search/index-writer.js';
import { buildApi } from '../../src/api/server.js';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import { agentId } from '../../src/identity/agent-key.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { withWarehouse } from '../helpers/warehouse.js';
import { agentRow, DAY_MS, listingHistoryRow, runRow, writeJudged, type JudgedProbeSpec } from '../helpers/warehouse-rows.js';

export const NOW = Date.now();
const HOUR = 3_600_000;
export const OLD_CHECKER = 'VeronikAI/0.0+attestations.9';

export const HOSTILE_NAME = `<img src=x onerror=alert(1)>"'&<script>alert("x")</script>`;

export const AGENTS = {
  alpha: { key: 'https://mcp.alpha-tools.dev/mcp', name: 'Alpha MCP', protocol: 'mcp', sources: ['mcp-registry', 'smithery'] },
  beta: { key: 'https://beta.agents-hub.dev', name: 'Beta Agent', protocol: 'a2a', sources: ['a2a-registry'] },
  hostile: { key: 'https://evil.example-host.dev/mcp', name: HOSTILE_NAME, protocol: 'mcp', sources: ['smithery'] },
  hidden: { key: 'https://hidden.owner-asked.dev/mcp', name: 'Hidden One', protocol: 'mcp', sources: ['mcp-registry'], optOut: 'hidden' },
  unchecked: {
    key: 'https://quiet.owner-asked.dev/mcp',
    name: 'Quiet Server',
    protocol: 'mcp',
    sources: ['mcp-registry'],
    optOut: 'unchecked',
  },
  gone: { key: 'https://gone.delisted.dev/mcp', name: 'Gone Server', protocol: 'mcp', sources: [] as string[], active: 0 },
} as const;
export type AgentName = keyof typeof AGENTS;
export const idOf = (a: AgentName) => agentId(AGENTS[a].key);

/** Times of the events (ms). */
export const T = {
  completeStart: NOW - 2 * DAY_MS - HOUR,
  completeChecks: NOW - 2 * DAY_MS - HOUR / 2,
  completeFinish: NOW - 2 * DAY_MS,
  progressStart: NOW - HOUR,
  p1: NOW - 30 * 60_000,
  p2: NOW - 20 * 60_000,
  older: NOW - 5 * DAY_MS,
};

interface Event {
  id: string;
  agent: AgentName;
  at: number;
  uptime: 'up' | 'down';
  result: 'pass' | 'fail' | 'unknown';
  run: string;
  inSample: boolean;
}

export const EVENTS: Event[] = [
  // the complete run's sample: 3 of 4 up; 2 of 3 judged pass (one unknown)
  { id: 'c1', agent: 'alpha', at: T.completeChecks, uptime: 'up', result: 'pass', run: 'run-complete', inSample: true },
  { id: 'c2', agent: 'beta', at: T.completeChecks, uptime: 'down', result: 'unknown', run: 'run-complete', inSample: true },
  { id: 'c3', agent: 'hostile', at: T.completeChecks, uptime: 'up', result: 'fail', run: 'run-complete', inSample: true },
  { id: 'c4', agent: 'hidden', at: T.completeChecks, uptime: 'up', result: 'pass', run: 'run-complete', inSample: true },
  // the run in progress: 2 of its 10 planned sample checks so far
  { id: 'p1', agent: 'alpha', at: T.p1, uptime: 'up', result: 'pass', run: 'run-progress', inSample: true },
  { id: 'p2', agent: 'beta', at: T.p2, uptime: 'down', result: 'unknown', run: 'run-progress', inSample: true },
  // an older check outside any sample
  { id: 'o1', agent: 'alpha', at: T.older, uptime: 'down', result: 'unknown', run: 'run-old', inSample: false },
];

export async function openFilledWarehouse(label: string): Promise<{ wh: EmbeddedWarehouse; close: () => Promise<void> }> {
  const { wh, close } = await withWarehouse(label);

  await wh.insert(
    'agents',
    Object.values(AGENTS).map((a) =>
      agentRow({
        agent_key: a.key,
        protocol: a.protocol,
        name: a.name,
        endpoint_url: a.protocol === 'mcp' ? a.key : '',
        card_url: a.protocol === 'a2a' ? `${a.key}/.well-known/agent-card.json` : '',
        sources: [...a.sources],
        first_seen: new Date(NOW - 30 * DAY_MS),
        last_seen: new Date(NOW - HOUR),
        active: 'active' in a ? a.active : 1,
        inactive_since: 'active' in a ? new Date(NOW - DAY_MS) : null,
        opt_out: 'optOut' in a ? a.optOut : '',
        version: NOW,
      }),
    ),
  );
  // The search index, as the listings' processor writes it after the agents rows.
  await indexAgents(
    wh,
    Object.values(AGENTS).map((a) => a.key),
  );

  // Probes judged by the verdict processor's writer (checks, verdicts, agent_latest, rollups), each
  // attributed to its agent's first source through the listing history, as in a live run.
  await wh.insert(
    'listing_history',
    Object.values(AGENTS).flatMap((a) =>
      a.sources.length > 0 ? [listingHistoryRow(a.key, a.sources[0]!, new Date(NOW - 30 * DAY_MS))] : [],
    ),
  );
  const judged = (e: Event, result: Event['result']): JudgedProbeSpec => ({
    id: e.id,
    agent: AGENTS[e.agent].key,
    at: new Date(e.at),
    protocol: AGENTS[e.agent].protocol,
    uptime: e.uptime,
    result,
    inSample: e.inSample,
    runId: e.run,
  });
  // The older checker judged alpha's probes differently, and before the current one (so the
  // current version is the most recently judged one the views show).
  await writeJudged(
    wh,
    EVENTS.filter((e) => e.agent === 'alpha').map((e) => judged(e, 'fail')),
    OLD_CHECKER,
  );
  await writeJudged(
    wh,
    EVENTS.map((e) => judged(e, e.result)),
    CHECKER_VERSION,
  );

  const run = (runId: string, phase: 'start' | 'finish', kind: string, at: number, counts: Record<string, number>) =>
    runRow({
      run_id: runId,
      phase,
      kind,
      observed_at: new Date(at),
      event_id: `${runId}-${phase}`,
      budget: 100,
      sample_size: counts.sample ?? null,
      seed: 'seed-1',
      counts,
      complete: phase === 'finish' ? 1 : 0,
      note: '',
    });
  await wh.insert('runs', [
    run('run-complete', 'start', 'daily', T.completeStart, { sample: 4 }),
    run('run-complete', 'finish', 'daily', T.completeFinish, { sample: 4, planned: 4 }),
    run('run-progress', 'start', 'daily', T.progressStart, { sample: 10 }),
    // a newer run of another kind is not a daily run
    run('crawl-newest', 'start', 'crawl', NOW - 60_000, {}),
  ]);

  return { wh, close };
}

/** 'YYYY-MM-DD HH:MM:SS.mmm' → ISO, as the API gives times. */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The read API over the filled warehouse, for one describe block: built before its tests,
 * closed after. `get` answers with the status, the headers and the parsed JSON body, typed as
 * the caller names it (the route's response type, e.g. AgentResponse; unknown when not named).
 */
export function useFilledApi(label: string): {
  get<T = unknown>(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: T }>;
  app(): ReturnType<typeof buildApi>;
} {
  let app: ReturnType<typeof buildApi> | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const filled = await openFilledWarehouse(label);
    close = filled.close;
    app = buildApi({ warehouse: filled.wh });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });
  return {
    app: () => app!,
    async get<T = unknown>(url: string) {
      const res = await app!.inject({ method: 'GET', url });
      return { status: res.statusCode, headers: res.headers, body: res.json() as T };
    },
  };
}
