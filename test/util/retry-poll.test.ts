import { describe, expect, it } from 'vitest';
import { pollUntil, PollTimeoutError } from '../../src/util/poll.js';
import { backoffDelay, retry } from '../../src/util/retry.js';
import { sleepUnlessAborted } from '../../src/util/time.js';

describe('retry with jittered backoff', () => {
  it('waits between half and all of base·2^n, capped', () => {
    expect(backoffDelay(0, { baseMs: 100, random: () => 0 })).toBe(50);
    expect(backoffDelay(0, { baseMs: 100, random: () => 0.999999 })).toBe(100);
    expect(backoffDelay(3, { baseMs: 100, random: () => 0.5 })).toBe(600);
    expect(backoffDelay(20, { baseMs: 100, maxMs: 1000, random: () => 1 })).toBe(1000);
  });

  it('retries a throwing call up to its budget, then throws the last error', async () => {
    const waits: number[] = [];
    let calls = 0;
    const failing = retry(
      async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      },
      { retries: 3, baseMs: 10, random: () => 0, sleep: async (ms) => void waits.push(ms) },
    );
    await expect(failing).rejects.toThrow('boom 4');
    expect(calls).toBe(4);
    expect(waits).toEqual([5, 10, 20]);
  });

  it('stops when shouldRetry says no, and returns a value that is not retried', async () => {
    let calls = 0;
    const v = await retry(async () => ++calls, {
      retries: 5,
      baseMs: 1,
      shouldRetry: (o) => o.ok && o.value < 3,
      sleep: async () => undefined,
    });
    expect(v).toBe(3);
  });
});

describe('poll until a deadline', () => {
  it('returns the value once the look is done', async () => {
    let n = 0;
    await expect(
      pollUntil('counter', async () => (++n >= 3 ? { done: true, value: n } : { done: false, why: `at ${n}` }), {
        timeoutMs: 1000,
        intervalMs: 1,
      }),
    ).resolves.toBe(3);
  });

  it('times out saying what the last look said', async () => {
    const p = pollUntil('never', async () => ({ done: false, why: 'still 2 behind' }), { timeoutMs: 20, intervalMs: 5 });
    await expect(p).rejects.toBeInstanceOf(PollTimeoutError);
    await expect(p).rejects.toThrow(/never: not done after 20 ms \(still 2 behind\)/);
  });
});

describe('sleep unless aborted', () => {
  it('ends early, saying so, when the signal aborts', async () => {
    const c = new AbortController();
    setTimeout(() => c.abort(), 10);
    const t = Date.now();
    expect(await sleepUnlessAborted(10_000, c.signal)).toBe(false);
    expect(Date.now() - t).toBeLessThan(2000);
    expect(await sleepUnlessAborted(1)).toBe(true);
  });
});
