/** The answer of one access review, as lookups use it. */
export type ReviewAnswer =
  | { readonly kind: 'allowed' }
  | { readonly kind: 'denied' }
  /** The review could not be asked; kept briefly so a burst of requests does not repeat it. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface ReviewCacheOptions {
  /** How long an allowed or denied answer is used (default 60 s). */
  readonly ttlMs?: number;
  /** How long a failed review is remembered (default 5 s). */
  readonly failureTtlMs?: number;
  /** Answers kept at most; the oldest goes first (default 50,000). */
  readonly maxEntries?: number;
  readonly now: () => number;
}

interface Entry {
  readonly at: number;
  readonly answer: ReviewAnswer;
}

/**
 * Access-review answers for lookups, read synchronously on the request path (a miss is a
 * `pending` lookup; the resolver asks and fills the cache). Keys are chosen by tenants (authors,
 * object names), so the map is bounded. An answer past half its lifetime is `aging`: still used,
 * and refreshed in the background, so a steady stream of requests never waits for a review.
 */
export class ReviewCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: ReviewCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.failureTtlMs = options.failureTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
  }

  /** The answer, undefined when there is none or it expired; `aging` when it should be refreshed. */
  get(id: string): { readonly answer: ReviewAnswer; readonly aging: boolean } | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const age = this.options.now() - entry.at;
    const ttl = entry.answer.kind === 'failed' ? this.failureTtlMs : this.ttlMs;
    if (age >= ttl || age < 0) {
      this.entries.delete(id);
      return undefined;
    }
    return { answer: entry.answer, aging: age >= ttl / 2 };
  }

  set(id: string, answer: ReviewAnswer): void {
    this.entries.delete(id);
    this.entries.set(id, { at: this.options.now(), answer });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
