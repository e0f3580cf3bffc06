/**
 * The last `capacity` keys added, oldest forgotten first: a bounded memory of what was done
 * recently (a Set keeps insertion order, so the first key is the oldest).
 */
export class RecentSet<K> {
  private readonly keys = new Set<K>();
  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
  }

  has(key: K): boolean {
    return this.keys.has(key);
  }

  add(key: K): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value as K);
  }

  get size(): number {
    return this.keys.size;
  }
}
