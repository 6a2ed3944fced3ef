import { KubemodError } from '../errors/catalog.js';
import { cpuClock } from './cpu-clock.js';

/**
 * Work limits of one evaluation. A work unit is about one value visited, or 64 bytes of string,
 * list or map read or built; every engine path whose cost grows with its input charges units as
 * it goes, so the cost of a request is bounded whatever the rules and the object hold.
 */
export interface WorkLimits {
  /** Units one rule may spend on one request (matching, rendering and applying together). */
  readonly ruleUnits: number;
  /**
   * Units all the rules of one namespace may spend together on one request. Rules of different
   * namespaces draw on different pools, so a tenant's rules cannot use up the budget of the
   * cluster-wide (kubemod-system) rules that also apply to its objects.
   */
  readonly namespaceUnits: number;
  /** Units the work outside any rule may spend (the final diff, the dryrun YAML diff). */
  readonly requestUnits: number;
  /**
   * Units one template render may spend, out of its rule's allowance. The template engine does
   * more per unit than the rest (handlebars' calls and loops, maps and strings built for every
   * helper: 25–60 ns a unit against the meter's nominal 50 ns, where a select walk or a patch
   * spends far less), so a rule's 200,000 units would let a render run far longer than other
   * rules. This cap ends a runaway render by its units in 5–25 ms (cold process included); a real
   * template spends a few hundred units.
   */
  readonly renderUnits: number;
  /** CPU-time backstop for one rule, in milliseconds (see cpuClock); units decide, not this. */
  readonly ruleMillis: number;
  /**
   * CPU-time backstop for all the rules of one namespace together, per request: once used up,
   * the namespace's later rules fail at once. Per namespace like the units, so a tenant's slow
   * rules cannot use up the time of the cluster-wide rules.
   */
  readonly namespaceMillis: number;
  /** CPU-time backstop for the work outside rules, in milliseconds. */
  readonly requestMillis: number;
  /**
   * A heap ceiling looked at with the clock (the dry-run worker thread sets one below its V8 heap
   * limit, which on Node 24 can abort the whole process instead of the thread); none by default.
   */
  readonly heap?: HeapCeiling | undefined;
}

/** A ceiling on the heap in use, checked cooperatively by the meter. */
export interface HeapCeiling {
  /** The ceiling in MB, for the error message. */
  readonly mb: number;
  /**
   * Whether the heap in use, plus `extraBytes` about to be built, is past the ceiling; cheap
   * enough to call every few hundred microseconds.
   */
  readonly reached: (extraBytes: number) => boolean;
}

/**
 * Units decide: 200,000 units a rule take 5–50 ms of CPU on a 2-core VM (BENCHMARKS.md, `npm run
 * bench:margin`), far above what a real rule needs (a 10-rule evaluation of a 10 KB Deployment
 * spends about 2,000), and depend on the input alone, so a rule's outcome is the same in the
 * webhook, `dryrun`, `test` and `/v1/dryrun`, busy machine or not. A template render, the costliest
 * work per unit, is capped at 40,000 units. The time limits are only a backstop for a path that
 * forgot to charge its units: CPU time (cpuClock), 10× and more above the slowest rule the units
 * allow, cold process included (docs/hostile-input.md). The webhook yields to the event loop
 * between rules (evaluateSliced), so the longest block one request can cause is one rule's units.
 * The clock is read only every CLOCK_EVERY units.
 */
export const DEFAULT_WORK_LIMITS: WorkLimits = Object.freeze({
  ruleUnits: 200_000,
  namespaceUnits: 500_000,
  requestUnits: 500_000,
  renderUnits: 40_000,
  ruleMillis: 1000,
  namespaceMillis: 2000,
  requestMillis: 2000,
});

/**
 * The deepest nesting any recursive walker of values follows (printing, comparing, copying,
 * YAML). Deeper values are refused with DEPTH_LIMIT instead of overflowing the stack.
 */
export const MAX_VALUE_DEPTH = 512;

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

// The meter of the evaluation in progress. Evaluation is synchronous, so one slot is enough:
// withMeter() sets it for the duration of a call and restores the previous one. Code that runs
// outside any metered call (compilation, tests of single functions) charges nothing.
let active: WorkMeter | undefined;

/** Runs `work` with `meter` as the active meter. */
export function withMeter<T>(meter: WorkMeter, work: () => T): T {
  const previous = active;
  active = meter;
  try {
    return work();
  } finally {
    active = previous;
  }
}

/** The active meter, if any. */
export function activeMeter(): WorkMeter | undefined {
  return active;
}

/** Charges `units` to the active meter (nothing when none is active). */
export function charge(units: number): void {
  if (active !== undefined) active.charge(units);
}

/** Charges `units` for `key` once per request to the active meter (see WorkMeter.chargeOnce). */
export function chargeOnce(key: string, units: number): void {
  if (active !== undefined) active.chargeOnce(key, units);
}

/** Charges reading or building `bytes` bytes or elements to the active meter. */
export function chargeBytes(bytes: number): void {
  if (active !== undefined) active.chargeBytes(bytes);
}

/** Runs `work` outside the deadlines of the active meter (see WorkMeter.exempt). */
export function exempt<T>(work: () => T): T {
  return active === undefined ? work() : active.exempt(work);
}

/** DEPTH_LIMIT error for a walker that met a value nested deeper than MAX_VALUE_DEPTH. */
export function depthError(what: string): KubemodError {
  return new KubemodError(
    'DEPTH_LIMIT',
    `${what}: value nests deeper than ${String(MAX_VALUE_DEPTH)} levels`,
  );
}
