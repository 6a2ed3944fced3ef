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
}

export type FunctionFamily = Readonly<Record<string, TemplateFunction>>;

/** A function taking exactly `arity` arguments. */
export function fixed(arity: number, fn: TemplateFunction['fn']): TemplateFunction {
  return { fn, min: arity, max: arity };
}

/** A function taking at least `min` (and at most `max`) arguments. */
export function variadic(
  min: number,
  fn: TemplateFunction['fn'],
  max = Number.POSITIVE_INFINITY,
): TemplateFunction {
  return { fn, min, max };
}
