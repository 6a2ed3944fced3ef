import { charge, chargeBytes } from '../active-meter.js';
import { CALL_UNITS } from './costs.js';
import type { Helper } from './control-helpers.js';
import { locate } from './control-helpers.js';
import { Fault, renderError } from './faults.js';
import type { FunctionFamily, TemplateFunction } from './function-table.js';
import { builtinFunctions } from './functions-builtin.js';
import { clusterFunctions } from './functions-cluster.js';
import { defaultFunctions } from './functions-defaults.js';
import { dictFunctions } from './functions-dicts.js';
import { encodingFunctions } from './functions-encoding.js';
import { listFunctions } from './functions-lists.js';
import { mathFunctions } from './functions-math.js';
import { regexFunctions } from './functions-regex.js';
import { stringFunctions } from './functions-strings.js';
import { NIL_MAP } from './go-values.js';
import { renderStateOf, splitHelperArgs, whereOf } from './helper-options.js';
import { checkListSize, checkStringSize, isLimitError } from './render-state.js';

/**
 * Every function a template may call: Go's builtins plus the allow-listed Sprig subset. Later
 * families win on name clashes (Sprig's `slice` replaces Go's, as Sprig's FuncMap does in Go).
 * There is deliberately no env, expandenv, file, network, exec, random or clock function.
 */
export function templateFunctions(): ReadonlyMap<string, TemplateFunction> {
  const families: FunctionFamily[] = [
    builtinFunctions(),
    stringFunctions(),
    regexFunctions(),
    listFunctions(),
    dictFunctions(),
    encodingFunctions(),
    mathFunctions(),
    defaultFunctions(),
    clusterFunctions(),
  ];
  const table = new Map<string, TemplateFunction>();
  for (const family of families)
    for (const [name, fn] of Object.entries(family)) table.set(name, fn);
  return table;
}

/**
 * Wraps a template function as a handlebars helper: arity check, nil arguments (no value is nil,
 * or a nil map for a map parameter) and results (a nil result is no value), Faults, size
 * limits and work charging. Every call is charged one unit plus the strings it is given (before
 * it runs: reading them is what costs, e.g. sha256sum of a 1 MB string) and the string or list it
 * builds; functions that walk deeper (lists of lists, maps, printing, JSON…) charge what they visit
 * themselves. Limit errors (TEMPLATE_LIMIT, WORK_LIMIT, DEPTH_LIMIT, YAML_LIMIT) always end the
 * render: they never become a Fault that `and`/`or` could skip.
 */
export function functionHelper(name: string, spec: TemplateFunction): Helper {
  return (...raw) => {
    const { args, options } = splitHelperArgs(raw);
    const where = whereOf(options);
    const values = args.map((a, i) =>
      a !== undefined
        ? a
        : spec.mapParams === 'all' || (spec.mapParams === 'first' && i === 0)
          ? NIL_MAP
          : null,
    );
    if (spec.lazy !== true) {
      const fault = values.find((v) => v instanceof Fault);
      if (fault !== undefined) return fault;
    }
    if (values.length < spec.min || values.length > spec.max) {
      const want =
        spec.min === spec.max
          ? `${spec.min}`
          : spec.max === Number.POSITIVE_INFINITY
            ? `at least ${spec.min}`
            : `${spec.min} to ${spec.max}`;
      return new Fault(
        renderError(
          `wrong number of args for ${name}: want ${want} got ${values.length} at ${where}`,
        ),
      );
    }
    const state = renderStateOf(options);
    try {
      charge(CALL_UNITS + (stringBytes(values) >> 6));
      const result = spec.fn(values, { name, state, where });
      // Go digs a function's result out of its interface{}: a nil result is no value.
      if (result === null || result === undefined) return undefined;
      if (typeof result === 'string') {
        checkStringSize(state, result.length, `${name} at ${where}`);
        if (result.length > 64 && !values.includes(result)) chargeBytes(result.length);
      } else if (Array.isArray(result) && !values.includes(result)) {
        checkListSize(state, result.length, `${name} at ${where}`);
        charge(result.length);
      }
      return result;
    } catch (err) {
      if (isLimitError(err)) throw err;
      return new Fault(locate(err, where, name));
    }
  };
}

/** The total length of the string arguments of a call. */
function stringBytes(values: readonly unknown[]): number {
  let bytes = 0;
  for (const value of values) if (typeof value === 'string') bytes += value.length;
  return bytes;
}
