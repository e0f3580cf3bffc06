/**
 * vitest globalSetup: a Kafka broker for the tests.
 *
 * VERONIKAI_KAFKA_BROKERS set and answering: use it. Otherwise start the local single-node
 * broker (src/stack/kafka/) with its storage under the OS temp dir and the jars in
 * the default cache dir, and stop it at teardown. VERONIKAI_TEST_KAFKA=0 starts nothing.
 *
 * The broker starts in the background, so a run with no Kafka test does not wait for it;
 * Kafka tests wait through kafkaBrokers() in test/helpers/kafka.ts.
 *
 * Where a Docker engine answers (and no broker is given), Kafka and a current ClickHouse server come
 * from testcontainers instead (test/setup/containers.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { createKafka } from '../../src/kafka/client.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { canConnect, freePort, startBroker, type BrokerHandle } from '../../src/stack/kafka/index.js';
import { chooseServices, startContainerServices } from './containers.js';

async function answers(brokers: string): Promise<boolean> {
  const first = brokers.split(',')[0]?.trim() ?? '';
  const [host, port] = first.split(':');
  if (!host || !port || !(await canConnect(host, Number(port), 2000))) return false;
  const admin = createKafka({ brokers, clientId: 'veronikai-test-setup', logger: silentLogger, retry: { retries: 1 } }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.VERONIKAI_KAFKA_BROKERS?.trim();
  if (external) {
    if (await answers(external)) {
      project.provide('kafka', { brokers: external, external: true, statusFile: null });
      return undefined;
    }
    process.stderr.write(`[kafka setup] VERONIKAI_KAFKA_BROKERS=${external} does not answer; starting a local broker instead\n`);
  }
  if (process.env.VERONIKAI_TEST_KAFKA === '0') {
    project.provide('kafka', { brokers: '', external: false, statusFile: null, disabled: 'VERONIKAI_TEST_KAFKA=0' });
    return undefined;
  }
  // Where a Docker engine answers: Kafka and a current ClickHouse server from testcontainers (test/setup/containers.ts).
  const services = await chooseServices();
  project.provide('services', { ...services, clickhouseUrl: null });
  if (services.path === 'containers') {
    const c = await startContainerServices();
    project.provide('kafka', { brokers: c.brokers, external: false, statusFile: null });
    project.provide('services', { ...services, clickhouseUrl: c.clickhouseUrl });
    return () => c.stop();
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'veronikai-kafka-test-'));
  const statusFile = join(dataDir, 'status.json');
  const port = await freePort();
  const controllerPort = await freePort([port]);
  project.provide('kafka', { brokers: `127.0.0.1:${port}`, external: false, statusFile });

  const abort = new AbortController();
  const logger = createLogger('kafka-test-broker', { level: process.env.LOG_LEVEL ?? 'warn' });
  const started = Date.now();
  const starting: Promise<BrokerHandle | null> = startBroker({
    dataDir,
    cacheDir: loadConfig().cacheDir,
    port,
    controllerPort,
    logger,
    signal: abort.signal,
  }).then(
    (broker) => {
      writeFileSync(statusFile, JSON.stringify({ state: 'ready', ms: Date.now() - started }));
      return broker;
    },
    (err: unknown) => {
      writeFileSync(statusFile, JSON.stringify({ state: 'failed', error: (err as Error).message ?? String(err) }));
      return null;
    },
  );

  return async () => {
    abort.abort(); // a run that finished before the broker was up does not wait for it
    const broker = await starting;
    await broker?.stop(15_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
}
