import { sleepUnlessAborted } from './time.js';

export interface PollOptions {
  /** Give up after this long (ms). */
  timeoutMs: number;
  /** Pause between two looks (ms). */
  intervalMs?: number;
  /** Stops polling early: rejects with an AbortError-named error. */
  signal?: AbortSignal;
  /** Clock, for tests. */
  now?: () => number;
}

/** Thrown when a poll runs past its deadline; `last` is what the final look said. */
export class PollTimeoutError extends Error {
  override name = 'PollTimeoutError';
  constructor(
    message: string,
    readonly last: string,
  ) {
    super(message);
  }
}

/**
 * Calls `look` until it returns `{ done: true, value }`, pausing between calls. A look that
 * is not done says why (`why`), which goes into the timeout error. A look that throws ends the poll.
 */
export async function pollUntil<T>(
  what: string,
  look: () => Promise<{ done: true; value: T } | { done: false; why: string }>,
  opts: PollOptions,
): Promise<T> {
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.timeoutMs;
  for (;;) {
    const r = await look();
    if (r.done) return r.value;
    if (opts.signal?.aborted) {
      const err = new Error(`${what}: interrupted (${r.why})`);
      err.name = 'AbortError';
      throw err;
    }
    if (now() > deadline) throw new PollTimeoutError(`${what}: not done after ${opts.timeoutMs} ms (${r.why})`, r.why);
    // An abort ends the pause at once; the next look then reports the interruption.
    await sleepUnlessAborted(opts.intervalMs ?? 100, opts.signal);
  }
}
