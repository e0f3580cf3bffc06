/** The one limit on a whole exchange (DNS + connect + TLS + headers + body). */
export class ExchangeLimit {
  private readonly ac = new AbortController();
  private expired = false;
  private readonly timer: NodeJS.Timeout;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.ac.abort(new Error(`exchange limit of ${ms} ms reached`));
    }, ms);
  }

  /** Aborted when the limit is reached. */
  get signal(): AbortSignal {
    return this.ac.signal;
  }

  get timedOut(): boolean {
    return this.expired;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** Settles with `p`, or rejects with the signal's reason once it aborts (`p` is left to settle unobserved). */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
