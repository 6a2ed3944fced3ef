/** Default time between two samples: cheap (20 timers a second) and fine enough for the histogram. */
export const DEFAULT_LAG_SAMPLE_MS = 50;

/** A scheduled sample that can be called off. */
export interface LagTimer {
  cancel(): void;
}

/** The clock and timer the sampler uses; injectable so tests need not sleep. */
export interface LagTimers {
  /** Monotonic milliseconds. */
  now(): number;
  /** Runs `callback` after about `ms` milliseconds, without keeping the process alive. */
  schedule(callback: () => void, ms: number): LagTimer;
}

export interface EventLoopLagSamplerOptions {
  /** Receives each sample, in seconds. */
  readonly observe: (seconds: number) => void;
  /** Milliseconds between samples (default DEFAULT_LAG_SAMPLE_MS). */
  readonly intervalMs?: number;
  readonly timers?: LagTimers;
}

export interface EventLoopLagSampler {
  /** Stops sampling; idempotent. */
  stop(): void;
}

/** performance.now and an unref'd setTimeout. */
export const REAL_LAG_TIMERS: LagTimers = {
  now: () => performance.now(),
  schedule(callback, ms): LagTimer {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
};

/**
 * Measures event-loop lag: a timer is set for `intervalMs`, and how much later than that it ran
 * is one sample. Anything that holds the loop (a slow request, a long GC) shows up as a sample
 * about as long as the hold. Nothing runs until this is called; stop() ends it.
 */
export function startEventLoopLagSampler(options: EventLoopLagSamplerOptions): EventLoopLagSampler {
  const interval = options.intervalMs ?? DEFAULT_LAG_SAMPLE_MS;
  const timers = options.timers ?? REAL_LAG_TIMERS;
  let stopped = false;
  let timer: LagTimer | undefined;
  const arm = (): void => {
    const due = timers.now() + interval;
    timer = timers.schedule(() => {
      if (stopped) return;
      options.observe(Math.max(0, timers.now() - due) / 1000);
      arm();
    }, interval);
  };
  arm();
  return {
    stop(): void {
      stopped = true;
      timer?.cancel();
      timer = undefined;
    },
  };
}
