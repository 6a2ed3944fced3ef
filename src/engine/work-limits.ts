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
