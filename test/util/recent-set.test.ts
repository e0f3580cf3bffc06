import { describe, expect, it } from 'vitest';
import { RecentSet } from '../../src/util/recent-set.js';

describe('RecentSet', () => {
  it('keeps the last `capacity` keys, forgetting the oldest first', () => {
    const s = new RecentSet<string>(3);
    for (const k of ['a', 'b', 'c', 'd']) s.add(k);
    expect(['a', 'b', 'c', 'd'].map((k) => s.has(k))).toEqual([false, true, true, true]);
    expect(s.size).toBe(3);
  });

  it('counts a key added again as recent', () => {
    const s = new RecentSet<string>(2);
    s.add('a');
    s.add('b');
    s.add('a');
    s.add('c');
    expect([s.has('a'), s.has('b'), s.has('c')]).toEqual([true, false, true]);
  });

  it('refuses a capacity under one', () => {
    expect(() => new RecentSet(0)).toThrow(RangeError);
  });
});
