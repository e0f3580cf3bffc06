import type { AgentChangeEvent } from '../../events/types.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { DateTimeText } from '../../warehouse/rows.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { deriveProbeChanges, type ProbeFacts, type StatePoint } from './derive.js';
import { rawHistorySince } from './processor.js';
import { agentNames } from './reads.js';

/**
 * Every up, down and verdict change of one checker version's rows, as the verdict processor
 * derives them batch by batch (derive.ts): for a replay that writes a version's rows all at once
 * (src/processors/verdicts/replay-facts.ts). The engine finds, for each probe inside the raw
 * tables' TTL, the decided uptime and verdict before it; only the probes where one differs are
 * read, with those two points, and derive.ts decides on them exactly as on a batch: the newest
 * decided point before each is the one the engine found.
 */

/** Agents whose changes one statement derives: a bounded piece of the engine's and this process's memory. */
export const VERSION_CHANGE_AGENTS_PER_STATEMENT = 50_000;

interface FlipRow {
  event_id: string;
  agent_key: string;
  protocol: 'a2a' | 'mcp';
  observed_at: DateTimeText;
  uptime: string;
  reason: string;
  result: string;
  reasons: string[];
  pu_at: DateTimeText;
  pu_id: string;
  pu: string;
  pv_at: DateTimeText;
  pv_id: string;
  pv: string;
}

/**
 * Where a version's probes are read from: a statement of one part of the agents (`inPart`, a
 * condition on agent_key), newer than {since}, each probe with its event_id, agent_key, protocol,
 * observed_at, uptime, reason, result and reasons; and a statement counting the agents (n).
 */
export interface VersionProbes {
  rows: (inPart: string) => string;
  agents: string;
}

/** The version's stored checks joined with its verdicts. */
export const STORED_PROBES: VersionProbes = {
  rows: (inPart) => `SELECT c.event_id AS event_id, c.agent_key AS agent_key, c.protocol AS protocol, c.observed_at AS observed_at,
      c.uptime AS uptime, c.reason AS reason, v.result AS result, v.reasons AS reasons
    FROM (SELECT event_id, agent_key, protocol, observed_at, uptime, reason FROM checks FINAL
          WHERE checker_version = {cv:String} AND observed_at >= {since:DateTime64(3, 'UTC')} AND ${inPart}) AS c
    INNER JOIN (SELECT event_id, result, reasons FROM verdicts FINAL
          WHERE checker_version = {cv:String} AND observed_at >= {since:DateTime64(3, 'UTC')} AND ${inPart}) AS v ON v.event_id = c.event_id`,
  agents: 'SELECT uniqExact(agent_key) AS n FROM checks WHERE checker_version = {cv:String}',
};

const IN_PART = 'cityHash64(agent_key) % {parts:UInt32} = {part:UInt32}';

const flips = (probes: VersionProbes) => `
  SELECT event_id, agent_key, protocol, observed_at, uptime, reason, result, reasons,
         pu_t.1 AS pu_at, pu_t.2 AS pu_id, pu_t.3 AS pu, pv_t.1 AS pv_at, pv_t.2 AS pv_id, pv_t.3 AS pv
  FROM (
    SELECT *,
           anyLastIf((observed_at, event_id, uptime), uptime IN ('up', 'down')) OVER w AS pu_t,
           anyLastIf((observed_at, event_id, result), result IN ('pass', 'fail', 'n/a')) OVER w AS pv_t
    FROM (${probes.rows(IN_PART)})
    WINDOW w AS (PARTITION BY agent_key ORDER BY observed_at, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
  )
  WHERE (uptime IN ('up', 'down') AND pu_t.2 != '' AND pu_t.3 != uptime) OR (result IN ('pass', 'fail', 'n/a') AND pv_t.2 != '' AND pv_t.3 != result)`;

/**
 * The changes of `checkerVersion`'s probes (read from `probes`, by default its stored checks and
 * verdicts), by agent in shares of VERSION_CHANGE_AGENTS_PER_STATEMENT, each share handed to `take`.
 */
export async function deriveVersionChanges(
  wh: Warehouse,
  checkerVersion: string,
  take: (changes: AgentChangeEvent[]) => Promise<void>,
  { now = Date.now(), probes = STORED_PROBES }: { now?: number; probes?: VersionProbes } = {},
): Promise<number> {
  const [count] = await wh.query<{ n: string }>(probes.agents, { cv: checkerVersion });
  const sql = flips(probes);
  const parts = Math.max(1, Math.ceil(Number(count?.n ?? 0) / VERSION_CHANGE_AGENTS_PER_STATEMENT));
  let total = 0;
  for (let part = 0; part < parts; part++) {
    const rows = await wh.query<FlipRow>(sql, { cv: checkerVersion, since: new Date(rawHistorySince(now)), parts, part });
    if (rows.length === 0) continue;
    const events: ProbeFacts[] = [];
    const uptimeHistory = new Map<string, StatePoint[]>();
    const verdictHistory = new Map<string, StatePoint[]>();
    const point = (lines: Map<string, StatePoint[]>, key: string, at: DateTimeText, id: string, state: string) => {
      if (id === '') return;
      const p = { observedAt: fromDateTime64(at), eventId: id, state };
      const line = lines.get(key);
      if (line) line.push(p);
      else lines.set(key, [p]);
    };
    for (const r of rows) {
      events.push({
        eventId: r.event_id,
        agentKey: r.agent_key,
        protocol: r.protocol,
        observedAt: fromDateTime64(r.observed_at),
        uptime: r.uptime,
        reason: r.reason,
        verdict: r.result,
        verdictReasons: r.reasons,
      });
      point(uptimeHistory, r.agent_key, r.pu_at, r.pu_id, r.pu);
      point(verdictHistory, r.agent_key, r.pv_at, r.pv_id, r.pv);
    }
    const names = await agentNames(wh, [...new Set(rows.map((r) => r.agent_key))]);
    const changes = deriveProbeChanges({ events, uptimeHistory, verdictHistory, names, checkerVersion });
    await take(changes);
    total += changes.length;
  }
  return total;
}
