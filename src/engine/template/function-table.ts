import type { RenderState } from './render-state.js';

/** What a template function learns about its call. */
export interface CallContext {
  readonly name: string;
  readonly state: RenderState;
  /** The template fragment being evaluated, for error messages. */
  readonly where: string;
}

export interface TemplateFunction {
  readonly fn: (args: unknown[], call: CallContext) => unknown;
  readonly min: number;
  readonly max: number;
  /** Receives unevaluated errors (Faults) as arguments; only Go's lazy `and`/`or` need this. */
  readonly lazy?: boolean;
  /**
   * Which parameters are Go maps (map[string]interface{}): the first, or all. Go hands such a
   * parameter a nil map when the argument has no value (a missing key, or a nil that went through
   * a pipeline or variable), which reads as empty; the function then receives NIL_MAP.
   */
  readonly mapParams?: 'first' | 'all';
}

export type FunctionFamily = Readonly<Record<string, TemplateFunction>>;

/** A function taking exactly `arity` arguments. */
export function fixed(arity: number, fn: TemplateFunction['fn']): TemplateFunction {
  return { fn, min: arity, max: arity };
}

/** The same function, declaring its map parameters (see TemplateFunction.mapParams). */
export function withMapParams(
  spec: TemplateFunction,
  mapParams: 'first' | 'all',
): TemplateFunction {
  return { ...spec, mapParams };
}

/** A function taking at least `min` (and at most `max`) arguments. */
export function variadic(
  min: number,
  fn: TemplateFunction['fn'],
  max = Number.POSITIVE_INFINITY,
): TemplateFunction {
  return { fn, min, max };
}
