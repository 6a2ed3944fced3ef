import { charge } from '../active-meter.js';
import { renderError } from './faults.js';
import { fixed, variadic, type CallContext, type FunctionFamily } from './function-table.js';
import { castInt64, deepEqual, goTruthy, goTypeName, toIntArg, toListArg } from './go-values.js';
import { chargeIteration, checkListSize } from './render-state.js';

const list = toListArg;

/**
 * Sprig's list functions. Lists are never mutated: append/prepend/… return new lists like Sprig
 * does. The wrapper (function-helpers.ts) charges and caps the lists they return; lengths that can
 * be known first are checked before anything is copied, and comparisons charge what they visit.
 */
export function listFunctions(): FunctionFamily {
  return {
    list: variadic(0, (args) => [...args]),
    tuple: variadic(0, (args) => [...args]),
    first: fixed(1, ([l]) => list(l, 'first')[0] ?? null),
    last: fixed(1, ([l]) => {
      const items = list(l, 'last');
      return items[items.length - 1] ?? null;
    }),
    rest: fixed(1, ([l]) => list(l, 'rest').slice(1)),
    initial: fixed(1, ([l]) => list(l, 'initial').slice(0, -1)),
    append: fixed(2, ([l, v], call) => [...grown(list(l, 'append'), 1, call), v]),
    push: fixed(2, ([l, v], call) => [...grown(list(l, 'push'), 1, call), v]),
    prepend: fixed(2, ([l, v], call) => [v, ...grown(list(l, 'prepend'), 1, call)]),
    concat: variadic(0, (args, call) => concat(args, call)),
    reverse: fixed(1, ([l]) => [...list(l, 'reverse')].reverse()),
    uniq: fixed(1, ([l]) => uniq(list(l, 'uniq'))),
    has: fixed(2, ([needle, l]) => {
      if (l === null) return false;
      const items = list(l, 'has');
      charge(items.length);
      return items.some((v) => deepEqual(v, needle));
    }),
    without: variadic(1, ([l, ...omit]) => {
      const items = list(l, 'without');
      charge(items.length * omit.length);
      return items.filter((v) => !omit.some((o) => deepEqual(v, o)));
    }),
    compact: fixed(1, ([l]) => list(l, 'compact').filter((v) => goTruthy(v))),
    slice: variadic(1, ([l, ...indices]) => slice(l, indices), 3),
    until: fixed(1, ([n], call) => range(0, Number(castInt64(n)), 1, call)),
    untilStep: fixed(3, ([start, stop, step], call) =>
      range(Number(castInt64(start)), Number(castInt64(stop)), Number(castInt64(step)), call),
    ),
  };
}

/** The list, after checking that `extra` more elements keep it within the list limit. */
function grown(items: unknown[], extra: number, call: CallContext): unknown[] {
  checkListSize(call.state, items.length + extra, call.name);
  return items;
}

function concat(args: readonly unknown[], call: CallContext): unknown[] {
  const lists = args.map((l) => list(l, 'concat'));
  checkListSize(
    call.state,
    lists.reduce((n, l) => n + l.length, 0),
    call.name,
  );
  return ([] as unknown[]).concat(...lists);
}

/** Keeps the first of equal elements. Scalars are compared through a Set, lists and maps pairwise. */
function uniq(items: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  const scalars = new Set<unknown>();
  const composites: unknown[] = [];
  for (const item of items) {
    if (typeof item === 'object' && item !== null) {
      charge(1 + composites.length);
      if (composites.some((seen) => deepEqual(seen, item))) continue;
      composites.push(item);
    } else if (typeof item === 'number' && Number.isNaN(item)) {
      // reflect.DeepEqual(NaN, NaN) is false: every NaN is kept.
    } else {
      if (scalars.has(item)) continue;
      scalars.add(item);
    }
    out.push(item);
  }
  return out;
}

/** Go's slice (strings and lists) / Sprig's slice (lists): `slice x 1 3`. */
function slice(value: unknown, indices: readonly unknown[]): unknown {
  if (value === null || value === undefined) throw renderError('slice of untyped nil');
  if (!Array.isArray(value) && typeof value !== 'string')
    throw renderError(`can't slice item of type ${goTypeName(value)}`);
  const length = value.length;
  const start = indices[0] === undefined ? 0 : toIntArg(indices[0], 'slice');
  const end = indices[1] === undefined ? length : toIntArg(indices[1], 'slice');
  if (start < 0 || end < start || end > length)
    throw renderError(`slice bounds out of range [${start}:${end}] with length ${length}`);
  return value.slice(start, end);
}

function range(start: number, stop: number, step: number, call: CallContext): bigint[] {
  const out: bigint[] = [];
  if (step === 0) return out;
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
    chargeIteration(call.state, call.name);
    out.push(BigInt(i));
  }
  return out;
}
