import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { ListingEvent } from '../../src/events/types.js';
import { createEventProducer } from '../../src/kafka/producer.js';
import { DAY_MS, deadlineOf, planRun, SCHEDULE_DEFAULTS } from '../../src/processors/scheduler/plan.js';
import type { ScheduledAgent } from '../../src/processors/scheduler/scheduler.js';
import { ABANDONED_NOTE, type DailyRunReport } from '../../src/runtime/daily.js';
import type { RunStats } from '../../src/stats/run-stats.js';
import { fromDateTime64 } from '../../src/warehouse/time.js';
import { setupKafkaTest, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { mcpListing } from '../helpers/listing-events.js';

/**
 * A `run` process killed (SIGKILL) in the middle of its daily run, while a probe is in flight:
 * the next start records and reports the previous run as incomplete, finishes its own run, and
 * the scheduler's 7-day guarantee holds from the state the crash left.
 *
 * 14 MCP agents on a loopback peer, first listed 6.5, 6, 5.5, … days ago, so one of them falls
 * due each half day; a budget of 2 (a seventh of the index, the least the guarantee needs).
 * The first run plans the two most urgent; the peer holds the answer of one of them, and the
 * process is killed while it waits.
 */

const N = 14;
const BUDGET = 2;

describe('a daily run killed in the middle', () => {
  let ctx: KafkaTestContext;
  let peer: Server;
  let origin: string;
  let dir: string;
  /** While true, GET /mcp/1 gets no answer. */
  let hold = true;
  const held: ServerResponse[] = [];
  let heldRequests = 0;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
    peer = createServer((req, res) => {
      if (req.url === '/mcp/1' && hold) {
        heldRequests++;
        held.push(res);
        return;
      }
      // An MCP Streamable HTTP server that offers no GET stream: up.
      res.writeHead(req.url?.startsWith('/mcp/') ? 405 : 404, { 'content-type': 'text/plain' }).end();
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'veronikai-killed-run-'));

    const now = Date.now();
    const codec = eventCodec();
    const listings: ListingEvent[] = Array.from({ length: N }, (_, i) =>
      mcpListing(i, origin, {
        id: `killed-${i}`,
        observedAt: now - (6.5 - i * 0.5) * DAY_MS,
        itemId: `io.github.killed${i}/server`,
        name: `Killed-run server ${i}`,
      }),
    );
    const producer = await createEventProducer(ctx.kafka);
    await producer.send(
      ctx.topics.listings,
      listings.map((l) => ({ key: `${l.source}:${l.itemId}`, value: codec.encode('Listing', l) })),
    );
    await producer.close();
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const r of held) r.destroy();
    await new Promise<void>((r) => peer?.close(() => r()));
    await ctx?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const start = (out: string) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'daily-run-child.ts')], {
      env: { ...process.env, DATA_DIR: dir, BROKERS: ctx.brokers, PREFIX: ctx.prefix, BUDGET: String(BUDGET), OUT: out },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
    );
    return { child, exited };
  };

  it('is reported incomplete at the next start, which runs on and keeps every agent within 7 days', { timeout: 120_000 }, async () => {
    const first = start(join(dir, 'first.json'));
    await Promise.race([
      waitFor(() => heldRequests > 0, 60_000, 'the first run to probe the held agent'),
      first.exited.then((e) => {
        throw new Error(`the first run ended before it was killed: ${e.code ?? e.signal} ${e.stderr}`);
      }),
    ]);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    hold = false;
    for (const r of held) r.destroy(); // the killed process's connection

    const out = join(dir, 'next.json');
    const next = await start(out).exited;
    expect(next.code, next.stderr).toBe(0);
    const { report, error, stats, agents } = JSON.parse(readFileSync(out, 'utf8')) as {
      report: DailyRunReport;
      error: string | null;
      stats: Record<string, RunStats>;
      agents: ScheduledAgent[];
    };

    expect(error).toBeNull();
    // The killed run: found, recorded as finished early, and its figures say so.
    expect(report.abandoned).toHaveLength(1);
    const killed = report.abandoned[0]!.runId;
    expect(killed).not.toBe(report.runId);
    expect(stats[killed]).toMatchObject({ status: 'incomplete', planned: 0 });
    expect(stats[killed]!.note).toContain(ABANDONED_NOTE);
    // The next run itself completed.
    expect(stats[report.runId]!.status).toBe('complete');
    expect(report.planned).toBe(BUDGET);

    // The two agents due today were checked (the killed run's requests were probed again, or re-planned).
    expect(agents).toHaveLength(N);
    const now = Date.now();
    for (const a of agents) if (deadlineOf(a, SCHEDULE_DEFAULTS.revisitMs) < now + DAY_MS) expect(a.lastChecked, a.agentKey).not.toBeNull();

    // From this state, daily runs with the same budget, every 24 h from the restarted run, meet every deadline for two weeks.
    const restarted = fromDateTime64(stats[report.runId]!.startedAt!);
    let state = agents.map((a) => ({ ...a }));
    for (let day = 1; day <= 14; day++) {
      const t = restarted + day * DAY_MS;
      for (const a of state) expect(deadlineOf(a, SCHEDULE_DEFAULTS.revisitMs), `${a.agentKey} on day ${day}`).toBeGreaterThanOrEqual(t);
      const plan = planRun(state, { budget: BUDGET, now: t, seed: `day-${day}`, sampleSize: 0 });
      const checked = new Set(plan.checks.map((c) => c.agent.agentKey));
      state = state.map((a) => (checked.has(a.agentKey) ? { ...a, lastChecked: t } : a));
    }
  });
});
