import { KubemodError } from '../../errors/catalog.js';
import { charge } from '../active-meter.js';
import { ITERATION_UNITS } from './costs.js';

/** Limits applied to one render. */
export interface TemplateLimits {
  /** Largest output (and largest intermediate string) a render may produce, in UTF-16 code units. */
  maxOutputBytes: number;
  /** Total loop iterations (range/each, until, …) a render may run across all loops. */
  maxIterations: number;
  /** Longest list (and most regex matches, split parts…) a single function may build. */
  maxListLength: number;
}

export const defaultTemplateLimits: TemplateLimits = Object.freeze({
  maxOutputBytes: 1024 * 1024,
  maxIterations: 100_000,
  maxListLength: 100_000,
});

/**
 * Per-render mutable state, handed to every helper through the handlebars data frame.
 * `produced` approximates the bytes emitted so far: printed values plus the literal text of
 * loop bodies (text outside loops is bounded by the template size and not counted).
 *
 * Besides these per-render limits, every helper charges the work it does (values visited, bytes
 * read and built) to the ambient work meter (../work-meter.ts), which bounds the CPU a rule spends.
 */
export interface RenderState {
  readonly limits: TemplateLimits;
  produced: number;
  iterations: number;
  /** Dicts created by this render (dict, list results…) that set/unset/merge may mutate in place. */
  readonly owned: WeakSet<object>;
}

export function createRenderState(limits: TemplateLimits): RenderState {
  return { limits, produced: 0, iterations: 0, owned: new WeakSet<object>() };
}

export function limitError(message: string): KubemodError {
  return new KubemodError('TEMPLATE_LIMIT', message);
}

/**
 * Errors that end the render whatever the template says: over a template limit, the work budget,
 * the nesting limit or the YAML alias limit. Nothing may turn them into a value (a Fault that `or`
 * skips, Sprig's "" for a failed toJson, fromYaml's Error map…).
 */
export function isLimitError(err: unknown): err is KubemodError {
  if (!(err instanceof KubemodError)) return false;
  const kind = err.kind;
  return (
    kind === 'TEMPLATE_LIMIT' ||
    kind === 'WORK_LIMIT' ||
    kind === 'DEPTH_LIMIT' ||
    kind === 'YAML_LIMIT' ||
    kind === 'LOOKUP_LIMIT'
  );
}

/** Counts bytes towards the output budget (and their building to the work meter). */
export function chargeOutput(state: RenderState, bytes: number, where: string): void {
  state.produced += bytes;
  if (state.produced > state.limits.maxOutputBytes) {
    throw limitError(`template output exceeds ${state.limits.maxOutputBytes} bytes at ${where}`);
  }
  charge(bytes >> 6);
}

/** Counts one loop iteration. */
export function chargeIteration(state: RenderState, where: string): void {
  state.iterations += 1;
  if (state.iterations > state.limits.maxIterations) {
    throw limitError(`template exceeds ${state.limits.maxIterations} loop iterations at ${where}`);
  }
  charge(ITERATION_UNITS);
}

/** Refuses a loop of `count` iterations before building it when it cannot fit in what is left. */
export function checkIterations(state: RenderState, count: number, where: string): void {
  if (count > state.limits.maxIterations - state.iterations) {
    throw limitError(
      `template exceeds ${state.limits.maxIterations} loop iterations at ${where} (${count} more asked)`,
    );
  }
}

/** Rejects a single intermediate string larger than the output budget (repeat, printf, cat…). */
export function checkStringSize(state: RenderState, length: number, where: string): void {
  if (length > state.limits.maxOutputBytes) {
    throw limitError(
      `${where} would produce ${length} bytes, over the ${state.limits.maxOutputBytes} byte limit`,
    );
  }
}

/** Rejects a list (or match count, split…) longer than the list limit, before it is built. */
export function checkListSize(state: RenderState, length: number, where: string): void {
  if (length > state.limits.maxListLength) {
    throw limitError(
      `${where} would produce ${length} elements, over the ${state.limits.maxListLength} element limit`,
    );
  }
}
