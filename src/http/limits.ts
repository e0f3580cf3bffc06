/**
 * Every bound the HTTP client applies, and the size bounds of the events producers write, in one
 * place. Sizes are in bytes (1 KB = 1024 bytes); body caps apply to DECODED bytes (after
 * gzip/deflate/br), so a compressed bomb stops at the cap.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/** An A2A agent card is read up to 512 KB (each step of the card chain). */
export const CARD_MAX_BYTES = 512 * KIB;

/** The MCP GET reads at most 2 KB, then closes the connection (truncation is the normal path). */
export const MCP_MAX_BYTES = 2 * KIB;

/** One page of a listing source. */
export const LISTING_PAGE_MAX_BYTES = 8 * MIB;

/** RFC 9728 protected-resource metadata documents (small JSON objects). */
export const METADATA_MAX_BYTES = 64 * KIB;

/** Response header block limit handed to undici (`maxHeaderSize`); larger → `headers_too_large`. */
export const MAX_HEADER_BYTES = 16 * KIB;

/** Total size (names + values) of the response headers kept on an Exchange. */
export const MAX_RECORDED_HEADER_BYTES = 16 * KIB;

/** A single recorded header value is cut to this many characters. */
export const MAX_RECORDED_HEADER_VALUE = 4 * KIB;

/**
 * The longest URL we request or keep (a listed endpoint or card URL, a probe target, a page URL):
 * 8 KB, a common server limit for the request line. A longer one is refused as `invalid_url`.
 * A redirect is followed only when its Location fits MAX_RECORDED_HEADER_VALUE (what we record).
 */
export const MAX_URL_CHARS = 8 * KIB;

/** Redirects followed by hand per fetch. */
export const MAX_REDIRECTS = 5;

/** Limit on one whole exchange: DNS + connect + TLS + headers + body. */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * After the MCP GET's headers arrive, the body is read for at most this long (or until 2 KB,
 * the end of the body, or the first complete SSE event), so a silent but healthy SSE stream
 * is an observation, not a timeout.
 */
export const MCP_BODY_WINDOW_MS = 2_000;

/**
 * Keep-alive: a connection whose answer was read to its end is kept open this long for the next
 * request to the same origin at the same checked address (a server's Keep-Alive hint shortens
 * it). Reuse saves a connect (and a TLS handshake) per request: a host is asked for robots.txt,
 * then its endpoints, then their metadata.
 */
export const KEEP_ALIVE_IDLE_MS = 4_000;

/** Idle kept-alive connections at most, over every origin (the longest idle closed first). */
export const IDLE_CONNECTIONS_MAX = 512;

/** Transient network errors are retried at most this many times per exchange. */
export const MAX_RETRIES = 3;

/** First retry delay; doubled for each further retry (500 ms, 1 s, 2 s). */
export const RETRY_BASE_DELAY_MS = 500;

/** After this many consecutive network failures a host is skipped for the rest of the run. */
export const HOST_FAILURE_LIMIT = 3;

/**
 * Compressed bytes read from the wire may exceed the decoded cap by at most this much before
 * the read stops (a compressed stream that never yields output cannot run forever). Generous,
 * because decoding lags the wire by the chunks in flight.
 */
export const WIRE_SLACK_BYTES = 1 * MIB;

/** Error messages recorded on an Exchange are cut to this many characters. */
export const MAX_ERROR_MESSAGE = 500;
