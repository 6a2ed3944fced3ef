import type { RenderState } from './render-state.js';

/** The parts of handlebars' helper `options` argument the helpers use. */
export interface HelperOptions {
  fn: (context: unknown, options?: { data?: unknown; blockParams?: unknown[] }) => string;
  inverse: (context: unknown, options?: { data?: unknown; blockParams?: unknown[] }) => string;
  data: { km?: RenderState; [key: string]: unknown } | undefined;
  loc: { source?: string } | undefined;
  hash: Record<string, unknown> | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Splits a handlebars helper call into its arguments and its options object (always last). */
export function splitHelperArgs(raw: readonly unknown[]): {
  args: unknown[];
  options: HelperOptions;
} {
  return { args: raw.slice(0, -1), options: helperOptionsOf(raw) };
}

/**
 * The options object of a handlebars helper call (always last), without copying the arguments:
 * for the helpers every field access runs through (_field), where the copies were most of the cost.
 */
export function helperOptionsOf(raw: readonly unknown[]): HelperOptions {
  const last = raw[raw.length - 1];
  if (!isRecord(last) || (typeof last.fn !== 'function' && !('hash' in last))) {
    throw new TypeError('helper called without handlebars options');
  }
  return last as unknown as HelperOptions;
}

export function renderStateOf(options: HelperOptions): RenderState {
  const state = options.data?.km;
  if (state === undefined) throw new TypeError('template rendered without render state');
  return state;
}

/** The template fragment a helper call came from. */
export function whereOf(options: HelperOptions): string {
  return options.loc?.source ?? 'template';
}

/** A template variable: block params hold cells so `$x = v` can update them. */
export class VarCell {
  constructor(public value: unknown) {}
}
