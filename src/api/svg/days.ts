/**
 * The day axis the charts share: UTC days as 'YYYY-MM-DD', oldest first, ending today, so
 * a chart always has one slot per day of its window whether or not the day has data.
 */

const DAY_MS = 86_400_000;

/** The `n` UTC days ending with `today` ('YYYY-MM-DD'), oldest first. */
export function dayRange(today: string, n: number): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  if (!Number.isFinite(end)) throw new Error(`dayRange: not a day: ${today}`);
  return Array.from({ length: n }, (_, i) => new Date(end - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** Today, UTC, as 'YYYY-MM-DD'. */
export const utcToday = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

/** Where to label a day axis of `n` days: about every `every` days, always the last (today). */
export function dayTicks(days: readonly string[], every: number): Array<{ x: number; label: string }> {
  const ticks: Array<{ x: number; label: string }> = [];
  for (let i = days.length - 1; i >= 0; i -= every) ticks.unshift({ x: i, label: days[i]!.slice(5) });
  return ticks;
}
