/**
 * Awaits every one of `work` and then throws the first failure, if any: unlike Promise.all, nothing
 * started here is still running when the caller goes on (to close what it used, or to report).
 */
export async function settleAll<T>(work: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}
