import kafkajs from 'kafkajs';
import type { Admin, Kafka } from 'kafkajs';
import { ALL_TOPICS, type TopicSpec } from '../topics.js';
import { silentLogger, type Logger } from '../log.js';
import { pollUntil, PollTimeoutError } from '../util/poll.js';

const { ConfigResourceTypes } = kafkajs;

export interface EnsureTopicsOptions {
  /** Which topics (default: every topic of the platform, ALL_TOPICS). */
  topics?: readonly TopicSpec[];
  /** Default: min(3, brokers). */
  replicationFactor?: number;
  /**
   * Each topic's min.insync.replicas: how many replicas must have a write before an acks=all
   * producer hears it is written. Default min(2, replication factor), so a cluster of three
   * loses a node without losing a write or refusing one.
   */
  minInsyncReplicas?: number;
  /**
   * Caps each topic's partition count (tests and tiny deployments: fewer partitions,
   * faster group rebalances). Key → partition contracts hold for any count.
   */
  maxPartitions?: number;
  /** Bring the config of an existing topic back to its spec when it drifted (default true). */
  fixConfigDrift?: boolean;
  /** How long to wait for new topics to have a leader on every partition (default 30 s). */
  timeoutMs?: number;
  logger?: Logger;
}

export interface EnsureTopicsResult {
  created: string[];
  existing: string[];
  /** Existing topics whose config was brought back to the spec. */
  reconfigured: string[];
  /** Problems that need a human: e.g. an existing topic with fewer partitions than its spec. */
  warnings: string[];
}

/** The spec's partition count after the optional cap. */
export function partitionsFor(spec: TopicSpec, maxPartitions?: number): number {
  return maxPartitions ? Math.max(1, Math.min(spec.partitions, maxPartitions)) : spec.partitions;
}

/**
 * Creates every topic explicitly (the broker never auto-creates: auto.create.topics.enable
 * is off), with its partitions and config. Idempotent: topics that exist are left alone,
 * except that config which drifted from the spec is set back. Safe to run concurrently
 * with another instance (a create race ends as "existing").
 */
export async function ensureTopics(kafka: Kafka, prefix = '', opts: EnsureTopicsOptions = {}): Promise<EnsureTopicsResult> {
  const logger = opts.logger ?? silentLogger;
  const specs = opts.topics ?? ALL_TOPICS;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const replicationFactor = opts.replicationFactor ?? (await defaultReplicationFactor(admin));
    const minInsync = String(opts.minInsyncReplicas ?? Math.min(DEFAULT_MIN_INSYNC_REPLICAS, replicationFactor));
    if (Number(minInsync) > replicationFactor)
      throw new Error(
        `min.insync.replicas ${minInsync} exceeds the replication factor ${replicationFactor}: no write could be acknowledged`,
      );
    const configOf = (spec: TopicSpec): Record<string, string> => ({ 'min.insync.replicas': minInsync, ...spec.config });
    const present = new Set(await admin.listTopics());
    const wanted = specs.map((spec) => ({ spec, name: prefix + spec.name }));
    const missing = wanted.filter((w) => !present.has(w.name));
    const result: EnsureTopicsResult = { created: [], existing: [], reconfigured: [], warnings: [] };

    if (missing.length > 0) {
      try {
        await admin.createTopics({
          // kafkajs' own wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker answers
          // until the new topic's metadata reached it; waitForLeaders() below retries that.
          waitForLeaders: false,
          topics: missing.map(({ spec, name }) => ({
            topic: name,
            numPartitions: partitionsFor(spec, opts.maxPartitions),
            replicationFactor,
            configEntries: Object.entries(configOf(spec)).map(([k, v]) => ({ name: k, value: v })),
          })),
        });
      } catch (err) {
        // Another process may have created some of them in between: re-check below.
        if ((err as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw err;
      }
      await waitForLeaders(
        admin,
        missing.map((m) => m.name),
        opts.timeoutMs ?? 30_000,
      );
      result.created.push(...missing.map((m) => m.name));
      logger.info({ topics: result.created, replicationFactor }, 'created Kafka topics');
    }

    const existing = wanted.filter((w) => present.has(w.name));
    result.existing.push(...existing.map((e) => e.name));
    if (existing.length > 0) {
      await checkExisting(
        admin,
        existing.map((e) => ({ ...e, config: configOf(e.spec) })),
        opts,
        result,
        logger,
      );
    }
    return result;
  } finally {
    await admin.disconnect();
  }
}

const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER']);

/** Waits until every partition of the topics has a leader. */
async function waitForLeaders(admin: Admin, names: string[], timeoutMs: number): Promise<void> {
  try {
    await pollUntil(
      `topics ${names.join(', ')}`,
      async () => {
        try {
          const { topics } = await admin.fetchTopicMetadata({ topics: names });
          const leaderless = topics.filter((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0));
          if (leaderless.length === 0 && topics.length === names.length) return { done: true, value: undefined };
          return { done: false, why: `no leader yet for ${leaderless.map((t) => t.name).join(', ') || 'some topics'}` };
        } catch (err) {
          const type = (err as { type?: string }).type ?? '';
          if (!NOT_YET.has(type)) throw err;
          return { done: false, why: type };
        }
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (err) {
    if (err instanceof PollTimeoutError)
      throw new Error(`topics not ready after ${timeoutMs} ms (${err.last}): ${names.join(', ')}`, { cause: err });
    throw err;
  }
}

/** Replicas of a topic unless configured: three, or every broker of a smaller cluster. */
export const DEFAULT_REPLICATION_FACTOR = 3;
/** Replicas a write needs unless configured: two, or the replication factor when smaller. */
export const DEFAULT_MIN_INSYNC_REPLICAS = 2;

async function defaultReplicationFactor(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  return Math.max(1, Math.min(DEFAULT_REPLICATION_FACTOR, brokers.length));
}

async function checkExisting(
  admin: Admin,
  existing: { spec: TopicSpec; name: string; config: Record<string, string> }[],
  opts: EnsureTopicsOptions,
  result: EnsureTopicsResult,
  logger: Logger,
): Promise<void> {
  const meta = await admin.fetchTopicMetadata({ topics: existing.map((e) => e.name) });
  const partitionCount = new Map(meta.topics.map((t) => [t.name, t.partitions.length]));
  for (const { spec, name } of existing) {
    const have = partitionCount.get(name) ?? 0;
    const want = partitionsFor(spec, opts.maxPartitions);
    if (have < want) {
      // Adding partitions moves keys to other partitions: an operator's decision, not ours.
      const msg = `topic ${name} has ${have} partitions, its spec wants ${want}`;
      result.warnings.push(msg);
      logger.warn({ topic: name, have, want }, msg);
    }
  }

  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: existing.map((e) => ({ type: ConfigResourceTypes.TOPIC, name: e.name })),
  });
  const byName = new Map(described.resources.map((r) => [r.resourceName, r]));
  const toAlter: { name: string; entries: Record<string, string> }[] = [];
  for (const { name, config } of existing) {
    const res = byName.get(name);
    if (!res) continue;
    const current = new Map(res.configEntries.map((c) => [c.configName, c]));
    const drift = Object.entries(config).filter(([k, v]) => current.get(k)?.configValue !== v);
    if (drift.length === 0) continue;
    if (opts.fixConfigDrift === false) {
      const msg = `topic ${name} config differs from its spec: ${drift.map(([k]) => k).join(', ')}`;
      result.warnings.push(msg);
      logger.warn({ topic: name }, msg);
      continue;
    }
    // AlterConfigs replaces the topic's whole dynamic config: keep what was set, overlay the spec.
    const entries: Record<string, string> = {};
    for (const c of res.configEntries) {
      if (!c.isDefault && !c.readOnly && c.configSource === 1 /* DYNAMIC_TOPIC_CONFIG */) entries[c.configName] = c.configValue;
    }
    Object.assign(entries, config);
    toAlter.push({ name, entries });
  }
  if (toAlter.length > 0) {
    await admin.alterConfigs({
      validateOnly: false,
      resources: toAlter.map((t) => ({
        type: ConfigResourceTypes.TOPIC,
        name: t.name,
        configEntries: Object.entries(t.entries).map(([k, v]) => ({ name: k, value: v })),
      })),
    });
    // The broker serves the new values once the change reached its metadata log: wait for that,
    // so that the config is in effect when ensureTopics returns.
    await waitForConfig(admin, toAlter, opts.timeoutMs ?? 30_000);
    result.reconfigured.push(...toAlter.map((t) => t.name));
    logger.warn({ topics: result.reconfigured }, 'set drifted topic config back to its spec');
  }
}

/** Waits until the broker serves every altered entry with its new value. */
async function waitForConfig(admin: Admin, altered: { name: string; entries: Record<string, string> }[], timeoutMs: number): Promise<void> {
  try {
    await pollUntil(
      `config of ${altered.map((t) => t.name).join(', ')}`,
      async () => {
        const now = await admin.describeConfigs({
          includeSynonyms: false,
          resources: altered.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name })),
        });
        const pending = altered.filter((t) => {
          const res = now.resources.find((r) => r.resourceName === t.name);
          return Object.entries(t.entries).some(([k, v]) => res?.configEntries.find((c) => c.configName === k)?.configValue !== v);
        });
        return pending.length === 0 ? { done: true, value: undefined } : { done: false, why: pending.map((t) => t.name).join(', ') };
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (err) {
    if (err instanceof PollTimeoutError) throw new Error(`config change not in effect after ${timeoutMs} ms: ${err.last}`, { cause: err });
    throw err;
  }
}

/** Deletes every topic whose name starts with `prefix` (test clean-up; refuses an empty prefix). */
export async function deleteTopicsWithPrefix(kafka: Kafka, prefix: string): Promise<string[]> {
  if (!prefix) throw new Error('refusing to delete topics without a prefix');
  const admin = kafka.admin();
  await admin.connect();
  try {
    const names = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (names.length > 0) await admin.deleteTopics({ topics: names });
    return names;
  } finally {
    await admin.disconnect();
  }
}
