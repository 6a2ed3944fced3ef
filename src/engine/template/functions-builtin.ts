import { chargeBytes } from '../active-meter.js';
import { Fault, renderError } from './faults.js';
import { fixed, variadic, type FunctionFamily, type TemplateFunction } from './function-table.js';
import { goSprint, goSprintf, goSprintln } from './go-printf.js';
import {
  basicCompare,
  basicEqual,
  goTruthy,
  goTypeName,
  isMap,
  mapKeys,
  ownValue,
  toIntArg,
  toStringArg,
  utf8Length,
} from './go-values.js';

/** Go text/template's predefined functions (call is not provided). */
export function builtinFunctions(): FunctionFamily {
  return {
    and: lazyLogic(false),
    or: lazyLogic(true),
    not: fixed(1, ([v]) => !goTruthy(v)),
    len: fixed(1, ([v]) => BigInt(goLen(v))),
    index: variadic(1, ([item, ...keys]) => goIndex(item, keys)),
    print: variadic(0, (args, call) => goSprint(args, call.state.limits.maxOutputBytes)),
    println: variadic(0, (args, call) => goSprintln(args, call.state.limits.maxOutputBytes)),
    printf: variadic(1, ([format, ...args], call) =>
      goSprintf(toStringArg(format, 'printf format'), args, call.state.limits.maxOutputBytes),
    ),
    eq: variadic(2, ([first, ...rest]) => rest.some((other) => basicEqual(first, other))),
    ne: fixed(2, ([a, b]) => !basicEqual(a, b)),
    lt: fixed(2, ([a, b]) => basicCompare(a, b) < 0),
    le: fixed(2, ([a, b]) => basicCompare(a, b) <= 0),
    gt: fixed(2, ([a, b]) => basicCompare(a, b) > 0),
    ge: fixed(2, ([a, b]) => basicCompare(a, b) >= 0),
    html: variadic(0, (args, call) => htmlEscape(escaperText(args, call.state.limits))),
    js: variadic(0, (args, call) => jsEscape(escaperText(args, call.state.limits))),
    urlquery: variadic(0, (args, call) =>
      encodeURIComponent(escaperText(args, call.state.limits))
        .replace(/%20/g, '+')
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    ),
  };
}

/** Go 1.18+ and/or: stop at the first falsy (and) / truthy (or) argument and return it. */
function lazyLogic(stopWhenTruthy: boolean): TemplateFunction {
  return {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    lazy: true,
    fn: (args) => {
      let last: unknown = null;
      for (const arg of args) {
        if (arg instanceof Fault) throw arg.error;
        last = arg;
        if (goTruthy(arg) === stopWhenTruthy) return arg;
      }
      return last;
    },
  };
}

export function goLen(value: unknown): number {
  if (typeof value === 'string') return utf8Length(value);
  if (Array.isArray(value)) return value.length;
  if (isMap(value)) return mapKeys(value).length;
  if (value === null || value === undefined) throw renderError('len of nil pointer');
  throw renderError(`len of type ${goTypeName(value)}`);
}

export function goIndex(item: unknown, keys: readonly unknown[]): unknown {
  if (item === null || item === undefined) throw renderError('index of untyped nil');
  let current: unknown = item;
  for (const key of keys) {
    if (current === null || current === undefined) throw renderError('index of nil pointer');
    if (Array.isArray(current) || typeof current === 'string') {
      const i = toIntArg(key, 'index');
      if (typeof current === 'string') chargeBytes(current.length);
      const length = typeof current === 'string' ? Buffer.byteLength(current) : current.length;
      if (i < 0 || i >= length) throw renderError(`index out of range: ${i}`);
      current =
        typeof current === 'string' ? BigInt(Buffer.from(current, 'utf8')[i] ?? 0) : current[i];
    } else if (isMap(current)) {
      if (typeof key !== 'string')
        throw renderError(`value has type ${goTypeName(key)}; should be string`);
      const value = ownValue(current, key);
      current = value === undefined ? null : value;
    } else {
      throw renderError(`can't index item of type ${goTypeName(current)}`);
    }
  }
  return current;
}

/**
 * The text html, js and urlquery escape (Go's evalArgs): the arguments as fmt.Sprint prints them,
 * except that each goes through the template printer first, so a nil is `<no value>`.
 */
function escaperText(args: readonly unknown[], limits: { maxOutputBytes: number }): string {
  return goSprint(
    args.map((a) => (a === null || a === undefined ? '<no value>' : a)),
    limits.maxOutputBytes,
  );
}

function htmlEscape(text: string): string {
  const map: Record<string, string> = {
    '<': '&lt;',
    '>': '&gt;',
    '&': '&amp;',
    "'": '&#39;',
    '"': '&#34;',
    '\0': '\uFFFD',
  };
  return text.replace(/[<>&'"\0]/g, (c) => map[c] ?? c);
}

function jsEscape(text: string): string {
  const map: Record<string, string> = {
    '\\': '\\\\',
    "'": "\\'",
    '"': '\\"',
    '<': '\\u003C',
    '>': '\\u003E',
    '&': '\\u0026',
    '=': '\\u003D',
  };
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const mapped = map[c];
    if (mapped !== undefined) out += mapped;
    else if (code < 0x20 || code === 0x7f)
      out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += c;
  }
  return out;
}
