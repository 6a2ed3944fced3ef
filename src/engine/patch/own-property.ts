import type { JsonObject, JsonValue } from '../json.js';
import { charge } from '../active-meter.js';

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

/**
 * A deep copy of a JSON value (safe for `__proto__` keys). Iterative, so any depth is copied
 * without recursion; charges the active work meter about one unit per value copied unless
 * `metered` is false.
 */
export function cloneJson(value: JsonValue, metered = true): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  const root = emptyCopy(value);
  // Pairs of (original, copy) whose members are still to be copied.
  const pending: [JsonObject | JsonValue[], JsonObject | JsonValue[]][] = [[value, root]];
  for (let task = pending.pop(); task !== undefined; task = pending.pop()) {
    const [from, to] = task;
    if (Array.isArray(from)) {
      const out = to as JsonValue[];
      for (const item of from) {
        if (item === null || typeof item !== 'object') {
          out.push(item);
        } else {
          const copy = emptyCopy(item);
          pending.push([item, copy]);
          out.push(copy);
        }
      }
      if (metered) charge(from.length + 1);
    } else {
      const out = to as JsonObject;
      const keys = Object.keys(from);
      for (const key of keys) {
        const item = from[key] as JsonValue;
        if (item === null || typeof item !== 'object') {
          setOwn(out, key, item);
        } else {
          const copy = emptyCopy(item);
          pending.push([item, copy]);
          setOwn(out, key, copy);
        }
      }
      if (metered) charge(keys.length + 1);
    }
  }
  return root;
}

function emptyCopy(value: JsonObject | JsonValue[]): JsonObject | JsonValue[] {
  return Array.isArray(value) ? [] : {};
}
