import { describe, expect, it } from 'vitest';
import { wilson } from '../../src/stats/wilson.js';

describe('95% Wilson score interval', () => {
  it.each([
    // successes, trials, low, high (published values, 4 decimals)
    [5, 10, 0.2366, 0.7634],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [81, 263, 0.2553, 0.3662],
  ])('%i of %i → [%f, %f]', (x, n, low, high) => {
    const w = wilson(x, n);
    expect(w.share).toBeCloseTo(x / n, 10);
    expect(w.low!).toBeCloseTo(low, 4);
    expect(w.high!).toBeCloseTo(high, 4);
  });

  it('has no interval without trials', () => {
    expect(wilson(0, 0)).toEqual({ successes: 0, trials: 0, share: null, low: null, high: null });
  });
});
