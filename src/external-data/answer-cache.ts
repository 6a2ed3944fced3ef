import type { JsonValue } from '../engine/json.js';

/** What the cache holds for one provider + key. */
export type CachedAnswer =
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'absent' }
  /**
   * The call failed ("provider down: …") or the provider answered an error for the key: kept
   * failureTTLSeconds. `reason` is the whole text a rule failure shows.
   */
  | { readonly kind: 'failed'; readonly reason: string };

interface Entry {
  readonly answer: CachedAnswer;
  /** The provider's resourceVersion when the answer was got: a changed provider misses. */
  readonly version: string;
  readonly expiresAtMs: number;
}

export interface AnswerCacheOptions {
  /** Entries at most (least recently used go first). Keys are chosen by rules: bounded. */
  readonly maxEntries: number;
  /** Milliseconds, monotonic; injected. */
  readonly now: () => number;
}

export const DEFAULT_MAX_CACHED_ANSWERS = 10_000;

/**
 * The answers of external-data providers, keyed by provider + key, each kept for its TTL and
 * bounded in number (LRU). Synchronous: the ClusterView reads it during an evaluation; the
 * resolver fills it after a call.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: AnswerCacheOptions) {}

  /** The live answer for provider + key at `version`, or undefined (never cached, expired, stale). */
  get(provider: string, version: string, key: string): CachedAnswer | undefined {
    const id = cacheKey(provider, key);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.version !== version || this.options.now() >= entry.expiresAtMs) {
      this.entries.delete(id);
      return undefined;
    }
    // Most recently used last: the Map's insertion order is the LRU order.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.answer;
  }

  /** Keeps an answer for `ttlSeconds` (0: not kept at all). */
  set(
    provider: string,
    version: string,
    key: string,
    answer: CachedAnswer,
    ttlSeconds: number,
  ): void {
    const id = cacheKey(provider, key);
    this.entries.delete(id);
    if (ttlSeconds <= 0) return;
    this.entries.set(id, { answer, version, expiresAtMs: this.options.now() + ttlSeconds * 1000 });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Drops every answer of a provider (it was deleted). */
  forget(provider: string): void {
    const prefix = cacheKey(provider, '');
    for (const id of [...this.entries.keys()]) if (id.startsWith(prefix)) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Provider names cannot hold NUL (DNS subdomain), so the pair is unambiguous. */
function cacheKey(provider: string, key: string): string {
  return `${provider}\u0000${key}`;
}
