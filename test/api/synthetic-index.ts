/**
 * A synthetic index in the real tables (through the migrations), made with INSERT … SELECT from
 * numbers(): agents (with their listings), each one's latest state and `days` days of daily
 * history, the last 24 hours' checks and verdicts of a daily run with its sample, the daily
 * rollups, and (where the migrations have them) the API's read model as the verdict processor
 * writes it. Used by the bounded-reads test and by `npm run bench -- api`; it also runs against a
 * checkout from before the read model (the bench's "before" figures): tables it does not find
 * are skipped.
 *
 * Agent n (0 ≤ n < agents): key `https://a<n>.example.dev/mcp`, name `<Topic> Agent <n>`,
 * a third of them A2A, every 50th inactive, every 997th hidden, every 20th never checked,
 * every 7th checked in the last 24 hours (in the run 'synthetic-run', about 1000 of them in its sample).
 */
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { addSyntheticSearch } from './synthetic-search.js';

export const SYNTHETIC_RUN = 'synthetic-run';
export const TOPICS = ['Weather', 'Maps', 'Search', 'Files', 'Mail', 'Code', 'Data', 'Chat', 'Travel', 'Music'];
const topic = (n: string) => `arrayElement(['${TOPICS.join("','")}'], ${n} % 10 + 1)`;

export const syntheticKey = (n: number) => `https://a${n}.example.dev/mcp`;

export interface SyntheticOptions {
  /** Agents [from, to) to add (a second call grows the same index). */
  from: number;
  to: number;
  /** Days of history per agent (today and the days before). */
  days: number;
  checkerVersion: string;
  /** Progress lines (the bench prints them). */
  log?: (line: string) => void;
}

const hasTable = async (wh: Warehouse, name: string) =>
  Number((await wh.query<{ result: number }>(`EXISTS TABLE ${name}`))[0]?.result ?? 0) === 1;

async function timed(log: ((l: string) => void) | undefined, what: string, run: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  await run();
  log?.(`  ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Adds agents [from, to) with their listings, latest states, history and recent checks. */
export async function addSyntheticAgents(wh: Warehouse, o: SyntheticOptions): Promise<void> {
  const p = { from: o.from, count: o.to - o.from, days: o.days, cv: o.checkerVersion };
  const n = '(number + {from:UInt64})';
  const keyOf = (x: string) => `concat('https://a', toString(${x}), '.example.dev/mcp')`;
  const idOf = (x: string) => `substring(lower(hex(SHA256(${keyOf(x)}))), 1, 16)`;
  const protocolOf = (x: string) => `if(${x} % 3 = 0, 'a2a', 'mcp')`;
  const key = keyOf(n);
  const id = idOf(n);
  const protocol = protocolOf(n);
  const name = `concat(${topic(n)}, ' Agent ', toString(${n}))`;
  const now = "now64(3, 'UTC')";
  await timed(o.log, `agents ${o.from}..${o.to}`, () =>
    wh.exec(
      `INSERT INTO agents (agent_id, agent_key, protocol, name, description, endpoint_url, card_url, sources, source_first_seen,
         first_seen, last_seen, changed_at, active, inactive_since, has_server_json, opt_out, opt_out_reason, version)
       SELECT ${id}, ${key}, ${protocol}, ${name},
         concat('A synthetic ', lowerUTF8(${topic(n)}), ' server with tools for ', arrayElement(['teams', 'developers', 'analysts'], ${n} % 3 + 1), ' number ', toString(${n} % 997)),
         ${key}, '', ['mcp-registry'], map('mcp-registry', ${now} - INTERVAL 100 DAY),
         ${now} - INTERVAL 100 DAY, ${now} - INTERVAL 1 HOUR, ${now} - INTERVAL 100 DAY,
         toUInt8(${n} % 50 != 49), if(${n} % 50 = 49, ${now} - INTERVAL 2 DAY, NULL), 0,
         if(${n} % 997 = 996, 'hidden', ''), '', toUInt64(toUnixTimestamp64Milli(${now}))
       FROM numbers({count:UInt64})`,
      p,
    ),
  );
  await timed(o.log, 'listings', () =>
    wh.exec(
      `INSERT INTO listings (source, item_id, agent_key, protocol, name, description, version_label, endpoint_url, endpoint_transport,
         card_url, server_json, status, raw, raw_truncated, tombstoned, content_hash, changed_at, first_seen, last_seen, last_event_id, version)
       SELECT 'mcp-registry', toString(${n}), ${key}, ${protocol}, ${name}, '', '1.0.0', ${key}, 'streamable-http', '', '', 'active', '', 0, 0, '',
         ${now} - INTERVAL 100 DAY, ${now} - INTERVAL 100 DAY, ${now} - INTERVAL 1 HOUR, concat('l-', toString(${n})), toUInt64(toUnixTimestamp64Milli(${now}))
       FROM numbers({count:UInt64})`,
      p,
    ),
  );
  // The ranked search's index (clickhouse/0035), where the migrations have it.
  if (await hasTable(wh, 'search_documents')) {
    const facets = await hasTable(wh, 'search_term_facets');
    await timed(o.log, 'search index', () => addSyntheticSearch(wh, { from: o.from, to: o.to, topics: TOPICS, facets }));
  }
  const checkedOf = (x: string) => `${x} % 20 != 19`;
  const checked = checkedOf(n);
  await timed(o.log, 'agent_latest', () =>
    wh.exec(
      `INSERT INTO agent_latest (checker_version, agent_key, agent_id, protocol, source, event_id, observed_at, uptime, reason, http_status,
         latency_ms, in_sample, our_side, suite_id, suite_version, result, reasons, warnings, a2a_version, a2a_route, signature)
       SELECT {cv:String}, ${key}, ${id}, ${protocol}, 'mcp-registry', concat('e-', toString(${n})),
         ${now} - toIntervalMinute(${n} % 7 = 0 ? ${n} % 1000 : 1440 * (${n} % 7) + ${n} % 1000),
         if(${n} % 10 < 8, 'up', 'down'), '', 200, toUInt32(50 + ${n} % 400), 0, 0, 'suite', '1', if(${n} % 4 = 0, 'fail', 'pass'), [], [], '', '', ''
       FROM numbers({count:UInt64}) WHERE ${checked}`,
      p,
    ),
  );
  // History rows: agent i (from the offset), day d before today.
  const h = '(i + {from:UInt64})';
  const latency = `toUInt32(50 + (${h} * 7919 + d) % 400)`;
  await timed(o.log, `agent_daily_history (${o.days} days each)`, () =>
    wh.exec(
      `INSERT INTO agent_daily_history (checker_version, agent_key, day, agent_id, protocol, checks, up, down, unknown, skipped,
         sample_checks, sample_up, latency_p50_ms, latency_p95_ms, latency_digest, computed_at)
       SELECT {cv:String}, ${keyOf(h)}, toDate(${now}, 'UTC') - d, ${idOf(h)}, ${protocolOf(h)}, 1, toUInt32(up), toUInt32(1 - up), 0, 0, 0, 0,
         ${latency}, ${latency}, arrayReduce('quantileTDigestState', [${latency}]), ${now}
       FROM (SELECT intDiv(number, {days:UInt64}) AS i, number % {days:UInt64} AS d, (i + d) % 10 < 8 AS up
             FROM numbers({count:UInt64} * {days:UInt64}))
       WHERE ${checkedOf(h)}`,
      p,
    ),
  );
  // The last 24 hours: every 7th agent checked in the daily run, about 1000 of them in its sample.
  const recent = `${n} % 7 = 0 AND ${checked}`;
  const sample = `${n} < 7000`;
  const at = `${now} - toIntervalMinute(${n} % 1000)`;
  await timed(o.log, 'checks and verdicts of the last 24 h', async () => {
    await wh.exec(
      `INSERT INTO checks (event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
         latency_ms, in_sample, our_side, source)
       SELECT concat('e-', toString(${n})), {cv:String}, ${key}, ${id}, ${protocol}, '${SYNTHETIC_RUN}', ${at},
         if(${n} % 10 < 8, 'up', 'down'), '', 200, toUInt32(50 + ${n} % 400), toUInt8(${sample}), 0, 'mcp-registry'
       FROM numbers({count:UInt64}) WHERE ${recent}`,
      p,
    );
    await wh.exec(
      `INSERT INTO verdicts (event_id, agent_key, protocol, observed_at, checker_version, suite_id, suite_version, result, reasons, warnings,
         a2a_version, a2a_route, tolerant_valid, alt_version, alt_valid, schema_file, structure_result, structure_reasons, signature, in_sample, judged_at)
       SELECT concat('e-', toString(${n})), ${key}, ${protocol}, ${at}, {cv:String}, 'suite', '1', if(${n} % 4 = 0, 'fail', 'pass'), [], [],
         '', '', NULL, '', NULL, '', '', [], '', toUInt8(${sample}), ${now}
       FROM numbers({count:UInt64}) WHERE ${recent}`,
      p,
    );
  });
}

/**
 * What the index needs once its agents are in: the daily rollups, the run, the pinned version,
 * and the API's read model as the verdict processor writes it (agent_status by key ranges,
 * run_samples, census_totals), where the migrations have those tables.
 */
export async function finishSyntheticIndex(
  wh: Warehouse,
  o: { agents: number; days: number; checkerVersion: string; log?: (l: string) => void },
): Promise<void> {
  const p = { days: o.days, cv: o.checkerVersion, agents: o.agents };
  await timed(o.log, 'daily_rollups', () =>
    wh.exec(
      `INSERT INTO daily_rollups (day, protocol, source, checker_version, checks, up, down, unknown, skipped, pass, fail, unknown_verdict, na,
         sample_checks, sample_up, sample_down, sample_unknown, sample_skipped, sample_pass, sample_fail, sample_unknown_verdict, sample_na, computed_at)
       SELECT toDate(now64(3, 'UTC'), 'UTC') - d, proto, 'mcp-registry', {cv:String}, c, toUInt32(c * 0.8), c - toUInt32(c * 0.8), 0, 0,
         toUInt32(c * 0.75), c - toUInt32(c * 0.75), 0, 0, 1000, 800, 200, 0, 0, 750, 250, 0, 0, now64(3, 'UTC')
       FROM (SELECT number DIV 2 AS d, if(number % 2 = 0, 'mcp', 'a2a') AS proto,
                    toUInt32(if(number % 2 = 0, {agents:UInt64} * 2 DIV 3, {agents:UInt64} DIV 3)) AS c
             FROM numbers({days:UInt64} * 2))`,
      p,
    ),
  );
  await wh.exec(
    `INSERT INTO runs (run_id, phase, kind, observed_at, event_id, budget, sample_size, seed, counts, complete, note)
     VALUES ('${SYNTHETIC_RUN}', 'start', 'daily', now64(3, 'UTC') - INTERVAL 1 DAY, 'r-start', 100000, 1000, 'seed', map('sample', 1000), 0, ''),
            ('${SYNTHETIC_RUN}', 'finish', 'daily', now64(3, 'UTC'), 'r-finish', 100000, 1000, 'seed', map('sample', 1000), 1, '')`,
  );
  await wh.exec("INSERT INTO checker_current (checker_version, set_at, note) VALUES ({cv:String}, now64(3, 'UTC'), 'synthetic')", p);
  if (!(await hasTable(wh, 'agent_status'))) return;
  const { refreshAgentStatus, refreshCensus, refreshRunSamples } = await import('../../src/warehouse/rollups.js');
  // agent_status as the verdict processor writes it, a bounded piece of the key space at a time.
  await timed(o.log, 'agent_status (refreshAgentStatus by key ranges)', async () => {
    const bounds = (
      await wh.query<{ agent_key: string }>(
        `SELECT agent_key FROM (SELECT agent_key, row_number() OVER (ORDER BY agent_key) AS rn FROM agent_latest WHERE checker_version = {cv:String})
         WHERE rn % 20000 = 1 ORDER BY agent_key`,
        p,
      )
    ).map((r) => r.agent_key);
    for (let i = 0; i < bounds.length; i++) {
      await refreshAgentStatus(wh, { checkerVersion: o.checkerVersion, keyRange: { from: bounds[i]!, to: bounds[i + 1] ?? '\u{10FFFF}' } });
    }
  });
  await timed(o.log, 'run_samples and census_totals', async () => {
    const sample = await wh.query<{ agent_key: string; event_id: string }>(
      `SELECT agent_key, event_id FROM checks WHERE run_id = '${SYNTHETIC_RUN}' AND in_sample = 1 AND checker_version = {cv:String}`,
      p,
    );
    for (let i = 0; i < sample.length; i += 500) {
      const part = sample.slice(i, i + 500);
      await refreshRunSamples(wh, {
        checkerVersion: o.checkerVersion,
        agentKeys: part.map((s) => s.agent_key),
        eventIds: part.map((s) => s.event_id),
      });
    }
    await refreshCensus(wh, o.checkerVersion);
  });
}

/**
 * `total` raw checks of agents [0, agents) spread over the days before the last 24 hours (the
 * history a long-running index holds until its TTL: checks expire after 90 days), in blocks of
 * at most 10,000,000 rows so the engine never holds one huge insert. No API route reads them:
 * they are there so that a query that did would show it.
 */
export async function addSyntheticChecks(
  wh: Warehouse,
  o: { agents: number; total: number; days: number; checkerVersion: string; log?: (l: string) => void },
): Promise<void> {
  const block = 10_000_000;
  const spanMinutes = Math.max(1, o.days - 2) * 1440;
  for (let start = 0; start < o.total; start += block) {
    const count = Math.min(block, o.total - start);
    const p = { start, count, agents: o.agents, span: spanMinutes, cv: o.checkerVersion };
    const x = '(number + {start:UInt64})';
    const a = `(${x} % {agents:UInt64})`;
    await timed(o.log, `checks ${start.toLocaleString('en-US')}..${(start + count).toLocaleString('en-US')}`, () =>
      wh.exec(
        `INSERT INTO checks (event_id, checker_version, agent_key, agent_id, protocol, run_id, observed_at, uptime, reason, http_status,
           latency_ms, in_sample, our_side, source)
         SELECT concat('h-', toString(${x})), {cv:String}, concat('https://a', toString(${a}), '.example.dev/mcp'),
           substring(lower(hex(SHA256(concat('https://a', toString(${a}), '.example.dev/mcp')))), 1, 16), if(${a} % 3 = 0, 'a2a', 'mcp'),
           'history', now64(3, 'UTC') - INTERVAL 1 DAY - toIntervalMinute(${x} * 7919 % {span:UInt64}),
           if((${x} * 31) % 10 < 8, 'up', 'down'), '', 200, toUInt32(50 + ${x} % 400), 0, 0, 'mcp-registry'
         FROM numbers({count:UInt64})`,
        p,
      ),
    );
  }
}
