import type { JsonObject, JsonValue } from './json.js';
import { parseJsonPointer } from './patch/index.js';
import { charge, chargeBytes } from './active-meter.js';

/**
 * Makes the containers along a JSON pointer writable by shallow-copying those still shared with
 * the object as received. Patching then touches only copies, so a request is never copied whole:
 * the cost is proportional to the depth of the paths patched, not to the size of the object.
 */
export class CopyOnWrite {
  // A Set, not a WeakSet: it lives only as long as one evaluation's working object, and V8's
  // WeakSet (an ephemeron table) costs more per lookup and per collection.
  private readonly owned = new Set<object>();

  constructor(readonly root: JsonObject) {
    this.owned.add(root);
  }

  /** Copies every container on the path to (and including) the parent of its last segment. */
  prepare(pointer: string | readonly string[]): void {
    const segments = typeof pointer === 'string' ? parseJsonPointer(pointer) : pointer;
    charge(segments.length);
    let node: JsonValue = this.root;
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i] ?? '';
      const next = this.ownChild(node, segment);
      if (next === undefined) return;
      node = next;
    }
  }

  /** The child at `segment`, replaced in its parent by an owned copy when it is a shared container. */
  private ownChild(node: JsonValue, segment: string): JsonValue | undefined {
    if (Array.isArray(node)) {
      const index = arrayIndex(segment, node.length);
      if (index === undefined) return undefined;
      const child = node[index];
      if (child === undefined) return undefined;
      const copy = this.copyOf(child);
      node[index] = copy;
      return copy;
    }
    if (
      typeof node !== 'object' ||
      node === null ||
      !Object.prototype.hasOwnProperty.call(node, segment)
    ) {
      return undefined;
    }
    const child = node[segment];
    if (child === undefined) return undefined;
    const copy = this.copyOf(child);
    // An assignment finds the own data member checked above before anything inherited, so it
    // replaces that member even when it is named `__proto__`.
    if (copy !== child) node[segment] = copy;
    return copy;
  }

  /**
   * A shallow copy of a shared container. Members are defined, not assigned, so a `__proto__`
   * member stays a member (Object.assign would set the copy's prototype and drop it). Each
   * container is copied at most once per CopyOnWrite; arrays are charged by length, objects one
   * unit (counting members would cost as much as copying them on this hot path).
   */
  private copyOf(value: JsonValue): JsonValue {
    if (typeof value !== 'object' || value === null || this.owned.has(value)) return value;
    let copy: JsonObject | JsonValue[];
    if (Array.isArray(value)) {
      chargeBytes(value.length);
      copy = value.slice();
    } else {
      charge(1);
      copy = copyObject(value);
    }
    this.owned.add(copy);
    return copy;
  }
}

/** A shallow copy with the same prototype and own members (`__proto__` included). */
function copyObject(value: JsonObject): JsonObject {
  const proto: unknown = Object.getPrototypeOf(value);
  // Spread defines members (CreateDataProperty), and is V8's fastest object copy.
  if (proto === Object.prototype) return { ...value };
  const copy = Object.create(proto as object | null) as JsonObject;
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: value[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** KubeMod array indexes: non-negative, or negative counting from the end (`-1` is the last). */
function arrayIndex(segment: string, length: number): number | undefined {
  if (!/^-?\d+$/.test(segment)) return undefined;
  const n = Number(segment);
  const index = n < 0 ? length + n : n;
  return index >= 0 && index < length ? index : undefined;
}
