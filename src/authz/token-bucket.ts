/** The clock a limiter reads and the wait it uses; injected so tests run on virtual time. */
export interface LimiterClock {
  /** Milliseconds on any monotonic-enough scale (the wall clock in production). */
  readonly now: () => number;
  /** Resolves after `ms`, or early when the signal aborts. */
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface TokenBucketOptions extends LimiterClock {
  /** Tokens added per second. */
  readonly ratePerSecond: number;
  /** Tokens the bucket holds at most (a burst after a quiet spell). */
  readonly burst: number;
}

/**
 * A token bucket whose tokens can be reserved ahead: a caller takes a token even when none is
 * left (the count goes negative) and waits until its token has been earned. Callers are served
 * in the order they asked, which is what makes the shared ceiling fair between namespaces that
 * each ask for one token at a time. A caller that gives up (abort) does not hand its token back:
 * the rate only ever errs on the slow side.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly interval: number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    if (!(options.burst >= 1)) throw new RangeError('burst must be at least 1');
    this.tokens = options.burst;
    this.last = options.now();
    this.interval = 1000 / options.ratePerSecond;
  }

  /** Reserves one token; returns how long the caller must wait before using it (ms). */
  reserve(): number {
    const now = this.options.now();
    const earned = Math.max(0, now - this.last) / this.interval;
    this.tokens = Math.min(this.options.burst, this.tokens + earned);
    this.last = Math.max(this.last, now);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : -this.tokens * this.interval;
  }

  /** Takes one token, waiting as long as needed (or until the signal aborts). */
  async take(signal: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait > 0) await this.options.delay(wait, signal);
  }
}
