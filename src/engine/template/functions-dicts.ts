import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { depthError } from '../active-meter.js';
import { chargeKeyWrites, chargeListVisit, chargeMapBuild, chargeMapVisit } from './costs.js';
import { renderError } from './faults.js';
import {
  fixed,
  variadic,
  withMapParams,
  type CallContext,
  type FunctionFamily,
  type TemplateFunction,
} from './function-table.js';
import { strval } from './go-print.js';
import {
  chargeSort,
  isMap,
  keysToSort,
  mapKeys,
  newMap,
  NIL_MAP,
  ownValue,
  setKey,
  toMapArg,
  toStringArg,
  type GoMap,
} from './go-values.js';

const map = toMapArg;
const key = toStringArg;

/** A function whose first parameter is a Go map (see TemplateFunction.mapParams). */
function first(spec: TemplateFunction): TemplateFunction {
  return withMapParams(spec, 'first');
}

/**
 * Sprig's dict functions. Dicts built by the template (dict, merge results…) are mutated in place by
 * set/unset/merge as in Sprig; the render context (e.g. .Target) is never mutated: those functions
 * work on a copy instead, so templates cannot alter the object under evaluation.
 * Every key listed, copied or written is charged to the work meter; the recursive ones (merge,
 * deepCopy) charge every value they visit and stop at MAX_VALUE_DEPTH, so a dict that contains
 * itself (`set $d "self" $d`) or shares parts many times over is refused instead of followed.
 */
export function dictFunctions(): FunctionFamily {
  return {
    dict: variadic(0, (args, call) => dict(args, call)),
    get: first(
      fixed(2, ([d, k]) => {
        const value = ownValue(map(d, 'get'), key(k, 'get'));
        return value === undefined ? '' : value;
      }),
    ),
    set: first(
      fixed(3, ([d, k, v], call) => {
        if (d === NIL_MAP) throw renderError('assignment to entry in nil map');
        const target = writable(map(d, 'set'), call);
        chargeKeyWrites(1);
        setKey(target, key(k, 'set'), v);
        return target;
      }),
    ),
    unset: first(
      fixed(2, ([d, k], call) => {
        const target = writable(map(d, 'unset'), call);
        Reflect.deleteProperty(target, key(k, 'unset'));
        return target;
      }),
    ),
    hasKey: first(fixed(2, ([d, k]) => Object.hasOwn(map(d, 'hasKey'), key(k, 'hasKey')))),
    keys: withMapParams(
      variadic(0, (args) => {
        const all = [...new Set(args.flatMap((d) => mapKeys(map(d, 'keys'))))];
        chargeSort(all.length);
        return all.sort();
      }),
      'all',
    ),
    values: first(
      fixed(1, ([d]) => {
        const source = map(d, 'values');
        return keysToSort(source)
          .sort()
          .map((k) => source[k]);
      }),
    ),
    pick: first(variadic(1, ([d, ...names], call) => select(map(d, 'pick'), names, true, call))),
    omit: first(variadic(1, ([d, ...names], call) => select(map(d, 'omit'), names, false, call))),
    merge: withMapParams(
      variadic(1, ([dst, ...srcs], call) =>
        merge(writable(map(dst, 'merge'), call), srcs, false, call, 0),
      ),
      'all',
    ),
    mergeOverwrite: withMapParams(
      variadic(1, ([dst, ...srcs], call) =>
        merge(writable(map(dst, 'mergeOverwrite'), call), srcs, true, call, 0),
      ),
      'all',
    ),
    dig: variadic(3, (args) => dig(args)),
    deepCopy: fixed(1, ([v], call) => {
      // Sprig's copystructure cannot copy a nil (Go panics inside reflect).
      if (v === null) throw renderError('reflect: call of reflect.Value.Type on zero Value');
      return deepCopy(v, call, 0);
    }),
  };
}

function owned(state: CallContext['state'], value: GoMap): GoMap {
  state.owned.add(value);
  return value;
}

function dict(args: readonly unknown[], call: CallContext): GoMap {
  const out = owned(call.state, newMap());
  chargeMapBuild(args.length >> 1);
  const max = call.state.limits.maxOutputBytes;
  for (let i = 0; i < args.length; i += 2) {
    setKey(out, strval(args[i], max), i + 1 < args.length ? args[i + 1] : '');
  }
  return out;
}

/** The dict itself when the template created it, otherwise a shallow copy the template owns. */
function writable(d: GoMap, call: CallContext): GoMap {
  if (call.state.owned.has(d)) return d;
  const copy = owned(call.state, newMap());
  const keys = Object.keys(d);
  chargeMapBuild(keys.length);
  for (const k of keys) setKey(copy, k, d[k]);
  return copy;
}

function select(d: GoMap, names: readonly unknown[], keep: boolean, call: CallContext): GoMap {
  const wanted = new Set(names.map((n) => key(n, keep ? 'pick' : 'omit')));
  const out = owned(call.state, newMap());
  const keys = Object.keys(d);
  chargeMapBuild(keys.length);
  for (const k of keys) if (wanted.has(k) === keep) setKey(out, k, d[k]);
  return out;
}

/** mergo.Merge: fills keys missing (or empty when overwrite is off) in dst, recursing into nested maps. */
function merge(
  dst: GoMap,
  srcs: readonly unknown[],
  overwrite: boolean,
  call: CallContext,
  depth: number,
): GoMap {
  if (depth >= MAX_VALUE_DEPTH) throw depthError(call.name);
  for (const src of srcs) {
    const source = map(src, 'merge');
    const keys = Object.keys(source);
    chargeMapVisit(keys.length);
    chargeKeyWrites(keys.length);
    for (const k of keys) {
      const current = ownValue(dst, k);
      const incoming = source[k];
      if (isMap(current) && isMap(incoming))
        setKey(dst, k, merge(writable(current, call), [incoming], overwrite, call, depth + 1));
      else if (current === undefined || current === null || overwrite) setKey(dst, k, incoming);
    }
  }
  return dst;
}

function dig(args: readonly unknown[]): unknown {
  const d = map(args[args.length - 1], 'dig');
  const fallback = args[args.length - 2];
  const path = args.slice(0, -2).map((k) => key(k, 'dig'));
  let current: unknown = d;
  for (const k of path) {
    if (!isMap(current)) return fallback;
    current = ownValue(current, k);
    if (current === undefined) return fallback;
  }
  return current;
}

/** A copy as a tree: shared parts become separate copies, each charged; cycles hit the depth limit. */
function deepCopy(value: unknown, call: CallContext, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_VALUE_DEPTH) throw depthError('deepCopy');
  if (Array.isArray(value)) {
    chargeListVisit(value.length);
    return value.map((v) => deepCopy(v, call, depth + 1));
  }
  const source = value as GoMap;
  const out = owned(call.state, newMap());
  const keys = Object.keys(source);
  chargeMapBuild(keys.length);
  for (const k of keys) setKey(out, k, deepCopy(source[k], call, depth + 1));
  return out;
}
