import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { charge, depthError } from '../active-meter.js';
import { chargeListVisit, chargeMapVisit } from './costs.js';
import { renderError } from './faults.js';

/**
 * Go's view of the template data. JSON values decoded by encoding/json: string, float64 (JS
 * number), bool, nil (null), []interface{} (array), map[string]interface{} (plain object).
 * Template integers (literals, len, sprig int math) are Go ints, represented as bigint so they
 * print as integers (`1000000`, not `1e+06`). `undefined` is Go's "no value" (a missing map key).
 */
export type GoMap = Record<string, unknown>;

export function isMap(value: unknown): value is GoMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNumeric(value: unknown): value is number | bigint {
  return typeof value === 'number' || typeof value === 'bigint';
}

/** The Go type name of a value, as Go error messages and typeOf print it. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The reflect.Kind name, as sprig's kindOf prints it. */
export function goKindName(value: unknown): string {
  if (value === null || value === undefined) return 'invalid';
  if (Array.isArray(value)) return 'slice';
  if (isMap(value)) return 'map';
  return goTypeName(value);
}

/** Go template truthiness: false, 0, nil, and empty strings, slices and maps are false. */
export function goTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'string':
      return value.length > 0;
    case 'number':
      return value !== 0;
    case 'bigint':
      return value !== 0n;
    case 'object':
      return Array.isArray(value) ? value.length > 0 : mapKeys(value as GoMap).length > 0;
    default:
      return false;
  }
}

/** Reads an own property only; never the prototype chain (no constructor, __proto__…). */
export function ownValue(map: GoMap, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/**
 * Evaluates `.a.b.c` on a value with Go's rules for map[string]interface{}: the names are
 * `names[from]` up to (without) `names[to]`, as strings (a helper passes its own arguments).
 */
export function fieldChain(
  receiver: unknown,
  names: readonly unknown[],
  from = 0,
  to = names.length,
): unknown {
  let current = receiver;
  for (let i = from; i < to; i++) {
    const name = String(names[i]);
    if (current === undefined) return undefined; // missing key: Go keeps "no value"
    if (current === null) throw renderError(`nil pointer evaluating interface {}.${name}`);
    if (!isMap(current))
      throw renderError(`can't evaluate field ${name} in type ${goTypeName(current)}`);
    current = ownValue(current, name);
  }
  return current;
}

/** Creates a map whose keys can never reach Object.prototype (safe for any key, incl. __proto__). */
export function newMap(): GoMap {
  return Object.create(null) as GoMap;
}

/**
 * Go's nil map, as a map parameter receives it for an argument with no value: reads as empty, and
 * writing to it fails (Go panics: "assignment to entry in nil map").
 */
export const NIL_MAP: GoMap = Object.freeze(newMap());

export function setKey(map: GoMap, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Maps up to this many keys are listed without charging: the common case stays free. */
const FREE_KEYS = 32;

/**
 * The own keys of a map, charged one unit a key (listing the keys of a large map is O(n), so
 * loops over `if $bigMap`, `len $bigMap`… must pay for it).
 */
export function mapKeys(map: GoMap): string[] {
  const keys = Object.keys(map);
  if (keys.length > FREE_KEYS) charge(keys.length);
  return keys;
}

/** Charges sorting `n` items (about n·log2(n) / 4 units), before the sort runs. */
export function chargeSort(n: number): void {
  if (n > 8) charge((n * Math.ceil(Math.log2(n))) >> 2);
}

/** The keys of a map, charged for listing and sorting; the caller sorts them. */
export function keysToSort(map: GoMap): string[] {
  const keys = mapKeys(map);
  chargeSort(keys.length);
  return keys;
}

/** An integer argument (Go int); accepts template ints and integral float64 values. */
export function toIntArg(value: unknown, what: string): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw renderError(`wrong type for value; expected int; got ${goTypeName(value)} for ${what}`);
}

export function toStringArg(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  if (value === undefined) throw renderError(`invalid value; expected string for ${what}`);
  throw renderError(`wrong type for value; expected string; got ${goTypeName(value)} for ${what}`);
}

export function toListArg(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw renderError(
    `wrong type for value; expected []interface {}; got ${goTypeName(value)} for ${what}`,
  );
}

export function toMapArg(value: unknown, what: string): GoMap {
  if (isMap(value)) return value;
  throw renderError(
    `wrong type for value; expected map[string]interface {}; got ${goTypeName(value)} for ${what}`,
  );
}

/** spf13/cast ToInt64 as sprig uses it: lenient, invalid input becomes 0. */
export function castInt64(value: unknown): bigint {
  if (typeof value === 'bigint') return BigInt.asIntN(64, value);
  if (typeof value === 'number')
    return Number.isFinite(value) ? BigInt.asIntN(64, BigInt(Math.trunc(value))) : 0n;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^[+-]?(0x[0-9a-f]+|0o?[0-7]+|0b[01]+|\d+)$/i.test(text)) {
      const negative = text.startsWith('-');
      const body = text.replace(/^[+-]/, '');
      const normalised = /^0[0-7]+$/.test(body) ? `0o${body.slice(1)}` : body;
      const parsed = BigInt(normalised);
      return BigInt.asIntN(64, negative ? -parsed : parsed);
    }
    return 0n;
  }
  return 0n;
}

/** spf13/cast ToFloat64: lenient, invalid input becomes 0. */
export function castFloat64(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const parsed = Number(value.trim());
    return value.trim() !== '' && Number.isFinite(parsed) ? parsed : 0;
  }
  return 0;
}

/** Go's eq on basic values. Numbers compare by value whatever their Go type (lenient). */
export function basicEqual(a: unknown, b: unknown): boolean {
  const left = a === undefined ? null : a;
  const right = b === undefined ? null : b;
  if (isNumeric(left) && isNumeric(right)) return compareNumbers(left, right) === 0;
  // Go compares anything with nil (true only for two nils), lists and maps included.
  if (left === null || right === null) return left === right;
  if (typeof left === 'object') throw renderError(`non-comparable type ${goTypeName(left)}`);
  if (typeof right === 'object') throw renderError(`non-comparable type ${goTypeName(right)}`);
  return left === right;
}

export function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Go's lt/le/gt/ge ordering: numbers with numbers, strings with strings. */
export function basicCompare(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw renderError(`incompatible types for comparison: ${goTypeName(a)} and ${goTypeName(b)}`);
}

/**
 * reflect.DeepEqual on JSON-like values. Charges every pair of values it compares and stops at
 * MAX_VALUE_DEPTH, so shared (DAG) or cyclic values built by a template cannot make it run away.
 */
export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (depth >= MAX_VALUE_DEPTH) throw depthError('deepEqual');
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    chargeListVisit(a.length);
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    chargeMapVisit(keys.length);
    for (const k of keys)
      if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k], depth + 1)) return false;
    return true;
  }
  return false;
}

/** The UTF-8 length Go's len reports for a string. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
