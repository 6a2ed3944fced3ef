/**
 * A small cache of answers that expire: at most `maxEntries` (the oldest goes first), each kept
 * for `ttlMs`. Access reviews are cached here because their keys are chosen by tenants (rule
 * authors, namespaces, object names): the map may never grow with them. A pending answer is
 * shared by concurrent callers; a failed one is not kept.
 */
export interface TtlCache<T> {
  get(key: string, compute: () => Promise<T>): Promise<T>;
  readonly size: number;
}

export function createTtlCache<T>(options: {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly now: () => number;
}): TtlCache<T> {
  const entries = new Map<string, { readonly at: number; readonly value: Promise<T> }>();
  return {
    get(key, compute): Promise<T> {
      const now = options.now();
      const hit = entries.get(key);
      if (hit !== undefined && now - hit.at < options.ttlMs) return hit.value;
      entries.delete(key);
      const value = compute();
      entries.set(key, { at: now, value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      while (entries.size > options.maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
      return value;
    },
    get size(): number {
      return entries.size;
    },
  };
}
