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

/** Structural equality of JSON values (and dates). `undefined` equals nothing, not even itself. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (a instanceof DateValue && b instanceof DateValue) return a.ms === b.ms;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** KubeMod's isEmpty: empty array, empty object, empty string, null and undefined. */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return false;
}

export function typeName(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof DateValue) return 'date';
  return typeof value;
}
