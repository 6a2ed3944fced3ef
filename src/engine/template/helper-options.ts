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
  const last = raw[raw.length - 1];
  if (!isRecord(last) || (typeof last.fn !== 'function' && !('hash' in last))) {
    throw new TypeError('helper called without handlebars options');
  }
  return { args: raw.slice(0, -1), options: last as unknown as HelperOptions };
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
