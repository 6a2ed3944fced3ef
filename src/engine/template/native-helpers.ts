import type { Helper } from './control-helpers.js';
import { locate, runLoop } from './control-helpers.js';
import { unfault } from './faults.js';
import { formatValue } from './go-print.js';
import { isMap, mapKeys } from './go-values.js';
import { renderStateOf, splitHelperArgs, whereOf, type HelperOptions } from './helper-options.js';
import { chargeOutput, checkIterations } from './render-state.js';

/** Handlebars truthiness: falsy values and empty arrays are false. */
function hbsTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value) && !(typeof value === 'bigint' && value === 0n);
}

function resolved(value: unknown, options: HelperOptions): unknown {
  try {
    return unfault(value);
  } catch (err) {
    throw locate(err, whereOf(options));
  }
}

/** Safe replacements for handlebars' built-in block helpers, used by native handlebars templates. */
export function nativeHelpers(): Record<string, Helper> {
  return {
    _nprint: (...raw) => {
      const { args, options } = splitHelperArgs(raw);
      const value = resolved(args[0], options);
      const state = renderStateOf(options);
      const text =
        value === undefined || value === null
          ? ''
          : formatValue(value, state.limits.maxOutputBytes);
      chargeOutput(state, text.length, whereOf(options));
      return text;
    },
    if: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      return hbsTruthy(resolved(args[0], options)) ? options.fn(this) : options.inverse(this);
    },
    unless: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      return hbsTruthy(resolved(args[0], options)) ? options.inverse(this) : options.fn(this);
    },
    with: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      const value = resolved(args[0], options);
      return hbsTruthy(value)
        ? options.fn(value, { data: options.data, blockParams: [value] })
        : options.inverse(this);
    },
    each: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      const value = resolved(args[0], options);
      const state = renderStateOf(options);
      const where = whereOf(options);
      const keys = isMap(value) ? mapKeys(value) : undefined;
      const count = Array.isArray(value) ? value.length : (keys?.length ?? 0);
      checkIterations(state, count, where);
      const entries: [unknown, unknown][] = Array.isArray(value)
        ? value.map((v, i) => [v, i])
        : isMap(value) && keys !== undefined
          ? keys.map((k) => [value[k], k])
          : [];
      if (entries.length === 0) return options.inverse(this);
      return runLoop(state, where, entries, (element, key, index) => {
        const data = {
          ...options.data,
          key,
          index,
          first: index === 0,
          last: index === entries.length - 1,
          _parent: options.data,
        };
        return options.fn(element, { data, blockParams: [element, key] });
      });
    },
  };
}
