import type { Counter } from 'prom-client';

/** One series' increments not yet added to its counter. */
interface Pending<L extends string> {
  readonly labels: Record<L, string>;
  count: number;
}

/**
 * Increments of a prom-client Counter held in a Map until the counter is read. prom-client
 * hashes a series' labels on every `inc` (sorting the label names and joining them with their
 * values), which a webhook request paid once per rule it patched and once for itself; here an
 * increment is one Map lookup on the series key, and the counter is brought up to date when it
 * is read: its `collect` (every scrape, every `get`) calls `flushInto`. What a reader sees is
 * therefore the same as if every increment had gone straight to the counter.
 *
 * Memory: one entry per series incremented since the last read, so bounded by the same label
 * sets the counter itself holds (RuleLabels caps the rules, the other labels are fixed sets).
 */
export class PendingCounts<L extends string> {
  private readonly pending = new Map<string, Pending<L>>();

  /** `key` names a series: labels that give the same key are the same series. */
  constructor(private readonly key: (labels: Record<L, string>) => string) {}

  /** Adds one to the series of `labels`. */
  inc(labels: Record<L, string>): void {
    const key = this.key(labels);
    const entry = this.pending.get(key);
    if (entry === undefined) this.pending.set(key, { labels, count: 1 });
    else entry.count += 1;
  }

  /** Adds what is held to `counter` and forgets it. */
  flushInto(counter: Counter<L>): void {
    for (const { labels, count } of this.pending.values()) counter.inc(labels, count);
    this.pending.clear();
  }

  /** Drops what is held for the series `matches` selects (their counter series are removed). */
  drop(matches: (labels: Record<L, string>) => boolean): void {
    for (const [key, entry] of this.pending) if (matches(entry.labels)) this.pending.delete(key);
  }

  /** Series with increments held (tests). */
  get size(): number {
    return this.pending.size;
  }
}
