import type { LimiterClock } from '../../authz/token-bucket.js';

/**
 * Keys that are due at a given time (a job's settle, its retry), behind one timer: ten thousand
 * rules waiting out their settle cost ten thousand array entries, not ten thousand timers and
 * abort listeners. `onDue` is called for each key once its time has come, in time order. A key
 * is held at most once (its earliest time wins).
 */
export class DeferredKeys {
  /** Sorted by `at`. */
  private entries: { readonly key: string; readonly at: number }[] = [];
  private readonly keys = new Set<string>();
  private armed: { readonly at: number; readonly cancel: AbortController } | undefined;

  constructor(
    private readonly clock: LimiterClock,
    private readonly signal: AbortSignal,
    private readonly onDue: (key: string) => void,
  ) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Calls onDue(key) at `at` (ms on the clock's scale), unless the key is held already. */
  add(key: string, at: number): void {
    if (this.keys.has(key) || this.signal.aborted) return;
    this.keys.add(key);
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.entries[mid]?.at ?? 0) <= at) low = mid + 1;
      else high = mid;
    }
    this.entries.splice(low, 0, { key, at });
    this.arm();
  }

  /** Forgets a held key (its onDue is not called); the timer is left armed, and fires harmlessly. */
  delete(key: string): void {
    if (!this.keys.delete(key)) return;
    this.entries = this.entries.filter((entry) => entry.key !== key);
  }

  private arm(): void {
    const head = this.entries[0];
    if (head === undefined || this.signal.aborted) return;
    if (this.armed !== undefined) {
      if (this.armed.at <= head.at) return;
      this.armed.cancel.abort();
    }
    const cancel = new AbortController();
    const armed = { at: head.at, cancel };
    this.armed = armed;
    const stop = (): void => {
      cancel.abort();
    };
    this.signal.addEventListener('abort', stop, { once: true });
    void this.clock.delay(Math.max(0, head.at - this.clock.now()), cancel.signal).then(() => {
      this.signal.removeEventListener('abort', stop);
      if (this.armed === armed) this.armed = undefined;
      if (cancel.signal.aborted) return;
      this.fire();
    });
  }

  private fire(): void {
    const now = this.clock.now();
    let due = 0;
    while (due < this.entries.length && (this.entries[due]?.at ?? Infinity) <= now) due++;
    const ready = this.entries.splice(0, due);
    for (const { key } of ready) this.keys.delete(key);
    for (const { key } of ready) this.onDue(key);
    this.arm();
  }
}
