import { KubemodError } from '../errors/catalog.js';

/** One evaluation waiting for its next slice. */
interface Waiter {
  readonly deadlineAt: number;
  readonly resolve: () => void;
  readonly reject: (err: KubemodError) => void;
}

/**
 * Who runs the next slice of a sliced dragnet evaluation: one evaluation per turn of the event
 * loop, the namespaces in turn (round-robin between the namespaces that have an evaluation
 * waiting; within a namespace, first come first served). A tenant with a hundred evaluations in
 * flight gets one slice per round, like a namespace with one, so its flood delays the other
 * namespaces' requests by at most one slice per namespace per slice of theirs, however long it
 * is.
 *
 * Each waiting evaluation has a deadline (the clock's milliseconds). At every turn the waiters
 * whose deadline passed are rejected with REQUEST_DEADLINE, wherever they are in their queue, and
 * an evaluation granted a turn after its deadline is rejected instead of resumed: a request is
 * answered within one slice of its deadline, never when the API server has stopped listening.
 *
 * Memory: one entry per waiting evaluation (bounded by the server's connection cap) and one queue
 * per namespace with a waiter; each turn looks at every waiter once.
 */
export class FairTurns {
  /** Namespace → its waiters, oldest first; the Map's order is the round-robin order. */
  private readonly queues = new Map<string, Waiter[]>();
  private waiting = 0;
  private pumping = false;

  /**
   * @param clock milliseconds, the clock deadlines are on
   * @param nextTurn resolves on a later turn of the event loop, after pending I/O
   */
  constructor(
    private readonly clock: () => number,
    private readonly nextTurn: () => Promise<void>,
  ) {}

  /** Evaluations waiting for a turn. */
  get size(): number {
    return this.waiting;
  }

  /**
   * Before an evaluation's first slice: undefined when nobody waits (start at once; an idle
   * webhook adds no turn to a request), else waits for a turn as `next` does.
   */
  enter(namespace: string, deadlineAt: number): Promise<void> | undefined {
    if (this.waiting === 0) return undefined;
    return this.next(namespace, deadlineAt);
  }

  /**
   * Resolves when it is this evaluation's turn again (at the end of its namespace's queue);
   * rejects with REQUEST_DEADLINE once `deadlineAt` has passed.
   */
  next(namespace: string, deadlineAt: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let queue = this.queues.get(namespace);
      if (queue === undefined) {
        queue = [];
        this.queues.set(namespace, queue);
      }
      queue.push({ deadlineAt, resolve, reject });
      this.waiting += 1;
      if (!this.pumping) {
        this.pumping = true;
        void this.pump();
      }
    });
  }

  private async pump(): Promise<void> {
    try {
      while (this.waiting > 0) {
        await this.nextTurn();
        const now = this.clock();
        this.expire(now);
        this.take()?.resolve();
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Rejects every waiter whose deadline has passed. */
  private expire(now: number): void {
    // Most turns expire nobody: one look at each waiter, no new arrays.
    if (this.earliestDeadline(now) > now) return;
    for (const [namespace, queue] of this.queues) {
      const kept = queue.filter((waiter) => {
        if (waiter.deadlineAt > now) return true;
        waiter.reject(deadlinePassed(now, waiter.deadlineAt));
        return false;
      });
      this.waiting -= queue.length - kept.length;
      if (kept.length === 0) this.queues.delete(namespace);
      else if (kept.length !== queue.length) this.queues.set(namespace, kept);
    }
  }

  /** The earliest deadline of all waiters (Infinity when none). */
  private earliestDeadline(now: number): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const queue of this.queues.values()) {
      for (const waiter of queue) {
        if (waiter.deadlineAt < earliest) earliest = waiter.deadlineAt;
        if (earliest <= now) return earliest;
      }
    }
    return earliest;
  }

  /** The first waiter of the namespace served least recently; that namespace goes to the end. */
  private take(): Waiter | undefined {
    const first = this.queues.entries().next();
    if (first.done === true) return undefined;
    const [namespace, queue] = first.value;
    const waiter = queue.shift();
    this.queues.delete(namespace);
    if (queue.length > 0) this.queues.set(namespace, queue);
    if (waiter !== undefined) this.waiting -= 1;
    return waiter;
  }
}

/** The error of an evaluation stopped at its deadline. */
export function deadlinePassed(now: number, deadlineAt: number): KubemodError {
  const late = Math.max(0, Math.round(now - deadlineAt));
  return new KubemodError(
    'REQUEST_DEADLINE',
    `evaluation stopped at the request's deadline (${String(late)}ms past it)`,
  );
}
