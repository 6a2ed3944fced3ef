import {
  candidateQueryOf,
  evaluationSteps,
  unchangedResult,
  type EvaluationRequest,
  type EvaluationResult,
} from './evaluate.js';
import type { RuleStore } from './store.js';
import { cpuClock } from './cpu-clock.js';
import { withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';

/**
 * How an evaluation shares its thread: work at most `sliceMs` at a time (checked between rules),
 * then `yieldToLoop`, so that other requests are served in between. Both the clock and the way to
 * yield are injected; the engine itself does no I/O.
 */
export interface SliceScheduler {
  /** Milliseconds of work after which the evaluation yields at its next rule boundary. */
  readonly sliceMs: number;
  /** Resolves on a later turn of the event loop, after pending I/O (setImmediate in production). */
  readonly yieldToLoop: () => Promise<void>;
  /**
   * Resolves when the evaluation may run its first slice (the webhook: its turn among the other
   * evaluations); without it, the first slice runs at once. Not asked when no rule is a candidate.
   */
  readonly begin?: () => Promise<void>;
  /** Called once after `begin` resolved, when the evaluation ends with its result or an error. */
  readonly end?: () => void;
}

/** What evaluateSliced reports besides the result, for metrics and tests. */
export interface SlicedEvaluation {
  readonly result: EvaluationResult;
  /** How many times the evaluation yielded. */
  readonly yields: number;
  /** Milliseconds spent waiting between slices (not counted against the work meter's deadlines). */
  readonly waitedMs: number;
}

/**
 * Evaluates as evaluate() does, with the same result, but yields between rules once a slice is
 * used up: a request whose rules do a lot of work (up to the work meter's allowances) no longer
 * holds the event loop for all of it at once. The work meter's time backstops count only the time
 * spent working, never the time spent waiting between slices, so yielding cannot make a rule fail.
 * Rules are taken from the store when the evaluation starts; a rule added or removed meanwhile
 * takes effect with the next request, as for a request that arrived a moment earlier.
 */
export async function evaluateSliced(
  store: RuleStore,
  request: EvaluationRequest,
  scheduler: SliceScheduler,
): Promise<SlicedEvaluation> {
  // No candidate rule: no meter, no steps (the store keeps its answer, so asking twice is cheap).
  if (store.candidates(candidateQueryOf(request)).length === 0) {
    return { result: unchangedResult(request.object), yields: 0, waitedMs: 0 };
  }
  if (scheduler.begin !== undefined) await scheduler.begin();
  try {
    return await runSlices(store, request, scheduler);
  } finally {
    scheduler.end?.();
  }
}

async function runSlices(
  store: RuleStore,
  request: EvaluationRequest,
  scheduler: SliceScheduler,
): Promise<SlicedEvaluation> {
  // Slices are wall time (they are about other requests' latency); the meter's backstop is CPU
  // time (cpuClock). A test injects one clock for both.
  const clock = request.clock ?? ((): number => performance.now());
  const backstopClock = request.clock ?? cpuClock();
  let waitedMs = 0;
  let waitedBackstop = 0;
  const workClock = (): number => backstopClock() - waitedBackstop;
  const meter = new WorkMeter(request.work, workClock);
  let sliceStart = clock();
  // Asked after every rule: one look at the clock (tens of nanoseconds).
  const sliceUsed = (): boolean => clock() - sliceStart >= scheduler.sliceMs;
  const steps = evaluationSteps(store, request, meter, sliceUsed);
  const next = (): IteratorResult<void, EvaluationResult> => steps.next();
  let yields = 0;
  for (;;) {
    const step = withMeter(meter, next);
    if (step.done === true) return { result: step.value, yields, waitedMs };
    const pausedAt = clock();
    // What the thread does meanwhile (other requests) is not this evaluation's. Only a started
    // backstop needs it subtracted: a deadline not yet set starts from its first look, after the
    // pause. (On Node 20 the backstop clock is getrusage, 1–5 µs a read: on a busy core that
    // preempts evaluations into many slices, reading it at every pause cost more than the rules.)
    const pausedBackstop = meter.timing ? backstopClock() : Number.NaN;
    await scheduler.yieldToLoop();
    yields += 1;
    sliceStart = clock();
    waitedMs += sliceStart - pausedAt;
    if (!Number.isNaN(pausedBackstop)) waitedBackstop += backstopClock() - pausedBackstop;
  }
}
