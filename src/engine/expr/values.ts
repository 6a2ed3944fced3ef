import { charge } from '../active-meter.js';

/**
 * Runtime values of the select language. JSON values as decoded from the object, plus JavaScript's
 * `undefined` standing for KubeMod's `undefined` (a path that does not exist), plus dates.
 */
export class DateValue {
  constructor(readonly ms: number) {}

  toString(): string {
    return new Date(this.ms).toISOString();
  }
}

export type Value = unknown;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof DateValue)
  );
}

export function hasOwn(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Structural equality of JSON values (and dates). `undefined` equals nothing, not even itself.
 * Containers are compared without recursion, charging one work unit per pair of members compared,
 * so equality of deep or large values costs what it reads and never overflows the stack.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (!sameShape(x, y, pending)) return false;
  }
  return true;
}

/** Compares two values one level deep, pushing the pairs of members still to compare. */
function sameShape(a: unknown, b: unknown, pending: unknown[]): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (a instanceof DateValue || b instanceof DateValue) {
    return a instanceof DateValue && b instanceof DateValue && a.ms === b.ms;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    charge(1 + a.length);
    for (let i = 0; i < a.length; i++) pending.push(a[i], b[i]);
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    charge(1 + keys.length);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!hasOwn(b, key)) return false;
      pending.push(a[key], b[key]);
    }
    return true;
  }
  return false;
}

/** KubeMod's isEmpty: empty array, empty object, empty string, null and undefined. */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) {
    for (const key in value) if (hasOwn(value, key)) return false;
    return true;
  }
  return false;
}

export function typeName(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof DateValue) return 'date';
  return typeof value;
}
