import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { DAY_MS, writeJudged, type JudgedProbeSpec } from '../helpers/warehouse-rows.js';

// agent_latest has one writer, the verdict processor's (src/processors/verdicts/processor.ts):
// one row per judged probe, and ReplacingMergeTree(observed_at) keeps the newest per
// (checker version, agent). So redelivery changes nothing, and an older event written
// late never replaces a newer one.

describe('agent_latest through the verdict writer (embedded)', () => {
  let t: TestWarehouse;
  beforeEach(async () => {
    t = await withWarehouse('wh-agent-latest');
  });
  afterEach(async () => {
    await t?.close();
  });

  const now = Date.now();
  const probes: JudgedProbeSpec[] = [0, 1, 2, 3, 4, 5].map((i) => ({
    id: `e-${i}`,
    agent: `https://agent-${i % 3}.example/mcp`,
    at: new Date(now - (i + 1) * 3_600_000),
    uptime: i % 2 === 0 ? 'up' : 'down',
    result: i % 2 === 0 ? 'pass' : 'fail',
  }));
  const latest = () =>
    t.wh.query<{ checker_version: string; agent_key: string; event_id: string; uptime: string; result: string }>(
      'SELECT checker_version, agent_key, event_id, uptime, result FROM agent_latest FINAL ORDER BY checker_version, agent_key',
    );

  it("keeps each agent's newest probe, per checker version", async () => {
    await writeJudged(t.wh, probes);
    await writeJudged(t.wh, probes.slice(0, 2), '2.0.0');
    expect(await latest()).toEqual([
      { checker_version: '1.0.0', agent_key: 'https://agent-0.example/mcp', event_id: 'e-0', uptime: 'up', result: 'pass' },
      { checker_version: '1.0.0', agent_key: 'https://agent-1.example/mcp', event_id: 'e-1', uptime: 'down', result: 'fail' },
      { checker_version: '1.0.0', agent_key: 'https://agent-2.example/mcp', event_id: 'e-2', uptime: 'up', result: 'pass' },
      { checker_version: '2.0.0', agent_key: 'https://agent-0.example/mcp', event_id: 'e-0', uptime: 'up', result: 'pass' },
      { checker_version: '2.0.0', agent_key: 'https://agent-1.example/mcp', event_id: 'e-1', uptime: 'down', result: 'fail' },
    ]);
  });

  it('is unchanged by redelivery, in any order, before and after merges', async () => {
    await writeJudged(t.wh, probes);
    const before = await latest();
    await writeJudged(t.wh, [...probes].reverse());
    for (const p of probes) await writeJudged(t.wh, [p]);
    expect(await latest()).toEqual(before);
    await t.wh.exec('OPTIMIZE TABLE agent_latest FINAL');
    expect(await latest()).toEqual(before);
    expect(await t.wh.query('SELECT toUInt32(count()) AS n FROM agent_latest')).toEqual([{ n: 3 }]);
  });

  it('an older event written late never replaces the newest', async () => {
    await writeJudged(t.wh, probes);
    const old: JudgedProbeSpec = {
      id: 'late-old',
      agent: probes[0]!.agent,
      at: new Date(now - 30 * DAY_MS),
      uptime: 'down',
      result: 'fail',
    };
    for (let i = 0; i < 3; i++) await writeJudged(t.wh, [old]);
    const [row] = await t.wh.query<{ event_id: string }>('SELECT event_id FROM agent_latest FINAL WHERE agent_key = {k:String}', {
      k: old.agent,
    });
    expect(row?.event_id).toBe('e-0');
    // A newer one does replace it.
    const newer: JudgedProbeSpec = { ...old, id: 'newer', at: new Date(now - 60_000) };
    await writeJudged(t.wh, [newer]);
    const [after] = await t.wh.query<{ event_id: string }>('SELECT event_id FROM agent_latest FINAL WHERE agent_key = {k:String}', {
      k: old.agent,
    });
    expect(after?.event_id).toBe('newer');
  });
});
