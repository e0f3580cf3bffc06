import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return delay(ms);
}

/** Waits `ms`, or less when the signal aborts. Resolves true when it waited the whole time. */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') return false;
    throw err;
  }
}

/** Resolves once the signal aborts (at once when it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Node timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Races `p` against a timer; rejects with `message` when the timer wins. The timer never keeps the process alive. */
export function withTimeout<T>(p: Promise<T>, ms: number, message = `did not finish within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
