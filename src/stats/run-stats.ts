import { agentActivityTotals, latestStateTotals, type LatestStateTotalsRow } from '../warehouse/read/census.js';
import { runPhases, runSampleCounts, type SampleCountsRow } from '../warehouse/read/runs.js';
import { fromDateTime64 } from '../warehouse/time.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { wilson, type Proportion } from './wilson.js';

/**
 * Ecosystem statistics (Methods §5): the share of agents up and the share passing
 * conformance come from one run's uniform random sample only, with 95% Wilson
 * intervals (up / (up + down); pass / (pass + fail); unknown, skipped and n/a are
 * reported beside, never folded in). A run without its finish event is reported as
 * in progress, with the counts so far, and never as the whole index. Census totals
 * of every agent's latest state are a separate figure.
 */

export interface RunStats {
  runId: string;
  /** complete: finished with every probe judged; incomplete: finished early (its counts are partial); in progress: no finish yet. */
  status: 'complete' | 'incomplete' | 'in progress' | 'unknown run';
  startedAt: string | null;
  finishedAt: string | null;
  seed: string | null;
  planned: number | null;
  checkerVersion: string;
  sample: {
    checks: number;
    up: Proportion;
    pass: Proportion;
    unknown: number;
    skipped: number;
    notApplicable: number;
    unknownVerdict: number;
  };
  note: string;
}

export async function runStats(warehouse: ReadOnlyWarehouse, runId: string, checkerVersion: string): Promise<RunStats> {
  const phases = await runPhases(warehouse, runId);
  const start = phases.find((p) => p.phase === 'start');
  const finish = phases.find((p) => p.phase === 'finish');
  // Probes of a run are observed after its start: the bound prunes older monthly partitions.
  const c = await runSampleCounts(warehouse, runId, checkerVersion, start ? new Date(fromDateTime64(start.observed_at)) : new Date(0));
  const n = (k: keyof SampleCountsRow) => Number(c?.[k] ?? 0);
  const planned = start?.counts?.sample !== undefined ? Number(start.counts.sample) : null;
  const status = finish ? (Number(finish.complete) === 1 ? 'complete' : 'incomplete') : start ? 'in progress' : 'unknown run';
  return {
    runId,
    status,
    startedAt: start?.observed_at ?? null,
    finishedAt: finish?.observed_at ?? null,
    seed: start?.seed || null,
    planned,
    checkerVersion,
    sample: {
      checks: n('checks'),
      up: wilson(n('up'), n('up') + n('down')),
      pass: wilson(n('pass'), n('pass') + n('fail')),
      unknown: n('unknown'),
      skipped: n('skipped'),
      notApplicable: n('na'),
      unknownVerdict: n('unknown_verdict'),
    },
    note:
      status === 'complete'
        ? "Shares come from this run's uniform random sample; intervals are 95% Wilson score intervals."
        : status === 'incomplete'
          ? `This run ended before every probe was judged (${finish?.note || 'no reason recorded'}): ${n('checks')} of ${planned ?? '?'} sampled checks are in. These are partial figures, not the whole index.`
          : `This run is still in progress: ${n('checks')} of ${planned ?? '?'} sampled checks are in. These are partial figures, not the whole index.`,
  };
}

export interface Census {
  checkerVersion: string;
  agents: { active: number; inactive: number };
  latest: {
    up: number;
    down: number;
    unknown: number;
    skipped: number;
    pass: number;
    fail: number;
    unknownVerdict: number;
    notApplicable: number;
    neverChecked: number;
  };
}

/** The census's latest-state counts from a totals row (stored or counted); a missing row counts nothing. */
export function latestCounts(row: Partial<Record<keyof LatestStateTotalsRow, unknown>> | null | undefined): Census['latest'] {
  const n = (k: keyof LatestStateTotalsRow) => Number(row?.[k] ?? 0);
  return {
    up: n('up'),
    down: n('down'),
    unknown: n('unknown'),
    skipped: n('skipped'),
    pass: n('pass'),
    fail: n('fail'),
    unknownVerdict: n('unknown_verdict'),
    notApplicable: n('na'),
    neverChecked: n('never'),
  };
}

/** Totals of each active agent's latest state (a census, not a sample estimate). */
export async function census(warehouse: ReadOnlyWarehouse, checkerVersion: string): Promise<Census> {
  const agents = await agentActivityTotals(warehouse);
  const l = await latestStateTotals(warehouse, checkerVersion);
  return { checkerVersion, agents, latest: latestCounts(l) };
}
