import { describe, expect, it } from 'vitest';
import { settleAll } from '../../src/util/settle.js';

describe('settleAll', () => {
  it('resolves with every value, in order', async () => {
    await expect(settleAll([Promise.resolve(1), new Promise<number>((r) => setTimeout(() => r(2), 5))])).resolves.toEqual([1, 2]);
  });

  it('throws the first failure only once every piece of work has ended', async () => {
    let slowEnded = false;
    const slow = new Promise<void>((r) =>
      setTimeout(() => {
        slowEnded = true;
        r();
      }, 20),
    );
    const first = new Error('first');
    await expect(settleAll([slow, Promise.reject(first), Promise.reject(new Error('second'))])).rejects.toBe(first);
    expect(slowEnded).toBe(true);
  });
});
