/**
 * 95% Wilson score interval for a binomial proportion (Methods §5). The same
 * formula backs the views v_daily_rollups__v1 and __v2; this one serves per-run figures.
 */
export const Z95 = 1.959963984540054;

export interface Proportion {
  /** Successes and trials the share is computed from. */
  successes: number;
  trials: number;
  share: number | null;
  low: number | null;
  high: number | null;
}

export function wilson(successes: number, trials: number, z = Z95): Proportion {
  if (trials <= 0) return { successes, trials, share: null, low: null, high: null };
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denom;
  return { successes, trials, share: p, low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
