/**
 * The switch between the two ways a test run gets its services.
 *
 * Where a Docker engine answers, testcontainers starts Kafka (the apache/kafka image of the
 * version stack/kafka/pom.xml pins, KRaft, one node) and a current ClickHouse server, so the
 * server adapter runs the whole schema (Debian's 18.16 cannot). Elsewhere the native path: the
 * local broker from its Maven jars (test/setup/kafka.ts) and no current server. The choice and
 * its reason are handed to the tests (`inject('services')`).
 *
 * VERONIKAI_TEST_CONTAINERS=0 forces the native path.
 */
import { freePort, kafkaVersion } from '../../src/stack/kafka/index.js';

export type ServicesChoice = { path: 'containers'; why: string } | { path: 'native'; why: string };

/** How long to wait for a Docker engine to answer before taking the native path. */
const DOCKER_PROBE_TIMEOUT_MS = 15_000;

export async function chooseServices(env: NodeJS.ProcessEnv = process.env): Promise<ServicesChoice> {
  if (env.VERONIKAI_TEST_CONTAINERS === '0') return { path: 'native', why: 'VERONIKAI_TEST_CONTAINERS=0' };
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    let timer: NodeJS.Timeout | undefined;
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${DOCKER_PROBE_TIMEOUT_MS} ms`)), DOCKER_PROBE_TIMEOUT_MS)),
      ),
    ]).finally(() => clearTimeout(timer));
    return { path: 'containers', why: `a Docker engine answers (${client.info.containerRuntime.host})` };
  } catch (err) {
    const first = ((err as Error)?.message ?? String(err)).split('\n')[0];
    return { path: 'native', why: `no Docker engine answers (${first})` };
  }
}

export interface ContainerServices {
  brokers: string;
  clickhouseUrl: string;
  stop(): Promise<void>;
}

/** Kafka and ClickHouse in containers; Kafka advertises a fixed host port, so clients reach it as 127.0.0.1:<port>. */
export async function startContainerServices(): Promise<ContainerServices> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const port = await freePort();
  const kafkaStarting = new GenericContainer(`apache/kafka:${kafkaVersion()}`)
    .withExposedPorts({ container: 9092, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  const clickhouseStarting = new GenericContainer('clickhouse/clickhouse-server:25.8')
    .withExposedPorts(8123)
    .withEnvironment({ CLICKHOUSE_SKIP_USER_SETUP: '1' })
    .withWaitStrategy(Wait.forHttp('/ping', 8123))
    .start();
  const [kafka, clickhouse] = await Promise.allSettled([kafkaStarting, clickhouseStarting]);
  if (kafka.status === 'rejected' || clickhouse.status === 'rejected') {
    for (const c of [kafka, clickhouse]) if (c.status === 'fulfilled') await c.value.stop().catch(() => undefined);
    throw (kafka.status === 'rejected' ? kafka.reason : (clickhouse as PromiseRejectedResult).reason) as Error;
  }
  return {
    brokers: `127.0.0.1:${port}`,
    clickhouseUrl: `http://${clickhouse.value.getHost()}:${clickhouse.value.getMappedPort(8123)}`,
    stop: async () => {
      await Promise.all([kafka.value.stop(), clickhouse.value.stop()]);
    },
  };
}
