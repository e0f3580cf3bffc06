/**
 * A warehouse filled for the API tests (stats and dashboard): agents (one with a hostile
 * name, one hidden, one unchecked, one inactive), a complete daily run and one in progress,
 * checks and verdicts under the current checker and an older one, and the derived tables
 * recomputed from them as the verdict processor would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import { agentId } from '../../src/identity/agent-key.js';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';
import { refreshAgentDailyHistory, refreshAgentLatest, refreshDailyRollups } from '../../src/warehouse/rollups.js';
import { checkRow, DAY_MS, verdictRow } from '../helpers/warehouse-rows.js';

export const NOW = Date.now();
const HOUR = 3_600_000;
export const OLD_CHECKER = 'VeronikAI/0.0+attestations.9';

export const HOSTILE_NAME = `<img src=x onerror=alert(1)>"'&<script>alert("x")</script>`;

export const AGENTS = {
  alpha: { key: 'https://mcp.alpha-tools.dev/mcp', name: 'Alpha MCP', protocol: 'mcp', sources: ['mcp-registry', 'smithery'] },
  beta: { key: 'https://beta.agents-hub.dev', name: 'Beta Agent', protocol: 'a2a', sources: ['a2a-registry'] },
  hostile: { key: 'https://evil.example-host.dev/mcp', name: HOSTILE_NAME, protocol: 'mcp', sources: ['smithery'] },
  hidden: { key: 'https://hidden.owner-asked.dev/mcp', name: 'Hidden One', protocol: 'mcp', sources: ['mcp-registry'], optOut: 'hidden' },
  unchecked: { key: 'https://quiet.owner-asked.dev/mcp', name: 'Quiet Server', protocol: 'mcp', sources: ['mcp-registry'], optOut: 'unchecked' },
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
  const dir = mkdtempSync(join(tmpdir(), `veronikai-${label}-`));
  const wh = new EmbeddedWarehouse(dir);
  await migrate(wh);

  await wh.insert(
    'agents',
    Object.values(AGENTS).map((a) => ({
      agent_id: agentId(a.key), agent_key: a.key, protocol: a.protocol, name: a.name, description: '',
      endpoint_url: a.protocol === 'mcp' ? a.key : '', card_url: a.protocol === 'a2a' ? `${a.key}/.well-known/agent-card.json` : '',
      sources: a.sources, source_first_seen: {}, first_seen: new Date(NOW - 30 * DAY_MS), last_seen: new Date(NOW - HOUR),
      active: 'active' in a ? a.active : 1, inactive_since: 'active' in a ? new Date(NOW - DAY_MS) : null, has_server_json: 0,
      opt_out: 'optOut' in a ? a.optOut : '', opt_out_reason: '', version: NOW,
    })),
  );

  await wh.insert(
    'checks',
    [CHECKER_VERSION, OLD_CHECKER].flatMap((checker) => EVENTS.filter((e) => checker === CHECKER_VERSION || e.agent === 'alpha').map((e) => ({
      ...checkRow({ id: e.id, checker, agent: AGENTS[e.agent].key, at: new Date(e.at), uptime: e.uptime, inSample: e.inSample, protocol: AGENTS[e.agent].protocol, source: AGENTS[e.agent].sources[0] ?? '', latency: e.uptime === 'up' ? 120 : null }),
      agent_id: idOf(e.agent),
      run_id: e.run,
    }))),
  );
  await wh.insert('verdicts', [
    ...EVENTS.map((e) => ({ ...verdictRow({ id: e.id, agent: AGENTS[e.agent].key, at: new Date(e.at), checker: CHECKER_VERSION, result: e.result, inSample: e.inSample, protocol: AGENTS[e.agent].protocol }), judged_at: new Date(NOW) })),
    // the older checker judged alpha's probes differently, and longer ago
    ...EVENTS.filter((e) => e.agent === 'alpha').map((e) => ({ ...verdictRow({ id: e.id, agent: AGENTS.alpha.key, at: new Date(e.at), checker: OLD_CHECKER, result: 'fail', inSample: e.inSample }), judged_at: new Date(NOW - 10 * DAY_MS) })),
  ]);

  const run = (runId: string, phase: 'start' | 'finish', kind: string, at: number, counts: Record<string, number>) => ({
    run_id: runId, phase, kind, observed_at: new Date(at), event_id: `${runId}-${phase}`, budget: 100, sample_size: counts.sample ?? null,
    seed: 'seed-1', counts, complete: phase === 'finish' ? 1 : 0, note: '',
  });
  await wh.insert('runs', [
    run('run-complete', 'start', 'daily', T.completeStart, { sample: 4 }),
    run('run-complete', 'finish', 'daily', T.completeFinish, { sample: 4, planned: 4 }),
    run('run-progress', 'start', 'daily', T.progressStart, { sample: 10 }),
    // a newer run of another kind is not a daily run
    run('crawl-newest', 'start', 'crawl', NOW - 60_000, {}),
  ]);

  await refreshDailyRollups(wh);
  await refreshAgentDailyHistory(wh);
  await refreshAgentLatest(wh);
  return {
    wh,
    close: async () => {
      await wh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** 'YYYY-MM-DD HH:MM:SS.mmm' → ISO, as the API gives times. */
export const iso = (ms: number) => new Date(ms).toISOString();
