import { KubemodError } from '../../errors/catalog.js';

/** Limits applied to one render. */
export interface TemplateLimits {
  /** Largest output (and largest intermediate string) a render may produce, in UTF-16 code units. */
  maxOutputBytes: number;
  /** Total loop iterations (range/each, until, …) a render may run across all loops. */
  maxIterations: number;
}

export const defaultTemplateLimits: TemplateLimits = Object.freeze({
  maxOutputBytes: 1024 * 1024,
  maxIterations: 100_000,
});

/**
 * Per-render mutable state, handed to every helper through the handlebars data frame.
 * `produced` approximates the bytes emitted so far: printed values plus the literal text of
 * loop bodies (text outside loops is bounded by the template size and not counted).
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

/** Counts bytes towards the output budget. */
export function chargeOutput(state: RenderState, bytes: number, where: string): void {
  state.produced += bytes;
  if (state.produced > state.limits.maxOutputBytes) {
    throw limitError(`template output exceeds ${state.limits.maxOutputBytes} bytes at ${where}`);
  }
}

/** Counts one loop iteration. */
export function chargeIteration(state: RenderState, where: string): void {
  state.iterations += 1;
  if (state.iterations > state.limits.maxIterations) {
    throw limitError(`template exceeds ${state.limits.maxIterations} loop iterations at ${where}`);
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
