/**
 * Long-running roles spawned as a supervisor runs them, stopped with SIGTERM: they must exit
 * promptly and cleanly, not linger on a pending `--every` timer or a consumer left running.
 * They use the test broker's unprefixed topics (the CLI has no topic prefix), and a data
 * directory of their own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { crawlOnce } from '../../src/runtime/crawl.js';
import { startPlatform, type Platform } from '../../src/runtime/platform.js';
import { runCli, spawnCli, type CliResult, type SpawnedCli } from '../helpers/cli.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { kafkaBrokers, testLogger, uniqueTopicPrefix } from '../helpers/kafka.js';
import { TEST_SIGNING_KEY } from '../helpers/signing.js';

/** How long a stopped role may take to exit: closing Kafka clients and the warehouse, well short of any --every. */
const PROMPT_MS = 10_000;

let brokers: string;
let registry: FixtureRegistry;
const dirs: string[] = [];
const spawned: SpawnedCli[] = [];

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-lifecycle-'));
  dirs.push(dir);
  return dir;
}

/** Sends SIGTERM and waits at most PROMPT_MS for the exit (null: still running, then killed). */
async function terminate(cli: SpawnedCli): Promise<{ result: CliResult | null; ms: number }> {
  const started = Date.now();
  cli.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([cli.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), PROMPT_MS)))]);
  clearTimeout(timer);
  return { result, ms: Date.now() - started };
}

beforeAll(async () => {
  brokers = await kafkaBrokers();
  registry = await startFixtureRegistry([
    entry('io.github.lifecycle/remote', { remoteUrl: 'https://lifecycle.example/mcp' }),
    entry('io.github.lifecycle/local', { remoteUrl: null }),
  ]);
});

afterAll(async () => {
  for (const cli of spawned) if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  await registry?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('long-running roles stop on SIGTERM', () => {
  it('crawl --every 1h: SIGTERM while it waits for the next pass ends it at once, exit 0', async () => {
    const cli = spawnCli(
      ['crawl', '--every', '1h', '--source', 'mcp-registry', '--source-url', `mcp-registry=${registry.url}`, '--brokers', brokers],
      { VERONIKAI_DATA_DIR: dataDir() },
    );
    spawned.push(cli);
    await cli.waitForStdout(/^mcp-registry \(full\): .*, complete/m);
    const { result, ms } = await terminate(cli);
    expect(result, `still running ${PROMPT_MS} ms after SIGTERM\nstdout: ${cli.stdout}\nstderr: ${cli.stderr}`).not.toBeNull();
    expect(result!.code, result!.stderr).toBe(0);
    expect(ms).toBeLessThan(PROMPT_MS);
  }, 90_000);

  it('process all: SIGTERM once it is processing stops every consumer, exit 0', async () => {
    const env = { VERONIKAI_DATA_DIR: dataDir() };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const cli = spawnCli(['process', 'all', '--brokers', brokers], env);
    spawned.push(cli);
    await cli.waitForStdout(/^processing: /m);
    const { result, ms } = await terminate(cli);
    expect(result, `still running ${PROMPT_MS} ms after SIGTERM\nstdout: ${cli.stdout}\nstderr: ${cli.stderr}`).not.toBeNull();
    expect(result!.code, result!.stderr).toBe(0);
    expect(ms).toBeLessThan(PROMPT_MS);
  }, 120_000);
});

describe('the platform of `run`', () => {
  let platform: Platform | undefined;
  afterAll(async () => {
    await platform?.close();
  });

  it('reports a processor that stopped on a failure through `failed`', async () => {
    const log = testLogger('lifecycle');
    const config = loadConfig({ dataDir: dataDir(), brokers, sourceUrl: [`mcp-registry=${registry.url}`] }, {});
    // One retry: the default backoff of minutes is for a warehouse that comes back.
    platform = await startPlatform(config, {
      log,
      api: false,
      probes: false,
      topicPrefix: uniqueTopicPrefix(import.meta.url),
      sign: TEST_SIGNING_KEY,
      sinkRetries: 1,
    });
    let settled = false;
    void platform.failed.then(() => (settled = true));
    // Nothing has failed yet: `failed` settles on a failure only.
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    // Every write to the warehouse fails from now on: the processors' sinks give up after their retries
    // (which may be before or after the crawl below finishes: the crawl itself does not write the warehouse).
    platform.warehouse.insert = () => Promise.reject(new Error('warehouse unreachable'));
    const [summary] = await crawlOnce(config, platform.sink, log, { sources: ['mcp-registry'] });
    expect(summary).toMatchObject({ complete: true, items: 2 });
    const err = await platform.failed;
    expect(err.message).toMatch(/^consumer group \S+ stopped on a failure: .*warehouse unreachable/);
  }, 90_000);
});
