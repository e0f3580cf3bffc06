/**
 * `veronikai run` stopped with probes in flight, then started again on the same data directory:
 * killed (SIGKILL, as a crash or an out-of-memory kill ends it) and stopped (SIGTERM, as an
 * operator or a supervisor does). Either way the next `run` answers /healthz in under 30 s (the
 * API starts before any consumer group joins, and a dead member holds its partitions only for
 * the short session timeout, 9 s here), and every agent of the interrupted run is checked within five
 * minutes: its requests in flight were never committed, so they go back to the topic and the
 * restarted probe worker probes them (the checks carry the interrupted run's id).
 *
 * The stopped run must also end promptly, without anything sent after its producer closed: the
 * probe worker gives up its probes in flight instead of waiting for them, the daily run records
 * its finish before the producer closes, and every group is left.
 *
 * A fixture MCP Registry lists N servers on one loopback peer; while `hold` is set the peer
 * never answers HELD of them, so their probes are in flight when the signal comes. `run` starts
 * its own broker in its data directory, like a user's (a SIGKILLed run leaves it running, and
 * the next run takes it on).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopBroker, stopCluster } from '../../src/stack/kafka/index.js';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { waitFor } from '../helpers/kafka.js';

const N = 6;
const HELD = [0, 1];
const API_LINE = /^VeronikAI API listening on (http:\/\/\S+)/m;
const HEALTHZ_WITHIN_MS = 30_000;
const CHECKED_WITHIN_MS = 5 * 60_000;
/** A stop must end well inside the platform's shutdown steps, whatever the peers do. */
const STOPPED_WITHIN_MS = 15_000;

describe('run stopped with probes in flight, started again', () => {
  let peer: Server;
  let registry: FixtureRegistry;
  let hold = true;
  const held: ServerResponse[] = [];
  const dirs: string[] = [];
  const spawned: SpawnedCli[] = [];

  beforeAll(async () => {
    peer = createServer((req, res) => {
      const i = Number(/^\/mcp\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
      if (hold && HELD.includes(i)) {
        held.push(res);
        return;
      }
      // An MCP Streamable HTTP server that offers no GET stream: up.
      res.writeHead(Number.isInteger(i) ? 405 : 404, { 'content-type': 'text/plain' }).end();
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    registry = await startFixtureRegistry(
      Array.from({ length: N }, (_, i) => entry(`io.github.restart${i}/server`, { remoteUrl: `${origin}/mcp/${i}` })),
    );
  });

  afterAll(async () => {
    for (const s of spawned) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(spawned.map((s) => s.exited.catch(() => undefined)));
    for (const r of held) r.destroy();
    await new Promise<void>((r) => peer?.close(() => r()));
    await registry?.close();
    for (const dir of dirs) {
      // A killed run's broker outlives it: stop whatever is left.
      await stopBroker({ dataDir: dir, timeoutMs: 10_000 }).catch(() => null);
      await stopCluster({ dataDir: dir, timeoutMs: 10_000 }).catch(() => null);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const run = (dir: string): SpawnedCli => {
    const s = spawnCli(
      [
        'run',
        '--data-dir',
        dir,
        '--port',
        '0',
        '--allow-loopback',
        '--source',
        'mcp-registry',
        '--source-url',
        `mcp-registry=${registry.url}`,
        '--budget',
        String(N),
        '--sample-size',
        String(N),
      ],
      // A session of 9 s, not the default 30 s: the killed run's members hold their partitions that
      // long, and the test is about what happens after, not about the wait.
      { VERONIKAI_KAFKA_BROKERS: '', LOG_LEVEL: 'warn', VERONIKAI_KAFKA_SESSION_TIMEOUT: '9s' },
    );
    spawned.push(s);
    return s;
  };

  /** Milliseconds from the start of `run` until /healthz answers 200. */
  async function healthzAfterStart(dir: string): Promise<{ cli: SpawnedCli; ms: number }> {
    const started = Date.now();
    const cli = run(dir);
    await cli.waitForStdout(API_LINE, HEALTHZ_WITHIN_MS * 2);
    const url = API_LINE.exec(cli.stdout)![1]!;
    await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status === 200, HEALTHZ_WITHIN_MS * 2, '/healthz');
    return { cli, ms: Date.now() - started };
  }

  const sql = async (dir: string, query: string): Promise<Array<Record<string, unknown>>> => {
    const r = await runCli(['sql', '--data-dir', dir, query]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  };

  /** Starts a run, waits until the held probes are in flight, and stops it with the signal. */
  async function interrupted(
    signal: NodeJS.Signals,
  ): Promise<{ dir: string; exit: { code: number | null; stdout: string; stderr: string }; stopMs: number }> {
    const dir = mkdtempSync(join(tmpdir(), `veronikai-restart-${signal.toLowerCase()}-`));
    dirs.push(dir);
    hold = true;
    held.length = 0;
    const first = run(dir);
    await Promise.race([
      waitFor(() => held.length >= HELD.length, 180_000, 'the held probes to be in flight'),
      first.exited.then((e) => {
        throw new Error(`run ended before it was stopped: ${e.code}\n${e.stdout}\n${e.stderr}`);
      }),
    ]);
    const at = Date.now();
    first.child.kill(signal);
    const exit = await first.exited;
    const stopMs = Date.now() - at;
    // The peer answers again from now on (the stopped process's requests are dropped).
    hold = false;
    for (const r of held) r.destroy();
    return { dir, exit, stopMs };
  }

  /** Restarts on `dir`; /healthz in time; every agent checked for the interrupted run within five minutes. */
  async function restartsAndChecksEveryAgent(dir: string): Promise<{ healthzMs: number; checkedMs: number }> {
    const { cli, ms: healthzMs } = await healthzAfterStart(dir);
    expect(healthzMs).toBeLessThan(HEALTHZ_WITHIN_MS);
    const started = Date.now() - healthzMs;
    // The interrupted run is the first one recorded; its checks carry its id.
    let interruptedRun = '';
    await waitFor(
      async () => {
        const runs = await sql(dir, "SELECT run_id FROM runs WHERE kind = 'daily' AND phase = 'start' ORDER BY observed_at LIMIT 1");
        interruptedRun = String(runs[0]?.run_id ?? '');
        if (!interruptedRun) return false;
        const [row] = await sql(
          dir,
          `SELECT toUInt32(uniqExact(agent_key)) AS agents FROM checks FINAL WHERE run_id = '${interruptedRun}'`,
        );
        return Number(row?.agents) === N;
      },
      CHECKED_WITHIN_MS,
      `every agent of the interrupted run to be checked`,
    );
    const checkedMs = Date.now() - started;
    expect(checkedMs).toBeLessThan(CHECKED_WITHIN_MS);
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;
    expect(exit.code, exit.stderr).toBe(0);
    return { healthzMs, checkedMs };
  }

  it('killed (SIGKILL): the next run serves in under 30 s and checks every agent of the killed run', { timeout: 600_000 }, async () => {
    const { dir, exit } = await interrupted('SIGKILL');
    expect(exit.code).toBeNull();
    const { healthzMs, checkedMs } = await restartsAndChecksEveryAgent(dir);
    process.stderr.write(`[restart] after SIGKILL: /healthz in ${healthzMs} ms, every agent checked in ${checkedMs} ms\n`);
  });

  it(
    'stopped (SIGTERM): it exits promptly and cleanly, and the next run serves in under 30 s and checks every agent',
    { timeout: 600_000 },
    async () => {
      const { dir, exit, stopMs } = await interrupted('SIGTERM');
      expect(exit.code, `stdout: ${exit.stdout}\nstderr: ${exit.stderr}`).toBe(0);
      expect(stopMs).toBeLessThan(STOPPED_WITHIN_MS);
      // Every shutdown step finished in its time, and nothing was sent on a closed producer.
      expect(exit.stdout + exit.stderr).not.toMatch(/producer is closed|did not finish within/);
      // The stopped daily run recorded its own finish, as ended early.
      const [finish] = await sql(dir, "SELECT complete, note FROM runs FINAL WHERE kind = 'daily' AND phase = 'finish'");
      expect(Number(finish!.complete)).toBe(0);
      expect(String(finish!.note)).toMatch(/^ended early: stopped \(SIGTERM\)/);
      const { healthzMs, checkedMs } = await restartsAndChecksEveryAgent(dir);
      process.stderr.write(
        `[restart] after SIGTERM (stopped in ${stopMs} ms): /healthz in ${healthzMs} ms, every agent checked in ${checkedMs} ms\n`,
      );
    },
  );
});
