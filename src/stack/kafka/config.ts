/** Where a broker keeps its files under a data dir, and the configuration files written there at each start. */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { HOST } from './ports.js';

export interface BrokerPaths {
  dir: string;
  serverProperties: string;
  log4jConfig: string;
  logDirs: string;
  serverLog: string;
  stdoutLog: string;
  pidFile: string;
  stateFile: string;
}

/** The single-node broker of a data dir: <dataDir>/kafka. */
export function brokerPaths(dataDir: string): BrokerPaths {
  return brokerPathsIn(join(resolve(dataDir), 'kafka'));
}

/** A broker's files in its own directory (a cluster's nodes each have one). */
export function brokerPathsIn(dir: string): BrokerPaths {
  return {
    dir,
    serverProperties: join(dir, 'server.properties'),
    log4jConfig: join(dir, 'log4j2.xml'),
    logDirs: join(dir, 'data'),
    serverLog: join(dir, 'server.log'),
    stdoutLog: join(dir, 'broker.out'),
    pidFile: join(dir, 'broker.pid'),
    stateFile: join(dir, 'broker.json'),
  };
}

/** Where a node sits in its cluster: its id, every controller of the quorum, and how many nodes there are. */
export interface ClusterPlace {
  nodeId: number;
  /** `id@host:controllerPort` of every voter, comma-separated. */
  voters: string;
  size: number;
}

/** Copies of each internal record a cluster of `size` nodes keeps, and how many a write needs. */
export function replicasFor(size: number): { replicas: number; minInsync: number } {
  const replicas = Math.max(1, Math.min(3, size));
  return { replicas, minInsync: Math.min(2, replicas) };
}

export function serverProperties(paths: BrokerPaths, port: number, controllerPort: number, place?: ClusterPlace): string {
  // Default: one process is the whole cluster (a static quorum of one).
  const { nodeId, voters, size } = place ?? { nodeId: 1, voters: `1@${HOST}:${controllerPort}`, size: 1 };
  const { replicas, minInsync } = replicasFor(size);
  const settings: [string, string | number][] = [
    // KRaft, combined mode: every node is a broker and a voter of the controller quorum.
    ['process.roles', 'broker,controller'],
    ['node.id', nodeId],
    ['controller.quorum.voters', voters],
    ['listeners', `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`],
    ['advertised.listeners', `PLAINTEXT://${HOST}:${port}`],
    ['controller.listener.names', 'CONTROLLER'],
    ['inter.broker.listener.name', 'PLAINTEXT'],
    ['listener.security.protocol.map', 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT'],
    ['log.dirs', paths.logDirs],
    // Internal topics as the platform's: min(3, nodes) replicas, a write needs min(2, replicas).
    ['offsets.topic.replication.factor', replicas],
    ['transaction.state.log.replication.factor', replicas],
    ['transaction.state.log.min.isr', minInsync],
    ['share.coordinator.state.topic.replication.factor', replicas],
    ['share.coordinator.state.topic.min.isr', minInsync],
    ['default.replication.factor', replicas],
    ['min.insync.replicas', minInsync],
    // Small and quick on a two-core machine.
    ['offsets.topic.num.partitions', 5],
    ['transaction.state.log.num.partitions', 5],
    ['num.partitions', 1],
    ['num.network.threads', 2],
    ['num.io.threads', 4],
    ['num.recovery.threads.per.data.dir', 1],
    ['group.initial.rebalance.delay.ms', 0],
    // Topics are created explicitly with their partitions and retention (src/kafka/topics-admin.ts).
    ['auto.create.topics.enable', 'false'],
    ['delete.topic.enable', 'true'],
  ];
  return (
    '# Written by `veronikai stack up`; rewritten at each start.\n' +
    settings.map(([k, v]) => `${k}=${String(v).replace(/\\/g, '\\\\')}`).join('\n') +
    '\n'
  );
}

export function log4jXml(serverLog: string): string {
  const file = serverLog.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by veronikai stack up: the broker logs to a size-capped file. -->
<Configuration status="warn">
  <Appenders>
    <RollingFile name="file" fileName="${file}" filePattern="${file}.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy max="3"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Logger name="kafka.request.logger" level="warn"/>
    <Logger name="org.apache.kafka.controller" level="info"/>
    <Logger name="state.change.logger" level="warn"/>
    <Root level="info"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
`;
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
