import { afterEach, describe, expect, it, vi } from 'vitest';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import { censusTotals } from '../../src/warehouse/read/census.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow, DAY_MS, probeEventFor, scriptedChecker, type JudgedProbeSpec, type RowOverrides } from '../helpers/warehouse-rows.js';
import { TEST_SIGNING_KEY } from '../helpers/signing.js';

/**
 * The stored census (census_totals, clickhouse/0024) that /stats/census and the dashboard read
 * (issue 16) stays current: a batch written within the recount interval of the last count is
 * counted once the interval has passed, with no batch after it (the end of a run), and agents
 * that change with no probe (new, delisted, hidden: Methods §9) are counted, or dropped, as soon.
 */

const NOW = Date.now();
const CV = 'census-1';
let version = NOW;

/** An agent written after the ones before it (a newer version), first seen a day ago. */
const agent = (key: string, extra: RowOverrides<'agents'> = {}) =>
  agentRow({ agent_key: key, first_seen: new Date(NOW - DAY_MS), last_seen: new Date(NOW), version: ++version, ...extra });

const A = 'https://a.example/mcp';
const B = 'https://b.example/mcp';
const C = 'https://c.example/mcp';
const D = 'https://d.example/mcp';

describe('the census the verdict writer keeps', () => {
  let t: TestWarehouse | undefined;
  let stop: (() => void) | undefined;
  afterEach(async () => {
    stop?.();
    await t?.close();
  });

  it('is recounted after a batch that came too soon after the last count, and when agents change with no batch', async () => {
    t = await withWarehouse('verdicts-census');
    const wh = t.wh;
    await wh.insert('agents', [agent(A), agent(B), agent(C)]);
    const probes: JudgedProbeSpec[] = [
      { id: 'p-a', agent: A, at: new Date(NOW - 120_000), uptime: 'up', result: 'pass' },
      { id: 'p-b', agent: B, at: new Date(NOW - 60_000), uptime: 'down', result: 'fail' },
    ];
    const writer = new VerdictWriter(wh, scriptedChecker(CV, probes), TEST_SIGNING_KEY);
    const census = async () => {
      const c = await censusTotals(wh, CV);
      return (
        c && { active: Number(c.active), inactive: Number(c.inactive), up: Number(c.up), down: Number(c.down), never: Number(c.never) }
      );
    };

    // The first batch is counted at once; the second, a moment later, is not yet (one count a minute).
    await writer.write([probeEventFor(probes[0]!)]);
    expect(await census()).toEqual({ active: 3, inactive: 0, up: 1, down: 0, never: 2 });
    await writer.write([probeEventFor(probes[1]!)]);
    expect(await census()).toMatchObject({ up: 1, down: 0 });

    // No batch follows (the run is over): the writer counts it once the interval has passed.
    stop = writer.keepCensusCurrent(100, (err) => {
      throw err;
    });
    await vi.waitFor(async () => expect(await census()).toEqual({ active: 3, inactive: 0, up: 1, down: 1, never: 1 }), {
      timeout: 10_000,
      interval: 50,
    });

    // The listings processor hides one agent, delists another and adds a new one; no probe follows.
    await wh.insert('agents', [agent(A, { opt_out: 'hidden' }), agent(C, { active: 0, inactive_since: new Date(NOW) }), agent(D)]);
    await vi.waitFor(async () => expect(await census()).toEqual({ active: 2, inactive: 1, up: 0, down: 1, never: 1 }), {
      timeout: 10_000,
      interval: 50,
    });
  }, 30_000);
});
