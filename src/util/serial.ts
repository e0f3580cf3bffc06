/**
 * One holder at a time, in arrival order: `acquire()` resolves with the release once every
 * earlier holder has released (a holder that fails must still release: use `run`).
 */
export class Serial {
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the earlier holders; resolves with this holder's release. */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const before = this.tail;
    this.tail = before.then(() => mine);
    await before;
    return release;
  }

  /** Runs `work` alone, after the earlier holders; releases however it ends. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
