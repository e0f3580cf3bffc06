import { sleep as realSleep } from './time.js';

export interface BackoffOptions {
  /** Delay before the first retry (ms); each further retry doubles it. */
  baseMs: number;
  /** Longest delay (ms). */
  maxMs?: number;
  /** Random source in [0, 1), for tests. */
  random?: () => number;
}

/**
 * "Full jitter" backoff: a uniform delay in [base·2^n / 2, base·2^n], capped. Half the
 * window is kept as a floor so a retry never comes back at once, while the random half
 * spreads clients that failed together.
 */
export function backoffDelay(retry: number, opts: BackoffOptions): number {
  const ceiling = Math.min(opts.maxMs ?? Number.MAX_SAFE_INTEGER, opts.baseMs * 2 ** Math.max(0, retry));
  const r = (opts.random ?? Math.random)();
  return Math.round(ceiling / 2 + (ceiling / 2) * r);
}

export interface RetryOptions<T> extends BackoffOptions {
  /** Retries after the first attempt. */
  retries: number;
  /** Whether an outcome (a value or a thrown error) should be tried again. Default: retry on any throw. */
  shouldRetry?: (outcome: { ok: true; value: T } | { ok: false; error: unknown }, retry: number) => boolean;
  /** Called before each wait, e.g. to log or heartbeat. */
  onRetry?: (info: { retry: number; delayMs: number; error?: unknown }) => void | Promise<void>;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `fn` (given the retry number, 0 first) until it succeeds, `shouldRetry` says no, or the
 * retries are spent; then returns its value or throws its last error.
 */
export async function retry<T>(fn: (retry: number) => Promise<T>, opts: RetryOptions<T>): Promise<T> {
  const sleep = opts.sleep ?? realSleep;
  const should = opts.shouldRetry ?? ((o) => !o.ok);
  for (let n = 0; ; n++) {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await fn(n) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (n >= opts.retries || !should(outcome, n)) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    const delayMs = backoffDelay(n, opts);
    await opts.onRetry?.({ retry: n + 1, delayMs, ...(outcome.ok ? {} : { error: outcome.error }) });
    await sleep(delayMs);
  }
}
