/** An entry taken from the queue: a job key and the namespace whose queue it was in. */
export interface QueuedJob {
  readonly namespace: string;
  readonly key: string;
}

/**
 * Job keys in one FIFO per namespace, the namespaces served in turn: `next` takes the first key
 * of the namespace served least recently (never served first, then in the order they joined), so
 * a namespace with ten thousand queued jobs gets one turn, like a namespace with one, and a
 * namespace that leaves and re-joins the queue does not jump ahead of those waiting. A key is
 * queued at most once. Memory is the keys (bounded by the ModRules the informer holds) and one
 * number per namespace ever served.
 */
export class FairQueue {
  private readonly byNamespace = new Map<string, Set<string>>();
  /** Namespace → when it was last served (a counter, not time). */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private count = 0;

  /** Queues a key at the end of its namespace's queue (no-op when queued already). */
  add(namespace: string, key: string): void {
    const keys = this.keysOf(namespace);
    if (keys.has(key)) return;
    keys.add(key);
    this.count++;
  }

  /** Queues a key at the front of its namespace's queue (a job that yielded its turn resumes first). */
  addFront(namespace: string, key: string): void {
    const keys = this.keysOf(namespace);
    if (keys.has(key)) keys.delete(key);
    else this.count++;
    const rest = [...keys];
    keys.clear();
    keys.add(key);
    for (const k of rest) keys.add(k);
  }

  /**
   * Takes the first key of the namespace whose turn it is among those `busy` does not exclude;
   * undefined when every namespace with queued keys is busy (or none has any).
   */
  next(busy: (namespace: string) => boolean = () => false): QueuedJob | undefined {
    let chosen: string | undefined;
    let chosenServed = Number.POSITIVE_INFINITY;
    for (const namespace of this.byNamespace.keys()) {
      if (busy(namespace)) continue;
      const served = this.lastServed.get(namespace) ?? -1;
      if (served < chosenServed) {
        chosen = namespace;
        chosenServed = served;
      }
    }
    if (chosen === undefined) return undefined;
    const keys = this.byNamespace.get(chosen);
    const [key] = keys ?? [];
    if (keys === undefined || key === undefined) return undefined;
    keys.delete(key);
    this.count--;
    if (keys.size === 0) this.byNamespace.delete(chosen);
    this.lastServed.set(chosen, this.served++);
    return { namespace: chosen, key };
  }

  /** Whether a namespace that `busy` does not exclude has a queued key (someone waits for a turn). */
  hasWaiting(busy: (namespace: string) => boolean): boolean {
    for (const namespace of this.byNamespace.keys()) if (!busy(namespace)) return true;
    return false;
  }

  /** Queued keys of all namespaces. */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.byNamespace.clear();
    this.count = 0;
  }

  private keysOf(namespace: string): Set<string> {
    let keys = this.byNamespace.get(namespace);
    if (keys === undefined) {
      keys = new Set();
      this.byNamespace.set(namespace, keys);
    }
    return keys;
  }
}
