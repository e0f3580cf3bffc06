/**
 * A Kafka error worth trying again after a moment: kafkajs marks it retriable (a lost broker, a
 * moving leader or coordinator, a timed-out request), or its own retries ran out on one. A
 * cluster's leaders move within seconds of a lost node, often longer than kafkajs's retries of
 * one call last. Not an error of ours that merely wraps one of kafkajs's.
 */
export function isTransientKafkaError(err: unknown): boolean {
  const e = err as { name?: unknown; retriable?: unknown } | null;
  if (typeof e?.name !== 'string' || !e.name.startsWith('KafkaJS')) return false;
  return e.retriable === true || e.name === 'KafkaJSNumberOfRetriesExceeded';
}
