import { KubemodError } from '../errors/catalog.js';
import { cpuClock } from './cpu-clock.js';
import { DEFAULT_WORK_LIMITS, type WorkLimits } from './work-limits.js';

/** Bytes per work unit when charging by size. */
const BYTES_PER_UNIT = 64;
/** A charge of this many bytes or more looks at the heap ceiling at once. */
const LARGE_BYTES = 1024 * 1024;
/** Units between two looks at the clock (and the heap ceiling). */
const CLOCK_EVERY = 4096;

/**
 * Counts the work of one evaluation against its limits and throws WORK_LIMIT when a limit is
 * passed. Exhaustion is sticky: once a rule has gone over, every further charge in it throws
 * again, so code that catches an error and carries on cannot run on.
 */
export class WorkMeter {
  private readonly limits: WorkLimits;
  private readonly clock: () => number;
  private readonly pools = new Map<string, { units: number; millis: number }>();
  /** The rule in progress (beginRule … endRule): its pool and what to restore after it. */
  private pool: { units: number; millis: number } | undefined;
  /** When the rule in progress first looked at the clock (NaN: not yet). */
  private ruleStart = Number.NaN;
  private allowance = 0;
  private outerRemaining = 0;
  private outerDeadline = Number.NaN;
  private outerMillis = 0;
  /** Milliseconds of exempted work in the current rule (not counted against its pool). */
  private exempted = 0;
  private remaining: number;
  /**
   * When the current scope's backstop runs out; NaN until the scope first looks at the clock
   * (after CLOCK_EVERY units): a small rule never reads the clock, which on Node 20 (getrusage,
   * 1–3 µs) would cost more than the rule itself.
   */
  private deadline = Number.NaN;
  /** The backstop of the current scope, in milliseconds, started on its first look. */
  private scopeMillis: number;
  private sinceClock = 0;
  private scope = 'request';
  /** Units set aside while a template render runs under its cap (see render). */
  private reserved = 0;
  private rendering = false;
  /** Keys chargeOnce has charged in this request. */
  private chargedOnce: Set<string> | undefined;

  /**
   * @param subject what the meter measures, for messages ("request", "ModRule compilation").
   */
  constructor(
    limits: Partial<WorkLimits> = {},
    clock: () => number = cpuClock(),
    private readonly subject = 'request',
  ) {
    this.limits = { ...DEFAULT_WORK_LIMITS, ...limits };
    this.clock = clock;
    this.remaining = this.limits.requestUnits;
    this.scopeMillis = this.limits.requestMillis;
  }

  /** Charges `units` of work. Hot path: one subtraction and one comparison. */
  charge(units: number): void {
    this.remaining -= units;
    if (this.remaining < 0) throw this.exceeded();
    this.sinceClock += units;
    if (this.sinceClock >= CLOCK_EVERY) {
      this.sinceClock = 0;
      this.lookAtClock();
      if (this.limits.heap?.reached(0) === true) this.stop('memory');
    }
  }

  /** Starts the scope's backstop on its first look, stops the scope when it has run out. */
  private lookAtClock(): void {
    const now = this.clock();
    if (Number.isNaN(this.deadline)) {
      this.deadline = now + this.scopeMillis;
      if (this.pool !== undefined) this.ruleStart = now;
    } else if (now > this.deadline) {
      this.stop('time');
    }
  }

  /**
   * Charges `units` for `key` once per meter (one request): the first use of something a cache
   * keeps across requests (a compiled regex) pays what building it costs, in every request alike.
   */
  chargeOnce(key: string, units: number): void {
    this.chargedOnce ??= new Set();
    if (this.chargedOnce.has(key)) return;
    this.charge(units);
    this.chargedOnce.add(key);
  }

  /** Charges the work of reading or building `bytes` bytes (or elements) of data. */
  chargeBytes(bytes: number): void {
    this.charge(Math.ceil(bytes / BYTES_PER_UNIT) + 1);
    // One large value at once is checked against the heap ceiling before it is built (a string
    // may take two bytes a character).
    if (bytes >= LARGE_BYTES && this.limits.heap?.reached(2 * bytes) === true) this.stop('memory');
  }

  /**
   * Whether a time backstop has started (some scope has looked at the clock): only then does time
   * spent paused between slices need subtracting (evaluateSliced). A request whose rules stay
   * under CLOCK_EVERY units each never reads the clock, paused or not.
   */
  get timing(): boolean {
    return !Number.isNaN(this.deadline) || !Number.isNaN(this.outerDeadline);
  }

  /** Units left in the current scope (a rule, or the request outside rules). */
  get left(): number {
    return Math.max(0, this.remaining);
  }

  /**
   * Runs `work` as one rule of namespace `pool`: its allowance is the smaller of the per-rule
   * limit and what the pool has left, and what it spends comes out of the pool.
   */
  runRule<T>(pool: string, rule: string, work: () => T): T {
    this.beginRule(pool, rule);
    try {
      return work();
    } finally {
      this.endRule();
    }
  }

  /**
   * Starts one rule of namespace `pool` (see runRule); endRule must follow in a `finally`. The
   * request path uses this pair rather than runRule so that it allocates no closure per rule.
   * Throws WORK_LIMIT when the pool is used up.
   */
  beginRule(pool: string, rule: string): void {
    let left = this.pools.get(pool);
    if (left === undefined) {
      left = { units: this.limits.namespaceUnits, millis: this.limits.namespaceMillis };
      this.pools.set(pool, left);
    }
    if (left.units <= 0 || left.millis <= 0) {
      throw new KubemodError(
        'WORK_LIMIT',
        left.units <= 0
          ? `not evaluated: the rules of namespace ${pool} used up their work budget of ${String(this.limits.namespaceUnits)} units for this request`
          : `not evaluated: the rules of namespace ${pool} used up their time budget of ${String(this.limits.namespaceMillis)} ms for this request`,
      );
    }
    const allowance = Math.min(this.limits.ruleUnits, left.units);
    this.outerRemaining = this.remaining;
    this.outerDeadline = this.deadline;
    this.outerMillis = this.scopeMillis;
    this.pool = left;
    this.ruleStart = Number.NaN;
    this.allowance = allowance;
    this.remaining = allowance;
    this.deadline = Number.NaN;
    this.scopeMillis = Math.min(this.limits.ruleMillis, left.millis);
    this.scope = rule;
    this.sinceClock = 0;
    this.exempted = 0;
  }

  /** Ends the rule begun by beginRule: what it spent comes out of its pool. */
  endRule(): void {
    const left = this.pool;
    if (left === undefined) return;
    // A rule that went over is charged its whole allowance, not the pool's remainder: one
    // runaway rule must not take the other rules of its namespace down with it.
    left.units -= this.remaining < 0 ? this.allowance : this.allowance - this.remaining;
    // Only a rule that looked at the clock is timed (its first CLOCK_EVERY units are not).
    if (!Number.isNaN(this.ruleStart)) {
      left.millis -= Math.max(0, this.clock() - this.ruleStart - this.exempted);
    }
    this.pool = undefined;
    this.exempted = 0;
    this.remaining = this.outerRemaining;
    this.deadline = this.outerDeadline;
    this.scopeMillis = this.outerMillis;
    this.scope = 'request';
  }

  /**
   * Runs one template render with at most `renderUnits` of the units left: what it spends comes
   * out of the rule's allowance as usual, and a render that goes over its cap fails with
   * WORK_LIMIT and leaves its rule exhausted (sticky, like any rule that goes over). A render
   * inside a render shares the outer one's cap.
   */
  render<T>(work: () => T): T {
    if (this.rendering || this.remaining <= this.limits.renderUnits) {
      if (this.rendering) return work();
      this.rendering = true;
      try {
        return work();
      } finally {
        this.rendering = false;
      }
    }
    this.reserved = this.remaining - this.limits.renderUnits;
    this.remaining = this.limits.renderUnits;
    this.rendering = true;
    try {
      return work();
    } finally {
      this.rendering = false;
      // Over the cap: the rule stays exhausted; otherwise what was set aside is given back.
      if (this.remaining >= 0) this.remaining += this.reserved;
      this.reserved = 0;
    }
  }

  /**
   * Runs one-off work whose cost was bounded and paid for when the rule was compiled (building a
   * template's function on its first render) without counting its time against the deadlines:
   * a rule must not fail on its first request only because it is new.
   */
  exempt<T>(work: () => T): T {
    const start = this.clock();
    const deadline = this.deadline;
    this.deadline = Number.POSITIVE_INFINITY;
    try {
      return work();
    } finally {
      const spent = this.clock() - start;
      // A scope whose backstop has not started yet (NaN) starts it after this work anyway.
      this.deadline = deadline + spent;
      if (!Number.isNaN(deadline)) this.exempted += spent;
    }
  }

  /** Exhausts the current scope (sticky, like going over its units) and throws why. */
  private stop(what: 'time' | 'memory'): never {
    this.remaining = -1;
    throw this.exceeded(what);
  }

  private exceeded(what: 'work' | 'time' | 'memory' = 'work'): KubemodError {
    const inRule = this.scope !== 'request';
    if (what === 'memory') {
      return new KubemodError(
        'WORK_LIMIT',
        `${inRule ? 'rule' : this.subject} stopped: the heap in use passed its ${String(this.limits.heap?.mb ?? 0)} MB ceiling (the input is too large or the rule builds too much)`,
      );
    }
    if (what === 'work' && this.rendering && this.reserved > 0) {
      return new KubemodError(
        'WORK_LIMIT',
        `template exceeded its ${String(this.limits.renderUnits)} unit work budget (the template does too much work)`,
      );
    }
    const limit =
      what === 'time'
        ? `${String(inRule ? Math.min(this.limits.ruleMillis, this.limits.namespaceMillis) : this.limits.requestMillis)} ms time budget`
        : `${String(inRule ? this.limits.ruleUnits : this.limits.requestUnits)} unit work budget`;
    return new KubemodError(
      'WORK_LIMIT',
      `${inRule ? 'rule' : this.subject} exceeded its ${limit} (the input is too large or the rule does too much work)`,
    );
  }
}
