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
