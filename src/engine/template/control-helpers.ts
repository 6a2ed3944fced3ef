import { KubemodError } from '../../errors/catalog.js';
import { Fault, renderError, unfault } from './faults.js';
import { formatValue } from './go-print.js';
import { fieldChain, goTruthy, isMap, keysToSort } from './go-values.js';
import {
  renderStateOf,
  helperOptionsOf,
  splitHelperArgs,
  VarCell,
  whereOf,
  type HelperOptions,
} from './helper-options.js';
import {
  chargeIteration,
  chargeOutput,
  checkIterations,
  isLimitError,
  type RenderState,
} from './render-state.js';

export type Helper = (this: unknown, ...raw: unknown[]) => unknown;

/** Adds the fragment to a render error's message. */
export function locate(err: unknown, where: string, fn?: string): KubemodError {
  if (err instanceof KubemodError) {
    if (err.kind !== 'TEMPLATE_RENDER' || err.message.includes(' at {{')) return err;
    return renderError(
      fn === undefined
        ? `${err.message} at ${where}`
        : `error calling ${fn} at ${where}: ${err.message}`,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return renderError(
    fn === undefined ? `${message} at ${where}` : `error calling ${fn} at ${where}: ${message}`,
  );
}

/** Evaluates the helper body, turning render errors into Faults (see faults.ts) and locating them. */
function guarded(options: HelperOptions, body: () => unknown): unknown {
  try {
    return body();
  } catch (err) {
    if (isLimitError(err)) throw err;
    return new Fault(locate(err, whereOf(options)));
  }
}

/**
 * Iterates a Go range value: [element, key] pairs. A range that cannot fit in the iterations left
 * is refused before its entries are built.
 */
function rangeEntries(value: unknown, state: RenderState, where: string): [unknown, unknown][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    checkIterations(state, value.length, where);
    return value.map((v, i) => [v, BigInt(i)]);
  }
  if (isMap(value)) {
    const keys = keysToSort(value);
    checkIterations(state, keys.length, where);
    return keys.sort().map((k) => [value[k], k]);
  }
  if (typeof value === 'bigint') {
    if (value > 10_000_000n) throw renderError(`range over ${value} is too large`);
    checkIterations(state, Number(value), where);
    return Array.from({ length: Math.max(Number(value), 0) }, (_, i) => [BigInt(i), BigInt(i)]);
  }
  throw renderError(`range can't iterate over ${formatValue(value, 256)}`);
}

/** Runs one loop body per entry, charging iterations and the loop body's literal text to the budget. */
export function runLoop(
  state: RenderState,
  where: string,
  entries: readonly [unknown, unknown][],
  body: (element: unknown, key: unknown, index: number) => string,
): string {
  let out = '';
  entries.forEach(([element, key], index) => {
    chargeIteration(state, where);
    const before = state.produced;
    const chunk = body(element, key, index);
    const uncounted = chunk.length - (state.produced - before);
    if (uncounted > 0) chargeOutput(state, uncounted, where);
    out += chunk;
  });
  return out;
}

/** The helpers the Go translation emits (names start with `_`, which Go identifiers cannot reach as functions). */
export function controlHelpers(): Record<string, Helper> {
  return {
    _int: (...raw) => {
      const { args } = splitHelperArgs(raw);
      return BigInt(String(args[0]));
    },
    // `base name…` then the options: the names are read in place, no argument copies.
    _field: (...raw) => {
      const options = helperOptionsOf(raw);
      const base = raw.length > 1 ? raw[0] : undefined;
      if (base instanceof Fault) return base;
      return guarded(options, () => fieldChain(base, raw, 1, raw.length - 1));
    },
    _dfield: (...raw) => {
      const options = helperOptionsOf(raw);
      const base = raw.length > 1 ? raw[0] : undefined;
      if (base instanceof Fault) return base;
      return guarded(options, () => dig(fieldChain(base, raw, 1, raw.length - 1)));
    },
    _dig: (...raw) => {
      const { args } = splitHelperArgs(raw);
      return dig(args[0]);
    },
    _get: (...raw) => {
      const { args } = splitHelperArgs(raw);
      const cell = args[0];
      return cell instanceof VarCell ? cell.value : undefined;
    },
    _dget: (...raw) => {
      const { args } = splitHelperArgs(raw);
      const cell = args[0];
      return cell instanceof VarCell ? dig(cell.value) : undefined;
    },
    _assign: (...raw) => {
      const { args, options } = splitHelperArgs(raw);
      const [cell, value] = args;
      const resolved = dig(unfaultAt(value, options));
      if (cell instanceof VarCell) cell.value = resolved;
      return '';
    },
    _print: (...raw) => {
      const { args, options } = splitHelperArgs(raw);
      const value = unfaultAt(args[0], options);
      const state = renderStateOf(options);
      // Go digs the value of each pipeline command out of its interface{}: a nil (a JSON null, a
      // missing key's zero value from `index`, a nil function result) is left as no value at all,
      // which the printer writes as `<no value>`, like a missing key. A nil inside a list or map,
      // or given to print/printf/toString, is fmt's `<nil>`.
      const text =
        value === undefined || value === null
          ? '<no value>'
          : formatValue(value, state.limits.maxOutputBytes);
      chargeOutput(state, text.length, whereOf(options));
      return text;
    },
    _let: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      const value = dig(unfaultAt(args[0], options));
      return options.fn(this, { data: options.data, blockParams: [new VarCell(value)] });
    },
    _if: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      return goTruthy(unfaultAt(args[0], options)) ? options.fn(this) : options.inverse(this);
    },
    _with: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      const value = unfaultAt(args[0], options);
      return goTruthy(value) ? options.fn(value) : options.inverse(this);
    },
    _range: function (this: unknown, ...raw) {
      const { args, options } = splitHelperArgs(raw);
      const where = whereOf(options);
      const value = unfaultAt(args[0], options);
      const state = renderStateOf(options);
      let entries: [unknown, unknown][];
      try {
        entries = rangeEntries(value, state, where);
      } catch (err) {
        throw locate(err, where);
      }
      if (entries.length === 0) return options.inverse(this);
      return runLoop(state, where, entries, (element, key) =>
        options.fn(element, {
          data: options.data,
          blockParams: [new VarCell(element), new VarCell(key)],
        }),
      );
    },
  };
}

/**
 * Go's evalPipeline takes each command's value out of its interface{}: a nil (JSON null) becomes
 * no value (undefined). Variables hold pipeline values, so they never hold a nil; a field read
 * directly as an argument (`f .x`) or a range element still can.
 */
export function dig(value: unknown): unknown {
  return value === null ? undefined : value;
}

function unfaultAt(value: unknown, options: HelperOptions): unknown {
  try {
    return unfault(value);
  } catch (err) {
    throw locate(err, whereOf(options));
  }
}
