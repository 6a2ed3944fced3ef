import { KubemodError } from '../errors/catalog.js';
import { MAX_VALUE_DEPTH } from './work-limits.js';
import type { WorkMeter } from './work-meter.js';

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
