import { randomBytes } from 'node:crypto';
import { newEventId } from '../../events/ids.js';
import type { ProbeRequestEvent, RunEvent } from '../../events/types.js';
import { siteOf } from '../../identity/agent-key.js';
import type { Logger } from '../../log.js';
import { fromDateTime64OrNull } from '../../warehouse/time.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import type { OptOutList } from '../../identity/opt-out.js';
import { planRun, SCHEDULE_DEFAULTS, type AgentScheduleState, type Plan } from './plan.js';

/** Where a run's probe requests and run events go (Kafka in production). */
export interface ScheduleSink {
  probeRequests(events: ProbeRequestEvent[]): Promise<void>;
  run(event: RunEvent): Promise<void>;
}

export interface ScheduledAgent extends AgentScheduleState {
  agentId: string;
  protocol: 'a2a' | 'mcp';
  targetUrl: string;
  transport: string | null;
}

const dt = fromDateTime64OrNull;

/**
 * Active agents that may be checked (not opted out, with a URL to check), with the
 * time of their last check under any checker version (agent_latest is never expired)
 * and of the last change of their listed content. The opt-out list, when given, is
 * applied here too, so an owner's opt-out stops probes from the next run on, before
 * any listing of the agent has been processed again.
 */
export async function loadSchedulableAgents(warehouse: Warehouse, optOut?: OptOutList): Promise<ScheduledAgent[]> {
  const rows = await warehouse.query<{
    agent_key: string;
    agent_id: string;
    protocol: 'a2a' | 'mcp';
    endpoint_url: string;
    card_url: string;
    transport: string;
    first_seen: string;
    changed_at: string | null;
    last_checked: string | null;
  }>(
    `SELECT a.agent_key AS agent_key, a.agent_id AS agent_id, a.protocol AS protocol, a.endpoint_url AS endpoint_url,
            a.card_url AS card_url, a.first_seen AS first_seen, a.changed_at AS changed_at,
            if(l.n = 0, NULL, l.last_checked) AS last_checked,
            t.transport AS transport
     FROM (SELECT * FROM agents FINAL WHERE active = 1 AND opt_out = '') AS a
     LEFT JOIN (SELECT agent_key, max(observed_at) AS last_checked, count() AS n FROM agent_latest FINAL GROUP BY agent_key) AS l
       ON l.agent_key = a.agent_key
     LEFT JOIN (SELECT agent_key, anyIf(endpoint_transport, endpoint_transport != '') AS transport
                FROM listings FINAL WHERE tombstoned = 0 GROUP BY agent_key) AS t
       ON t.agent_key = a.agent_key
     ORDER BY a.agent_key`,
  );
  const out: ScheduledAgent[] = [];
  for (const r of rows) {
    if (optOut?.lookup({ agent_key: r.agent_key, endpoint_url: r.endpoint_url, card_url: r.card_url })) continue;
    const targetUrl = r.protocol === 'a2a' ? r.card_url || r.endpoint_url : r.endpoint_url;
    if (!targetUrl) continue;
    out.push({
      agentKey: r.agent_key,
      agentId: r.agent_id,
      protocol: r.protocol,
      targetUrl,
      transport: r.transport || null,
      firstSeen: dt(r.first_seen)!,
      lastChecked: dt(r.last_checked),
      changedAt: dt(r.changed_at),
    });
  }
  return out;
}

export interface ScheduleRunOptions {
  warehouse: Warehouse;
  sink: ScheduleSink;
  log: Logger;
  budget: number;
  sampleSize?: number;
  /** Recorded in the run event; random when not given. */
  seed?: string;
  /** Owners' opt-outs, applied on top of agents.opt_out. */
  optOut?: OptOutList;
  runId?: string;
  now?: () => number;
}

export interface ScheduledRun {
  runId: string;
  seed: string;
  plan: Plan<ScheduledAgent>;
  requests: ProbeRequestEvent[];
}

/** Plans one daily run and emits its probe requests (keyed by site) and the run's start event. */
export async function scheduleRun(opts: ScheduleRunOptions): Promise<ScheduledRun> {
  const now = (opts.now ?? Date.now)();
  const runId = opts.runId ?? newEventId();
  const seed = opts.seed ?? randomBytes(8).toString('hex');
  const sampleSize = opts.sampleSize ?? SCHEDULE_DEFAULTS.sampleSize;
  const agents = await loadSchedulableAgents(opts.warehouse, opts.optOut);
  const plan = planRun(agents, { budget: opts.budget, now, seed, sampleSize });
  const requests: ProbeRequestEvent[] = plan.checks.map((c) => ({
    id: newEventId(),
    observedAt: now,
    runId,
    agentKey: c.agent.agentKey,
    agentId: c.agent.agentId,
    protocol: c.agent.protocol,
    site: siteOf(c.agent.targetUrl),
    targetUrl: c.agent.targetUrl,
    transport: c.agent.transport,
    reason: c.reason,
    inSample: c.inSample,
  }));
  await opts.sink.run({
    id: newEventId(),
    observedAt: now,
    runId,
    kind: 'daily',
    phase: 'start',
    budget: opts.budget,
    sampleSize: plan.counts.sample,
    seed,
    counts: { ...plan.counts, planned: requests.length },
    complete: false,
    note: null,
  });
  if (requests.length > 0) await opts.sink.probeRequests(requests);
  opts.log.info({ runId, seed, budget: opts.budget, ...plan.counts }, 'daily run scheduled');
  return { runId, seed, plan, requests };
}
