import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError, loadConfig } from '../../src/config.js';
import { createKafka } from '../../src/kafka/client.js';
import { silentLogger } from '../../src/log.js';
import {
  MissingToolError,
  brokerPaths,
  brokerStatus,
  ensureKafkaJars,
  findJava,
  freePort,
  kafkaVersion,
  serverProperties,
  stopBroker,
} from '../../src/stack/kafka/index.js';

const run = promisify(execFile);
const cli = (args: string[]) =>
  run(process.execPath, ['bin/veronikai.js', ...args], { env: { ...process.env, LOG_LEVEL: 'warn' } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('local Kafka broker', () => {
  const dirs: string[] = [];
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'veronikai-broker-test-'));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const d of dirs) {
      await stopBroker({ dataDir: d, timeoutMs: 10_000 }).catch(() => null);
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('says in one line what to install when java or mvn is missing', async () => {
    expect(() => findJava({ PATH: '/nonexistent' })).toThrow(MissingToolError);
    expect(() => findJava({ PATH: '/nonexistent' })).toThrow(/java not found: .*Java 17\+.*install/);
    expect(findJava().major).toBeGreaterThanOrEqual(17);
    const err = await ensureKafkaJars({ cacheDir: tmp(), env: { PATH: '/nonexistent' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^mvn not found: .*install Maven/);
    expect((err as Error).message).not.toContain('\n');
  });

  it('writes single-node KRaft settings', () => {
    const props = serverProperties(brokerPaths('/data'), 9092, 9093);
    for (const line of [
      'process.roles=broker,controller',
      'controller.quorum.voters=1@127.0.0.1:9093',
      'listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      'log.dirs=/data/kafka/data',
    ]) {
      expect(props.split('\n')).toContain(line);
    }
  });

  it('stack down takes its --timeout as a duration, as every other command does', async () => {
    const dataDir = tmp();
    const bare = await cli(['stack', 'down', '--data-dir', dataDir, '--timeout', '30']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--timeout expects a duration such as 250ms, 30s/);
    const none = await cli(['stack', 'down', '--data-dir', dataDir, '--timeout', '5s']);
    expect(none).toMatchObject({ code: 0, stdout: 'Kafka broker was not running\n' });
  });

  it('stack up starts a detached broker, status reports it, stack down stops it', async () => {
    const dataDir = tmp();
    const cacheDir = loadConfig().cacheDir;
    // The controller listens on port + 1, which another process's connection may hold (a free port
    // is only free when picked): on "Address already in use", other ports, as a user would.
    let port = 0;
    let up: Awaited<ReturnType<typeof cli>> | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      port = await freePort();
      up = await cli(['stack', 'up', '--data-dir', dataDir, '--cache-dir', cacheDir, '--port', String(port)]);
      if (!/Address already in use/.test(up.stderr)) break;
    }
    up = up!;
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Kafka ${kafkaVersion()} broker listening on 127.0.0.1:${port}`);

    const status = await brokerStatus({ dataDir });
    expect(status).toMatchObject({ running: true, reachable: true, port, brokers: `127.0.0.1:${port}`, version: kafkaVersion() });
    const admin = createKafka({ brokers: `127.0.0.1:${port}`, clientId: 'broker-test', logger: silentLogger }).admin();
    await admin.connect();
    expect((await admin.describeCluster()).brokers).toHaveLength(1);
    await admin.disconnect();

    const again = await cli(['stack', 'up', '--data-dir', dataDir, '--port', String(port)]);
    expect(again.stdout).toContain('already running');

    const down = await cli(['stack', 'down', '--data-dir', dataDir, '--timeout', '20s']);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`Kafka broker stopped (pid ${status.pid})`);
    const after = await cli(['stack', 'status', '--data-dir', dataDir]);
    expect(after.code).toBe(3);
    expect(after.stdout).toContain('not running');
  }, 90_000);
});
