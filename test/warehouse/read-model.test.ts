import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentListPage, searchWords, type AgentListCursor } from '../../src/warehouse/read/search.js';
import { agentStatusRows } from '../../src/warehouse/read/status.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow, DAY_MS, writeJudged, type JudgedProbeSpec, type RowOverrides } from '../helpers/warehouse-rows.js';

/**
 * The API's read model (issue 16): the search postings and the natural sort key, filled by
 * materialized views from every insert into agents; agent_status, written by the verdict
 * processor's rollup step and read as v_agent_uptime__v3.
 */

const NOW = Date.now();
let version = NOW;

/** An agent written after the ones before it (a newer version), first seen a day ago. */
const agent = (key: string, name: string, extra: RowOverrides<'agents'> = {}) =>
  agentRow({ agent_key: key, name, first_seen: new Date(NOW - DAY_MS), last_seen: new Date(NOW), version: ++version, ...extra });

/** Every page of a list or search, two at a time, following the cursor. */
async function allPages(t: TestWarehouse, q: string, protocol: string | null = null): Promise<string[]> {
  const names: string[] = [];
  let after: AgentListCursor | null = null;
  for (let i = 0; i < 20; i++) {
    const page: Awaited<ReturnType<typeof agentListPage>> = await agentListPage(t.wh, { words: searchWords(q), protocol, after, limit: 2 });
    names.push(...page.rows.map((r) => r.name));
    if (!page.next) return names;
    after = page.next;
  }
  throw new Error('too many pages');
}

describe('agent list and search (postings in natural sort order)', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('read-model-search');
    await t.wh.insert('agents', [
      agent('https://ten.example/mcp', 'Agent 10'),
      agent('https://two.example/mcp', 'Agent 2'),
      agent('https://one.example/mcp', 'agent 1'),
      agent('https://beta.example/mcp', 'Beta', { description: 'Forecasts the weather for teams' }),
      agent('https://old.example/mcp', 'Agent 3', { active: 0, inactive_since: new Date(NOW) }),
      agent('https://hide.example/mcp', 'Agent 4', { opt_out: 'hidden' }),
      agent('https://a2a.example', 'Agent 20', { protocol: 'a2a' }),
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists active, unhidden agents in natural order (Agent 2 before Agent 10), page by page', async () => {
    expect(await allPages(t, '')).toEqual(['agent 1', 'Agent 2', 'Agent 10', 'Agent 20', 'Beta']);
    expect(await allPages(t, '', 'a2a')).toEqual(['Agent 20']);
  });

  it('finds agents by word prefixes of the name and key, and by whole words of the description', async () => {
    expect(await allPages(t, 'AGENT')).toEqual(['agent 1', 'Agent 2', 'Agent 10', 'Agent 20']);
    expect(await allPages(t, 'agent 2')).toEqual(['Agent 2', 'Agent 20']);
    expect(await allPages(t, 'two.example')).toEqual(['Agent 2']);
    expect(await allPages(t, 'weather')).toEqual(['Beta']);
    expect(await allPages(t, 'forecasts teams')).toEqual(['Beta']);
    expect(await allPages(t, 'weath')).toEqual([]); // description words match whole
    expect(await allPages(t, 'agent 4')).toEqual([]); // hidden
    expect(await allPages(t, 'agent 3')).toEqual([]); // inactive
  });

  it('follows renames, delistings and opt-outs: a stale posting is never served', async () => {
    await t.wh.insert('agents', [
      agent('https://ten.example/mcp', 'Zeta 10'),
      agent('https://two.example/mcp', 'Agent 2', { active: 0, inactive_since: new Date(NOW) }),
      agent('https://one.example/mcp', 'agent 1', { opt_out: 'hidden' }),
      agent('https://old.example/mcp', 'Agent 3'),
    ]);
    expect(await allPages(t, '')).toEqual(['Agent 3', 'Agent 20', 'Beta', 'Zeta 10']);
    expect(await allPages(t, 'agent')).toEqual(['Agent 3', 'Agent 20']);
    expect(await allPages(t, 'zet')).toEqual(['Zeta 10']);
  });
});

describe('agent_status and v_agent_uptime__v3', () => {
  let t: TestWarehouse;
  const CV = 'read-model-checker';
  const A = 'https://alpha.example/mcp';
  const B = 'https://beta.example/mcp';
  beforeAll(async () => {
    t = await withWarehouse('read-model-status');
    const probes: JudgedProbeSpec[] = [];
    // Over 40 days: alpha up on most days with varied latency, beta down every third day; both checked in the last hour.
    for (let d = 0; d < 40; d += 3) {
      probes.push({
        id: `a${d}`,
        agent: A,
        at: new Date(NOW - d * DAY_MS - 3_600_000),
        uptime: d % 9 === 0 ? 'down' : 'up',
        latency: 100 + d * 10,
      });
      probes.push({ id: `b${d}`, agent: B, at: new Date(NOW - d * DAY_MS - 7_200_000), uptime: d % 2 === 0 ? 'down' : 'up', latency: 300 });
    }
    probes.push({ id: 'a-now', agent: A, at: new Date(NOW - 60_000), uptime: 'up', latency: 90 });
    // One batch per day, as the daily runs would write them (each refreshes its agents' rows).
    const byDay = new Map<number, JudgedProbeSpec[]>();
    for (const p of probes)
      byDay.set(Math.floor((NOW - p.at.getTime()) / DAY_MS), [...(byDay.get(Math.floor((NOW - p.at.getTime()) / DAY_MS)) ?? []), p]);
    for (const day of [...byDay.keys()].sort((a, b) => b - a)) await writeJudged(t.wh, byDay.get(day)!, CV);
    await t.wh.insert('checker_current', [{ checker_version: CV, set_at: new Date(), note: 'test' }]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('shows the same windows as v_agent_uptime__v2, which aggregates the history per query', async () => {
    const v2 = await t.wh.query('SELECT * FROM v_agent_uptime__v2 ORDER BY agent_key');
    const v3 = await t.wh.query('SELECT * FROM v_agent_uptime__v3 ORDER BY agent_key');
    expect(v2).toHaveLength(2);
    expect(v3).toEqual(v2);
  });

  it('keeps one row per agent and version with the latest state, read by key', async () => {
    const rows = await agentStatusRows(t.wh, [A, B]);
    expect(rows.map((r) => [r.agent_key, r.checker_version, r.latest_uptime])).toEqual(
      expect.arrayContaining([
        [A, CV, 'up'],
        [B, CV, 'down'],
      ]),
    );
    const [a] = await t.wh.query<Record<string, unknown>>('SELECT * FROM v_agent_uptime__v3 WHERE agent_key = {k:String}', { k: A });
    // In the last 24 h: the check of an hour ago (down) and the one a minute ago (up, 90 ms).
    expect(a).toMatchObject({ checks_24h: 2, uptime_24h: 0.5, latency_p50_24h: 90, checks_90d: 15 });
    expect(Number((await t.wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM agent_status FINAL'))[0]!.n)).toBe(2);
  });
});
