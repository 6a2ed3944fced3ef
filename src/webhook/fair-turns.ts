import { KubemodError } from '../errors/catalog.js';

/** One evaluation waiting for its next slice. */
interface Waiter {
  readonly deadlineAt: number;
  /** Hands this evaluation the turn (it now runs a slice). */
  readonly grant: () => void;
  readonly reject: (err: KubemodError) => void;
}

/**
 * One evaluation's way through the turns: `begin` before its first slice, `next` between two
 * slices, `end` when it is over (with a result or an error). Each resolves when the evaluation may
 * run; `begin` and `next` reject with REQUEST_DEADLINE once its deadline has passed. `end` gives
 * the turn on if this evaluation holds it, else does nothing; a taker may begin again after end
 * (an evaluation repeated after its lookups resolved).
 */
export interface TurnTaker {
  readonly begin: () => Promise<void>;
  readonly next: () => Promise<void>;
  readonly end: () => void;
}

/**
 * Who runs the next slice of a sliced dragnet evaluation: one evaluation at a time, the
 * namespaces in turn (round-robin between the namespaces that have an evaluation waiting; within
 * a namespace, first come first served). A tenant with a hundred evaluations in flight gets one
 * slice per round, like a namespace with one, so its flood delays the other namespaces' requests
 * by at most one slice per namespace per slice of theirs, however long it is.
 *
 * Slices run in turns of the event loop, after pending I/O: the evaluations that arrived together
 * run back to back, with the engine's code and data still in the core's caches, rather than one
 * between each two reads of the network. A turn hands out slices until `turnBudgetMs` have passed
 * since it began (the first slice of a turn always runs), then the loop reads the network again:
 * a turn holds the loop for at most the budget plus one slice. An evaluation that used up its
 * slice and yields goes to the end of its namespace's queue; when the turn's budget is spent too,
 * the rest waits for the next turn.
 *
 * Each waiting evaluation has a deadline (the clock's milliseconds). At every turn the waiters
 * whose deadline passed are rejected with REQUEST_DEADLINE, wherever they are in their queue, and
 * an evaluation whose turn comes after its deadline is rejected instead of resumed: a request is
 * answered within one turn of its deadline, never when the API server has stopped listening.
 *
 * Memory: one entry per waiting evaluation (bounded by the server's connection cap) and one queue
 * per namespace with a waiter; each turn looks at every waiter once.
 */
export class FairTurns {
  /** Namespace → its waiters, oldest first; the Map's order is the round-robin order. */
  private readonly queues = new Map<string, Waiter[]>();
  private waiting = 0;
  /** An evaluation is running a slice. */
  private held = false;
  /** When the current turn began; NaN between turns. */
  private turnStartedAt = Number.NaN;
  private turnScheduled = false;

  /**
   * @param clock milliseconds, the clock deadlines and the turn budget are on
   * @param nextTurn resolves on a later turn of the event loop, after pending I/O
   * @param turnBudgetMs how long a turn goes on handing out slices
   */
  constructor(
    private readonly clock: () => number,
    private readonly nextTurn: () => Promise<void>,
    private readonly turnBudgetMs: number,
  ) {}

  /** Evaluations waiting for a turn. */
  get size(): number {
    return this.waiting;
  }

  /** The turns of one evaluation in `namespace`, whose request must be answered by `deadlineAt`. */
  taker(namespace: string, deadlineAt: number): TurnTaker {
    let holding = false;
    const acquire = (): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const grant = (): void => {
          holding = true;
          resolve();
        };
        this.enqueue(namespace, { deadlineAt, grant, reject });
      });
    const release = (): void => {
      if (!holding) return;
      holding = false;
      this.held = false;
      this.dispatch();
    };
    return {
      begin: acquire,
      next: () => {
        release();
        return acquire();
      },
      end: release,
    };
  }

  private enqueue(namespace: string, waiter: Waiter): void {
    let queue = this.queues.get(namespace);
    if (queue === undefined) {
      queue = [];
      this.queues.set(namespace, queue);
    }
    queue.push(waiter);
    this.waiting += 1;
    this.dispatch();
  }

  /** Nobody runs: the next waiter runs now if this turn has budget left, else at the next turn. */
  private dispatch(): void {
    if (this.held) return;
    if (this.waiting === 0) {
      this.turnStartedAt = Number.NaN;
      return;
    }
    if (!Number.isNaN(this.turnStartedAt)) {
      const now = this.clock();
      if (now - this.turnStartedAt < this.turnBudgetMs) {
        this.grantNext(now);
        return;
      }
    }
    this.scheduleTurn();
  }

  private scheduleTurn(): void {
    this.turnStartedAt = Number.NaN;
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    void this.nextTurn().then(() => {
      this.turnScheduled = false;
      if (this.held) return;
      const now = this.clock();
      this.expire(now);
      this.turnStartedAt = now;
      this.grantNext(now);
    });
  }

  /** The next waiter in round-robin order runs; one past its deadline is rejected instead. */
  private grantNext(now: number): void {
    for (;;) {
      const waiter = this.take();
      if (waiter === undefined) {
        this.turnStartedAt = Number.NaN;
        return;
      }
      if (waiter.deadlineAt <= now) {
        waiter.reject(deadlinePassed(now, waiter.deadlineAt));
        continue;
      }
      this.held = true;
      waiter.grant();
      return;
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
