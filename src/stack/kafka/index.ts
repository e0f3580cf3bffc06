/**
 * The local Kafka broker: Apache Kafka in KRaft mode (one process is both broker and
 * controller), run from its Maven Central jars on the machine's Java; or a local cluster of
 * several such nodes (cluster.ts).
 *
 * Layout under <dataDir>/kafka/: server.properties, log4j2.xml, data/ (the log dirs),
 * server.log (the broker's own log), broker.out (JVM stdout/stderr), broker.pid and
 * broker.json (pid and ports of a running broker). Jars live in
 * <cacheDir>/kafka-<version>/libs, resolved by Maven from stack/kafka/pom.xml.
 *
 * jars.ts and java.ts find what the broker runs from, config.ts and storage.ts write its files,
 * supervise.ts, state.ts and ready.ts run and watch its process, broker.ts puts them in order;
 * cluster.ts does the same for several nodes under <dataDir>/kafka-cluster/.
 */
export { brokerStatus, startBroker, stopBroker, type BrokerHandle, type BrokerStatus, type StartBrokerOptions } from './broker.js';
export {
  clusterPaths,
  clusterStatus,
  MAX_CLUSTER_NODES,
  startCluster,
  stopCluster,
  type ClusterHandle,
  type ClusterNodeHandle,
  type ClusterNodeStatus,
  type ClusterStatus,
  type StartClusterOptions,
} from './cluster.js';
export { brokerPaths, newClusterId, replicasFor, serverProperties, type BrokerPaths } from './config.js';
export { ensureKafkaJars, findKafkaPom, kafkaLibsDir, kafkaVersion, type EnsureJarsOptions, type KafkaJars } from './jars.js';
export { findJava, type JavaRuntime } from './java.js';
export { canConnect, DEFAULT_BROKER_PORT, freePort } from './ports.js';
export { MissingToolError } from './tools.js';
