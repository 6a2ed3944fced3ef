import { renderError } from './faults.js';
import { fixed, variadic, type FunctionFamily } from './function-table.js';
import { deepEqual, goKindName, goTruthy, goTypeName, toStringArg } from './go-values.js';

/** Sprig's "empty": nil, false, 0, "" and empty lists/maps. */
export function isEmpty(value: unknown): boolean {
  return !goTruthy(value);
}

/** Sprig's default/flow functions and type tests. */
export function defaultFunctions(): FunctionFamily {
  return {
    default: variadic(
      1,
      ([fallback, ...given]) => (given.length === 0 || isEmpty(given[0]) ? fallback : given[0]),
      2,
    ),
    empty: fixed(1, ([v]) => isEmpty(v)),
    coalesce: variadic(0, (args) => args.find((v) => !isEmpty(v)) ?? null),
    all: variadic(0, (args) => args.every((v) => !isEmpty(v))),
    any: variadic(0, (args) => args.some((v) => !isEmpty(v))),
    ternary: fixed(3, ([whenTrue, whenFalse, cond]) => {
      if (typeof cond !== 'boolean')
        throw renderError(`wrong type for value; expected bool; got ${goTypeName(cond)}`);
      return cond ? whenTrue : whenFalse;
    }),
    fail: fixed(1, ([message]) => {
      throw renderError(`fail: ${toStringArg(message, 'fail')}`);
    }),
    required: fixed(2, ([message, value]) => {
      if (value === null || value === undefined || value === '')
        throw renderError(`required: ${toStringArg(message, 'required')}`);
      return value;
    }),
    kindOf: fixed(1, ([v]) => goKindName(v)),
    typeOf: fixed(1, ([v]) => goTypeName(v)),
    kindIs: fixed(2, ([kind, v]) => toStringArg(kind, 'kindIs') === goKindName(v)),
    typeIs: fixed(2, ([type, v]) => toStringArg(type, 'typeIs') === goTypeName(v)),
    typeIsLike: fixed(2, ([type, v]) => {
      const wanted = toStringArg(type, 'typeIsLike');
      return wanted === goTypeName(v) || wanted === `*${goTypeName(v)}`;
    }),
    deepEqual: fixed(2, ([a, b]) => deepEqual(a, b)),
  };
}
