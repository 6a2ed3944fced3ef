interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * Virtual time for scheduler tests: `delay` registers a timer, `advance` moves the clock timer by
 * timer (letting promise chains run in between), so minutes of pacing run in milliseconds and
 * the waits are exact. Aborting a signal resolves its delays at once, like the operator's delay.
 */
export class VirtualClock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly delay = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const onAbort = (): void => {
        this.timers = this.timers.filter((t) => t !== timer);
        resolve();
      };
      const timer: Timer = {
        at: this.time + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  /** Timers pending. */
  get pending(): number {
    return this.timers.length;
  }

  /** Lets every settled promise chain run (the fakes answer with resolved promises). */
  async flush(): Promise<void> {
    for (let i = 0; i < 30; i++)
      await new Promise<void>((resolve) => {
        setImmediate(resolve);
      });
  }

  /** Moves the clock forward by `ms`, firing the timers due on the way in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await this.flush();
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.resolve();
      await this.flush();
    }
    this.time = end;
    await this.flush();
  }

  /** Advances in steps of `stepMs` until `done` holds; throws after `limitMs` of virtual time. */
  async until(done: () => boolean, limitMs: number, stepMs = 100): Promise<number> {
    const start = this.time;
    while (!done()) {
      if (this.time - start > limitMs)
        throw new Error(`condition not met within ${String(limitMs)} ms of virtual time`);
      await this.advance(stepMs);
    }
    return this.time - start;
  }
}
