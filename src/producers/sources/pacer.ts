import { sleep as realSleep } from '../../util/time.js';

/** Keeps at least `delayMs` between two requests to one source (the first one goes at once). */
export class Pacer {
  private lastRequestAt = 0;

  constructor(
    private readonly delayMs: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void> = realSleep,
  ) {}

  /** Waits until the next request may go, and counts it as sent now. */
  async pace(): Promise<void> {
    const wait = this.lastRequestAt + this.delayMs - this.now();
    if (this.lastRequestAt > 0 && wait > 0) await this.sleep(wait);
    this.markSent();
  }

  /** Restarts the delay from now (after a request that took a while to answer). */
  markSent(): void {
    this.lastRequestAt = this.now();
  }
}
