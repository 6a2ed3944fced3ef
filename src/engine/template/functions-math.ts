import { renderError } from './faults.js';
import { fixed, variadic, type FunctionFamily } from './function-table.js';
import { castFloat64, castInt64 } from './go-values.js';

const i64 = (v: bigint): bigint => BigInt.asIntN(64, v);

/** Sprig's math: integer functions return Go int64 (bigint), the *f and rounding functions float64. */
export function mathFunctions(): FunctionFamily {
  return {
    add: variadic(0, (args) => i64(args.reduce<bigint>((sum, v) => sum + castInt64(v), 0n))),
    add1: fixed(1, ([v]) => i64(castInt64(v) + 1n)),
    sub: fixed(2, ([a, b]) => i64(castInt64(a) - castInt64(b))),
    mul: variadic(1, (args) =>
      i64(args.reduce<bigint>((product, v) => product * castInt64(v), 1n)),
    ),
    div: fixed(2, ([a, b]) => i64(castInt64(a) / nonZero(castInt64(b)))),
    mod: fixed(2, ([a, b]) => castInt64(a) % nonZero(castInt64(b))),
    max: variadic(1, (args) => args.map(castInt64).reduce((m, v) => (v > m ? v : m))),
    biggest: variadic(1, (args) => args.map(castInt64).reduce((m, v) => (v > m ? v : m))),
    min: variadic(1, (args) => args.map(castInt64).reduce((m, v) => (v < m ? v : m))),
    addf: variadic(0, (args) => args.reduce<number>((sum, v) => sum + castFloat64(v), 0)),
    subf: variadic(1, ([first, ...rest]) =>
      rest.reduce<number>((d, v) => d - castFloat64(v), castFloat64(first)),
    ),
    mulf: variadic(1, (args) => args.reduce<number>((p, v) => p * castFloat64(v), 1)),
    divf: variadic(1, ([first, ...rest]) =>
      rest.reduce<number>((q, v) => q / castFloat64(v), castFloat64(first)),
    ),
    maxf: variadic(1, (args) => Math.max(...args.map(castFloat64))),
    minf: variadic(1, (args) => Math.min(...args.map(castFloat64))),
    floor: fixed(1, ([v]) => Math.floor(castFloat64(v))),
    ceil: fixed(1, ([v]) => Math.ceil(castFloat64(v))),
    round: variadic(
      2,
      ([v, p, r]) =>
        round(castFloat64(v), Number(castInt64(p)), r === undefined ? 0.5 : castFloat64(r)),
      3,
    ),
    int: fixed(1, ([v]) => castInt64(v)),
    int64: fixed(1, ([v]) => castInt64(v)),
    float64: fixed(1, ([v]) => castFloat64(v)),
    atoi: fixed(1, ([v]) => (typeof v === 'string' && /^[+-]?\d+$/.test(v) ? castInt64(v) : 0n)),
  };
}

function nonZero(v: bigint): bigint {
  if (v === 0n) throw renderError('integer divide by zero');
  return v;
}

/** Sprig's round(a, places, roundOn). */
function round(value: number, places: number, roundOn: number): number {
  const pow = 10 ** Math.min(Math.max(places, 0), 300);
  const digit = pow * value;
  const integral = Math.trunc(digit);
  const fraction = Math.abs(digit - integral);
  const rounded = fraction >= roundOn ? (digit < 0 ? integral - 1 : integral + 1) : integral;
  return rounded / pow;
}
