import type { JsonObject, JsonValue } from '../json.js';

/**
 * Own-property helpers for JSON objects. Plain `obj[key]` is unsafe for untrusted keys: reading
 * `__proto__` (or `constructor`, `toString`, …) finds inherited members, and assigning
 * `__proto__` changes the prototype instead of adding a member.
 */

export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The member `key` of `obj`, or `undefined` when `obj` has no such own member. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets the own member `key` of `obj` (safe for `__proto__`). */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  } else {
    obj[key] = value;
  }
}

/** Deletes the own member `key` of `obj`; does nothing when absent. */
export function deleteOwn(obj: JsonObject, key: string): void {
  if (hasOwn(obj, key)) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- JSON objects are dictionaries
    delete obj[key];
  }
}

/** A deep copy of a JSON value (safe for `__proto__` keys). */
export function cloneJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson);
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) {
    setOwn(copy, key, cloneJson(value[key] as JsonValue));
  }
  return copy;
}
