/**
 * Every Kafka topic of the platform, in one place. Observation topics are what
 * a replay reads, so they are kept indefinitely (retention.ms = -1).
 */
export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  /** What the message key is; documents the partitioning contract. */
  readonly key: string;
  readonly config: Readonly<Record<string, string>>;
}

const KEEP_FOREVER = { 'retention.ms': '-1', 'retention.bytes': '-1' } as const;
/** Compacted: one message per key survives, forever (a key's content never changes: it is its hash). */
const KEEP_LATEST_PER_KEY = { 'cleanup.policy': 'compact', 'retention.ms': '-1', 'retention.bytes': '-1' } as const;

export const TOPICS = {
  sourceFetches: { name: 'source-fetches', partitions: 3, key: 'source', config: KEEP_FOREVER },
  listings: { name: 'listings', partitions: 6, key: 'source + item id', config: KEEP_FOREVER },
  probeRequests: {
    name: 'probe-requests',
    partitions: 6,
    key: 'site (registrable domain)',
    // Requests are instructions, not observations: a week is plenty to drain them.
    config: { 'retention.ms': String(7 * 24 * 3600 * 1000) },
  },
  probes: { name: 'probes', partitions: 6, key: 'agent key', config: KEEP_FOREVER },
  // The documents probes judged (cards, metadata), named by hash from the probe events: a replay reads them.
  documents: { name: 'documents', partitions: 6, key: 'SHA-256 of the document', config: KEEP_LATEST_PER_KEY },
  // Derived from probes, listings and disputes, and kept: feeds and webhooks read it.
  agentChanges: { name: 'agent-changes', partitions: 3, key: 'agent key', config: KEEP_FOREVER },
  // The final outcome of each webhook delivery (src/webhooks): the delivery log, kept like the changes it answers.
  webhookDeliveries: { name: 'webhook-deliveries', partitions: 3, key: 'subscription id', config: KEEP_FOREVER },
  // Owners' disputes as the operator recorded them (Methods §9): the corrections log is derived from them.
  disputes: { name: 'disputes', partitions: 3, key: 'agent key', config: KEEP_FOREVER },
  canary: { name: 'canary', partitions: 1, key: 'target', config: KEEP_FOREVER },
  runs: { name: 'runs', partitions: 1, key: 'run id', config: KEEP_FOREVER },
  deadLetters: {
    name: 'dead-letters',
    partitions: 1,
    key: 'origin topic',
    config: KEEP_FOREVER,
  },
} as const satisfies Record<string, TopicSpec>;

export type TopicKey = keyof typeof TOPICS;
export const ALL_TOPICS: readonly TopicSpec[] = Object.values(TOPICS);

/**
 * Resolved topic names for one deployment. A namespace prefix lets several
 * deployments (or test suites) share one broker without sharing topics.
 */
export type TopicNames = { readonly [K in TopicKey]: string };

export function topicNames(prefix = ''): TopicNames {
  const out = {} as Record<TopicKey, string>;
  for (const [k, spec] of Object.entries(TOPICS) as [TopicKey, TopicSpec][]) out[k] = prefix + spec.name;
  return out;
}
