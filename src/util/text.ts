/**
 * Decoding bounded response bodies for reading and judging. Pure; below every role, so the
 * producers that fetch bodies and the processors that judge them decode them alike.
 */

export interface BodyText {
  /** The body as text (invalid sequences replaced by U+FFFD), or null when there was no response. */
  text: string | null;
  /** False when the body is not valid UTF-8. */
  validUtf8: boolean;
}

/** What a recorded exchange offers to decode: no status means there was no response. */
export interface RecordedBody {
  status: number | null;
  body: Uint8Array;
  bodyTruncated: boolean;
}

/**
 * Decodes a bounded body as UTF-8 for judging. Invalid UTF-8 is recorded (`validUtf8: false`)
 * and the text still returned with replacement characters. When the body was truncated, a
 * multi-byte sequence cut at the very end is not counted as invalid. A leading BOM is removed.
 */
export function textOrNull(input: RecordedBody | Uint8Array, truncated = false): BodyText {
  let bytes: Uint8Array;
  if (input instanceof Uint8Array) {
    bytes = input;
  } else {
    if (input.status === null) return { text: null, validUtf8: false };
    bytes = input.body;
    truncated = truncated || input.bodyTruncated;
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
    return { text, validUtf8: true };
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), validUtf8: false };
  }
}

/**
 * Parses a body as a JSON object (not an array, not a scalar). Returns null on anything else.
 * Defensive: the input is untrusted and already bounded by the client.
 */
export function jsonObjectOrNull(input: RecordedBody | Uint8Array): Record<string, unknown> | null {
  const { text } = textOrNull(input);
  if (text === null || text.trim() === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    return null;
  }
  return null;
}
