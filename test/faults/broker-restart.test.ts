import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { eventCodec } from '../../src/events/codec.js';
import type { ListingEvent } from '../../src/events/types.js';
import { createKafka } from '../../src/kafka/client.js';
import { createEventProducer } from '../../src/kafka/producer.js';
import { ensureTopics } from '../../src/kafka/topics-admin.js';
import { freePort, startBroker, type BrokerHandle } from '../../src/stack/kafka/index.js';
import type { DailyRunReport } from '../../src/runtime/daily.js';
import type { RunStats } from '../../src/stats/run-stats.js';
import { topicNames } from '../../src/topics.js';
import { testLogger, waitFor } from '../helpers/kafka.js';
import { mcpListing } from '../helpers/listing-events.js';

/**
 * The Kafka broker killed (SIGKILL) and restarted on the same data directory and ports in the
 * middle of a daily run, while a probe is in flight. The broker is this test's own (the shared
 * test broker must not die under other files). The run either finishes or records itself as
 * incomplete, and the judged tables hold every planned probe exactly once.
 */

const N = 8;

describe('the broker killed and restarted in the middle of a daily run', () => {
  let brokerDir: string;
  let dataDir: string;
  let broker: BrokerHandle | null = null;
  let port: number;
  let controllerPort: number;
  let peer: Server;
  let hold = true;
  const held: ServerResponse[] = [];
  const prefix = 'fault.';
  const cacheDir = loadConfig().cacheDir;
  const log = testLogger('broker-restart');

  const start = () => startBroker({ dataDir: brokerDir, cacheDir, port, controllerPort, logger: log, heap: '384m' });

  beforeAll(async () => {
    brokerDir = mkdtempSync(join(tmpdir(), 'veronikai-fault-broker-'));
    dataDir = mkdtempSync(join(tmpdir(), 'veronikai-fault-run-'));
    port = await freePort();
    controllerPort = await freePort([port]);
    broker = await start();

    peer = createServer((req, res) => {
      if (req.url === '/mcp/3' && hold) {
        held.push(res);
        return;
      }
      res.writeHead(req.url?.startsWith('/mcp/') ? 405 : 404).end();
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;

    const kafka = createKafka({ brokers: broker.brokers, clientId: 'fault-setup', logger: log });
    await ensureTopics(kafka, prefix, { maxPartitions: 2 });
    const codec = eventCodec();
    const listings: ListingEvent[] = Array.from({ length: N }, (_, i) =>
      mcpListing(i, origin, { id: `restart-${i}`, observedAt: Date.now(), itemId: `io.github.restart${i}/server`, name: `Server ${i}` }),
    );
    const producer = await createEventProducer(kafka);
    await producer.send(
      topicNames(prefix).listings,
      listings.map((l) => ({ key: `${l.source}:${l.itemId}`, value: codec.encode('Listing', l) })),
    );
    await producer.close();
  }, 120_000);

  afterAll(async () => {
    for (const r of held) r.destroy();
    await new Promise<void>((r) => (peer ? peer.close(() => r()) : r()));
    await broker?.stop(10_000);
    for (const d of [brokerDir, dataDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** One `run` process (test/faults/daily-run-child.ts) on the fault broker; resolves with its exit code. */
  const runProcess = (out: string) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'daily-run-child.ts')], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        BROKERS: broker!.brokers,
        PREFIX: prefix,
        BUDGET: String(N),
        SAMPLE: '4',
        OUT: out,
        STAGE_TIMEOUT_MS: '60000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
      child.on('exit', (code) => {
        clearTimeout(killer);
        resolve({ code, stderr });
      }),
    );
    return exited;
  };

  it('finishes or reports itself incomplete, and every probe is judged once', { timeout: 150_000 }, async () => {
    const out = join(dataDir, 'out.json');
    const first = runProcess(out);
    await waitFor(() => held.length > 0, 60_000, 'the run to probe the held agent');
    // The broker dies without a word; the held probe then answers, and its event has nowhere to go.
    const dead = broker!;
    broker = null;
    process.kill(dead.pid, 'SIGKILL');
    await dead.stop(10_000); // only waits for the exit and clears the pid file
    hold = false;
    for (const r of held.splice(0)) r.writeHead(405).end();
    broker = await start();

    // The run process either rides the outage out (exit 0) or stops on the failure, as `run` does
    // (exit 1), and its supervisor starts it again: that start finds the run it left unfinished.
    let exit = await first;
    const restarted = exit.code !== 0;
    if (restarted) exit = await runProcess(out);
    expect(exit.code, exit.stderr).toBe(0);

    const result = JSON.parse(readFileSync(out, 'utf8')) as {
      report: DailyRunReport;
      error: string | null;
      stats: Record<string, RunStats>;
      tables: Record<string, number>;
    };
    expect(result.error).toBeNull();
    const runs = Object.values(result.stats);
    const interrupted = runs.find((r) => r.runId !== result.report.runId);
    if (restarted) {
      expect(result.report.abandoned.map((a) => a.runId)).toEqual([interrupted?.runId]);
      expect(interrupted).toMatchObject({ status: 'incomplete' });
    } else expect(runs).toHaveLength(1);
    expect(result.stats[result.report.runId]!.status).toBe('complete');
    // Every planned probe judged exactly once: the tables read with FINAL hold one row per event.
    const { planned, ...tables } = result.tables;
    expect(planned).toBeGreaterThanOrEqual(N);
    expect(tables).toEqual({ checks: planned, check_events: planned, verdicts: planned, verdict_events: planned, latest: N, agents: N });
  });
});
