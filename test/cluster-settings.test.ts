/**
 * The settings of a cluster, without one: consumer sessions and heartbeats, replicas and
 * min.insync.replicas as configured or derived from the cluster's size, and each KRaft node's
 * server.properties.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, UsageError } from '../src/config.js';
import { brokerPathsIn, replicasFor, serverProperties } from '../src/stack/kafka/config.js';

describe('Kafka settings', () => {
  it('keeps sessions short by default and a heartbeat at most a third of the session', () => {
    expect(loadConfig({}, {}).kafka).toEqual({
      sessionTimeoutMs: 30_000,
      heartbeatIntervalMs: 3_000,
      replicationFactor: null,
      minInsyncReplicas: null,
    });
    expect(loadConfig({}, { VERONIKAI_KAFKA_SESSION_TIMEOUT: '45s', VERONIKAI_KAFKA_HEARTBEAT_INTERVAL: '5s' }).kafka).toMatchObject({
      sessionTimeoutMs: 45_000,
      heartbeatIntervalMs: 5_000,
    });
    // The broker refuses sessions under 6 s; a heartbeat of half the session loses the membership on one lost beat.
    expect(() => loadConfig({ kafkaSessionTimeout: '2s' }, {})).toThrow(/VERONIKAI_KAFKA_SESSION_TIMEOUT .* must be between 6s/);
    expect(() => loadConfig({ kafkaSessionTimeout: '12s', kafkaHeartbeatInterval: '6s' }, {})).toThrow(UsageError);
  });

  it('takes replicas and min.insync.replicas when configured, and refuses a minimum above the replicas', () => {
    expect(loadConfig({ kafkaReplicationFactor: '2', kafkaMinInsyncReplicas: '1' }, {}).kafka).toMatchObject({
      replicationFactor: 2,
      minInsyncReplicas: 1,
    });
    expect(() => loadConfig({ kafkaReplicationFactor: '2', kafkaMinInsyncReplicas: '3' }, {})).toThrow(/cannot exceed/);
    expect(() => loadConfig({ kafkaReplicationFactor: '0' }, {})).toThrow(UsageError);
  });

  it('derives min(3, nodes) replicas and min(2, replicas) in-sync replicas', () => {
    expect([1, 2, 3, 5].map(replicasFor)).toEqual([
      { replicas: 1, minInsync: 1 },
      { replicas: 2, minInsync: 2 },
      { replicas: 3, minInsync: 2 },
      { replicas: 3, minInsync: 2 },
    ]);
  });

  it('writes each node of a three-node cluster its own id, the whole quorum, and three-replica internal topics', () => {
    const voters = '1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097';
    const props = serverProperties(brokerPathsIn('/data/kafka-cluster/node-2'), 9094, 9095, { nodeId: 2, voters, size: 3 }).split('\n');
    for (const line of [
      'process.roles=broker,controller',
      'node.id=2',
      `controller.quorum.voters=${voters}`,
      'listeners=PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095',
      'offsets.topic.replication.factor=3',
      'transaction.state.log.replication.factor=3',
      'transaction.state.log.min.isr=2',
      'default.replication.factor=3',
      'min.insync.replicas=2',
      'log.dirs=/data/kafka-cluster/node-2/data',
    ]) {
      expect(props).toContain(line);
    }
  });
});
