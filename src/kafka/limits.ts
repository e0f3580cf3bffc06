/** The bounds of what one produce call sends. */

const KIB = 1024;

/**
 * Kafka refuses a record batch over its default `message.max.bytes` (1 MB, 1,048,588 bytes),
 * and one produce call makes one record batch per partition. The bounds below keep well under it.
 */
export const KAFKA_DEFAULT_MESSAGE_MAX_BYTES = 1_048_588;

/**
 * Encoded events (keys included) sent in one produce call at most; a larger set is sent in
 * several calls, in order. One event over it goes alone.
 */
export const PRODUCE_MAX_BYTES = 900 * KIB;

/** Per-record overhead counted against PRODUCE_MAX_BYTES (record framing, varints, timestamp). */
export const PRODUCE_RECORD_OVERHEAD_BYTES = 64;

/**
 * How long a produce call keeps retrying (kafkajs backoff, about 30 s in all). A lost broker's
 * partitions get new leaders only once the controller fences it (`broker.session.timeout.ms`,
 * 9 s by default) and elects others; a budget shorter than that fails writes a cluster would have
 * taken a moment later. Still bounded: a write that cannot succeed fails and its batch stays
 * uncommitted.
 */
export const PRODUCE_RETRY = { initialRetryTime: 200, retries: 12, maxRetryTime: 5000 } as const;
