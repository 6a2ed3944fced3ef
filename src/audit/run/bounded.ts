/**
 * Runs `work` on every item with at most `limit` calls in flight; resolves when all are done.
 * `work` must not throw (callers record their own failures); a throw rejects the whole run.
 */
export async function mapBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, Math.min(limit, items.length)); i++) workers.push(worker());
  await Promise.all(workers);
}
