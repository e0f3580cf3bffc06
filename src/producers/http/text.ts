import type { Exchange } from './types.js';

export interface BodyText {
  /** The body as text (invalid sequences replaced by U+FFFD), or null when there was no response. */
  text: string | null;
  /** False when the body is not valid UTF-8. */
  validUtf8: boolean;
}

/**
 * Decodes a bounded body as UTF-8 for judging. Invalid UTF-8 is recorded (`validUtf8: false`)
 * and the text still returned with replacement characters. When the body was truncated, a
 * multi-byte sequence cut at the very end is not counted as invalid. A leading BOM is removed.
 */
export function textOrNull(input: Exchange | Buffer | Uint8Array, truncated = false): BodyText {
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
export function jsonObjectOrNull(input: Exchange | Buffer | Uint8Array): Record<string, unknown> | null {
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

/**
 * Parses a Retry-After value (delta-seconds or an HTTP date) into milliseconds from `now`.
 * Returns null when absent or unparseable; never negative.
 */
export function parseRetryAfter(value: string | undefined | null, now: number = Date.now()): number | null {
  if (value === undefined || value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 7 * 24 * 3600) * 1000;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - now);
}
