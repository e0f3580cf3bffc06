import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import { generateSigningKeyPair } from '../../src/conformance/index.js';
import type { ListingEvent, ProbeEvent } from '../../src/events/types.js';
import { siteOf } from '../../src/identity/agent-key.js';
import { createEventProducer } from '../../src/kafka/producer.js';
import { setupKafkaTest, uniqueGroupId, type KafkaTestContext } from '../helpers/kafka.js';
import { probeEvent, probeExchange } from '../helpers/probe-events.js';
import type { CrashedProcessor, CrashPoint } from './crash-worker.js';

/**
 * A processor killed (SIGKILL) at each point of a batch, then restarted on the same consumer
 * group and warehouse, ends with exactly the rows of a run that never crashed:
 *   before its insert; in the middle of the batch (its first table written, half of the second);
 *   after its insert and before its offset commit.
 * Two processors are under test. Dedupe: its sink reads the warehouse to merge agents, so a
 * half-applied batch is where a non-idempotent write would show. Verdicts: the most tables a
 * batch writes (checks, verdicts, agent_latest, then the rollups, daily history, status rows and
 * run samples recomputed from them) and change events published before the commit. Each runs in
 * a child process (test/faults/crash-worker.ts) with its own chdb session, and crashes on the
 * second batch, so a committed batch comes before the crash.
 */

const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);
const ITEMS = 60;

function listing(i: number, wave: number, over: Partial<ListingEvent> = {}): ListingEvent {
  const itemId = `io.github.crash${String(i).padStart(2, '0')}/server`;
  return {
    id: `crash-${i}-${wave}`,
    observedAt: T0 + wave * 3_600_000 + i,
    runId: `wave-${wave}`,
    fetchId: `fetch-${wave}`,
    source: 'mcp-registry',
    itemId,
    protocol: 'mcp',
    name: `Crash server ${i} v${wave}`,
    description: `Listed in wave ${wave}`,
    version: `1.0.${wave}`,
    // Items 0..4 share the remote of item 50+i under another spelling: one agent, two listings.
    endpointUrl: i < 5 ? `https://MCP-${i + 50}.example.org:443/mcp/` : `https://mcp-${i}.example.org/mcp`,
    endpointTransport: 'streamable-http',
    cardUrl: null,
    serverJson: null,
    status: 'active',
    invalidReason: null,
    updatedAt: new Date(T0 + wave * 3_600_000).toISOString(),
    raw: '{}',
    rawTruncated: false,
    ...over,
  };
}

/** Wave 1 lists everything; wave 2 renames some, deletes some and moves some to a new URL (orphaning their old agent). */
function events(): ListingEvent[] {
  const out: ListingEvent[] = [];
  for (let i = 0; i < ITEMS; i++) out.push(listing(i, 1));
  for (let i = 10; i < 30; i++) out.push(listing(i, 2));
  for (let i = 30; i < 40; i++) out.push(listing(i, 2, { status: 'deleted', endpointUrl: null }));
  for (let i = 40; i < 45; i++) out.push(listing(i, 2, { endpointUrl: `https://moved-${i}.example.org/mcp` }));
  return out;
}

/**
 * Probes of 40 MCP agents on 12 sites over the last 3 days (inside the raw tables' 90 days, so
 * the change derivation reads them): each agent up, then down or up, some in the sample.
 */
function probes(): ProbeEvent[] {
  const day0 = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000;
  const out: ProbeEvent[] = [];
  for (let d = 0; d < 3; d++) {
    for (let i = 0; i < 40; i++) {
      const url = `https://mcp-${i}.site${i % 12}.example/mcp`;
      const down = d > 0 && (i + d) % 4 === 0;
      const exchange = down ? probeExchange('mcp-get', url, 503) : probeExchange('mcp-get', url, 405, '', { allow: 'POST' });
      out.push(
        probeEvent(day0 + d * 86_400_000 + i * 60_000, `probe-${d}-${i}`, url, 'mcp', [exchange], {
          inSample: i % 3 === 0,
          runId: `run-${d}`,
        }),
      );
    }
  }
  return out;
}

type Snapshot = Record<string, Record<string, unknown>[]>;
interface WorkerResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

describe('a processor crashing at each point of a batch', () => {
  let ctx: KafkaTestContext;
  const dirs: string[] = [];

  const signingKey = generateSigningKeyPair().privateKeyPem;

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 2 });
    const producer = await createEventProducer(ctx.kafka);
    const codec = eventCodec();
    await producer.send(
      ctx.topics.listings,
      events().map((e) => ({ key: `${e.source}:${e.itemId}`, value: codec.encode('Listing', e) })),
    );
    // Probe events keyed by site, as the probe worker's requests are.
    await producer.send(
      ctx.topics.probes,
      probes().map((e) => ({ key: siteOf(e.targetUrl), value: codec.encode('Probe', e) })),
    );
    await producer.close();
  });
  afterAll(async () => {
    await ctx?.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const worker = (processor: CrashedProcessor, dir: string, group: string, crashAt: CrashPoint) =>
    new Promise<WorkerResult>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-worker.ts')], {
        env: {
          ...process.env,
          PROCESSOR: processor,
          SIGNING_KEY_PEM: signingKey,
          BROKERS: ctx.brokers,
          PREFIX: ctx.prefix,
          GROUP: group,
          DATA_DIR: join(dir, 'warehouse'),
          SNAPSHOT_FILE: join(dir, 'snapshot.json'),
          CRASH_AT: crashAt,
          CRASH_BATCH: '2',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
      const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stderr });
      });
    });

  /** A fresh warehouse and group: crash (unless 'none'), then a clean run; the clean run's snapshot. */
  const scenario =
    (processor: CrashedProcessor) =>
    async (crashAt: CrashPoint): Promise<{ crashed: WorkerResult | null; snapshot: Snapshot }> => {
      const dir = mkdtempSync(join(tmpdir(), `veronikai-crash-${processor}-${crashAt}-`));
      dirs.push(dir);
      const group = uniqueGroupId(`crash-${processor}-${crashAt}`);
      const crashed = crashAt === 'none' ? null : await worker(processor, dir, group, crashAt);
      const clean = await worker(processor, dir, group, 'none');
      expect(clean.code, clean.stderr).toBe(0);
      return { crashed, snapshot: JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as Snapshot };
    };

  const POINTS = ['none', 'before-insert', 'mid-batch', 'after-insert'] as const;

  it('dedupe ends with the same listings and agents as a run without the crash, for every crash point', { timeout: 150_000 }, async () => {
    // All four at once: each has its own group and warehouse, and most of their time is waiting.
    const [baseline, ...crashes] = await Promise.all(POINTS.map(scenario('dedupe')));
    // 55 remotes (items 0..4 share theirs with 50..54), 5 of them moved to a new URL; the 10 deleted stay, inactive.
    // (Each item's two events fall in one batch, so a moved item's old URL never became an agent.)
    expect(baseline!.snapshot.listings).toHaveLength(ITEMS);
    expect(baseline!.snapshot.agents).toHaveLength(55);
    expect(baseline!.snapshot.agents!.filter((a) => Number(a.active) === 1)).toHaveLength(45);
    for (const [i, point] of (['before-insert', 'mid-batch', 'after-insert'] as const).entries()) {
      const { crashed, snapshot } = crashes[i]!;
      expect(crashed?.signal, `${point}: ${crashed?.stderr}`).toBe('SIGKILL');
      expect(snapshot.listings, point).toEqual(baseline!.snapshot.listings);
      expect(snapshot.agents, point).toEqual(baseline!.snapshot.agents);
    }
  });
  it(
    'verdicts ends with the same checks, verdicts, latest states and read model as a run without the crash, for every crash point',
    { timeout: 150_000 },
    async () => {
      const [baseline, ...crashes] = await Promise.all(POINTS.map(scenario('verdicts')));
      const base = baseline!.snapshot;
      expect(base.checks).toHaveLength(120);
      expect(base.verdicts).toHaveLength(120);
      expect(base.agent_latest).toHaveLength(40);
      expect(base.agent_status).toHaveLength(40);
      expect(base.checks!.filter((c) => c.uptime === 'down').length).toBeGreaterThan(0);
      expect(base.daily_rollups!.length).toBeGreaterThanOrEqual(3);
      for (const [i, point] of (['before-insert', 'mid-batch', 'after-insert'] as const).entries()) {
        const { crashed, snapshot } = crashes[i]!;
        expect(crashed?.signal, `${point}: ${crashed?.stderr}`).toBe('SIGKILL');
        for (const table of Object.keys(base).filter((t) => t !== 'batches'))
          expect(snapshot[table], `${point}: ${table}`).toEqual(base[table]);
      }
    },
  );
});
