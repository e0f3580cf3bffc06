/**
 * Event-size limits: what producers may write and what the codec agrees to decode.
 * One place for both, so a consumer never refuses what a producer was allowed to write.
 */
const KIB = 1024;

/**
 * The largest ENCODED event (Avro single-object encoding: marker, fingerprint, body). Producers
 * keep under it (a probe event sheds redirect-hop headers, then bodies; listing fields are capped,
 * see src/producers/sources/limits.ts); Kafka refuses a record batch over its default
 * `message.max.bytes` (1 MB). The codec refuses to decode a larger message ('too_large').
 */
export const EVENT_MAX_BYTES = 900 * KIB;

/**
 * Array and map items that take no bytes at all (null, an empty record, fixed(0)) one message
 * may declare, in total. Every other item takes at least one byte, so the bytes that remain
 * bound it; these are bound by nothing but this cap.
 */
export const DECODE_EMPTY_ITEMS_MAX = 4096;

/**
 * Nesting (records, arrays, maps, unions inside each other) one message may reach. Only a
 * recursive schema can nest deeper than its own shape; the cap keeps the bounds check (and
 * avsc after it) well inside the call stack.
 */
export const DECODE_MAX_DEPTH = 64;
