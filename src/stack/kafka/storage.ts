/** The broker's files: its configuration, written at each start, and its storage, formatted once. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../log.js';
import { log4jXml, newClusterId, serverProperties, type BrokerPaths, type ClusterPlace } from './config.js';
import type { KafkaJars } from './jars.js';
import type { JavaRuntime } from './java.js';
import { outputTail, run } from './tools.js';

/** Writes server.properties and log4j2.xml, and formats the storage the first time. */
export async function prepareBrokerFiles(
  paths: BrokerPaths,
  port: number,
  controllerPort: number,
  java: JavaRuntime,
  jars: KafkaJars,
  logger: Logger,
  place?: ClusterPlace & { clusterId: string },
): Promise<void> {
  mkdirSync(paths.logDirs, { recursive: true });
  writeFileSync(paths.serverProperties, serverProperties(paths, port, controllerPort, place));
  writeFileSync(paths.log4jConfig, log4jXml(paths.serverLog));
  // A cluster's nodes are formatted with one cluster id; a single node makes its own.
  if (!isFormatted(paths)) await formatStorage(java, jars, paths, logger, place?.clusterId ?? newClusterId());
}

function isFormatted(paths: BrokerPaths): boolean {
  return existsSync(join(paths.logDirs, 'meta.properties'));
}

async function formatStorage(java: JavaRuntime, jars: KafkaJars, paths: BrokerPaths, logger: Logger, clusterId: string): Promise<void> {
  logger.info({ logDirs: paths.logDirs, clusterId }, 'formatting Kafka storage');
  const res = await run(java.path, [
    '-Xmx256m',
    `-Dlog4j2.configurationFile=${paths.log4jConfig}`,
    '-cp',
    jars.classpath,
    'kafka.tools.StorageTool',
    'format',
    '--cluster-id',
    clusterId,
    '--config',
    paths.serverProperties,
    '--ignore-formatted',
  ]);
  if (res.code !== 0) throw new Error(`formatting Kafka storage failed (exit ${res.code}):\n${outputTail(res, 10)}`);
}
