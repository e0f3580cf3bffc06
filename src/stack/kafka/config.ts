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

export function brokerPaths(dataDir: string): BrokerPaths {
  const dir = join(resolve(dataDir), 'kafka');
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

export function serverProperties(paths: BrokerPaths, port: number, controllerPort: number): string {
  const settings: [string, string | number][] = [
    // KRaft, combined mode: this one process is the whole cluster (static quorum of one).
    ['process.roles', 'broker,controller'],
    ['node.id', 1],
    ['controller.quorum.voters', `1@${HOST}:${controllerPort}`],
    ['listeners', `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`],
    ['advertised.listeners', `PLAINTEXT://${HOST}:${port}`],
    ['controller.listener.names', 'CONTROLLER'],
    ['inter.broker.listener.name', 'PLAINTEXT'],
    ['listener.security.protocol.map', 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT'],
    ['log.dirs', paths.logDirs],
    // One broker: every internal topic has one replica.
    ['offsets.topic.replication.factor', 1],
    ['transaction.state.log.replication.factor', 1],
    ['transaction.state.log.min.isr', 1],
    ['share.coordinator.state.topic.replication.factor', 1],
    ['share.coordinator.state.topic.min.isr', 1],
    ['default.replication.factor', 1],
    ['min.insync.replicas', 1],
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
