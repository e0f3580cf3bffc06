/**
 * Reading an ordered source a bounded stretch at a time: the agent list (agents, by key) and the
 * search (agent_search_terms, by natural name) page this way, so a page costs the same whatever
 * the index holds.
 */

/** Postings read per round, at most, and rounds per page: a page reads a bounded number of rows whatever the index holds. */
export const LIST_CHUNK_MAX = 2_000;
const LIST_ROUNDS = 4;

/**
 * A filtered page over an ordered source at a cost bounded whatever the index holds: reads `chunk`
 * items after the cursor, keeps those `keep` accepts (in order), and goes on for at most
 * LIST_ROUNDS chunks until it has more than `limit`. `next` is the cursor after the page's last
 * row when there are more, where reading stopped when out of rounds (so a page can be short, even
 * empty, with a next one), and null at the end of the source.
 */
export async function readInRounds<C, P, R>(o: {
  after: C | null;
  limit: number;
  chunk: number;
  read: (after: C | null, chunk: number) => Promise<P[]>;
  keep: (items: P[]) => Promise<R[]>;
  /** Where the next read starts, after a full chunk (non-empty). */
  resumeAfter: (items: P[]) => C;
  cursorOf: (row: R) => C;
}): Promise<{ rows: R[]; next: C | null }> {
  const found: R[] = [];
  let after = o.after;
  for (let round = 0; round < LIST_ROUNDS; round++) {
    const items = await o.read(after, o.chunk);
    found.push(...(await o.keep(items)));
    if (found.length > o.limit) {
      const page = found.slice(0, o.limit);
      return { rows: page, next: o.cursorOf(page[page.length - 1]!) };
    }
    if (items.length < o.chunk) return { rows: found, next: null };
    after = o.resumeAfter(items);
  }
  return { rows: found, next: after };
}
