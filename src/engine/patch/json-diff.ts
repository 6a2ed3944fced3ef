import { isJsonObject, type JsonObject, type JsonPatchOperation, type JsonValue } from '../json.js';
import { escapePointerSegment, parseJsonPointer } from './json-pointer.js';
import { cloneJson, deleteOwn, getOwn, hasOwn } from './own-property.js';
import { sortStrings } from '../sort-strings.js';

/**
 * The RFC 6902 patch from `before` to `after`, for the admission response. Deterministic:
 * object members are visited in sorted (UTF-16 code unit) order, arrays front to back. Objects
 * are diffed member by member; arrays keep their common prefix and suffix, diff the overlapping
 * middle element by element, then add the extra elements of `after` (ascending indexes) or
 * remove the extra elements of `before` (descending indexes), so the ops are correct when applied
 * in order by any RFC 6902 applier. Values of a different type are replaced.
 *
 * Operations at or below the ignored paths (by default `/syntheticRefs` and
 * `/metadata/managedFields`) are dropped, and those members are stripped from the values of ops
 * that add or replace one of their ancestors. Op values are copies (never shared with `after`).
 */

export const DEFAULT_IGNORED_PATHS: readonly string[] = [
  '/syntheticRefs',
  '/metadata/managedFields',
];

export interface CreateJsonPatchOptions {
  /** JSON pointers that must never appear in the patch; default {@link DEFAULT_IGNORED_PATHS}. */
  readonly ignoredPaths?: readonly string[];
}

export function createJsonPatch(
  before: JsonValue,
  after: JsonValue,
  options: CreateJsonPatchOptions = {},
): JsonPatchOperation[] {
  const ignored = options.ignoredPaths ?? DEFAULT_IGNORED_PATHS;
  const ops: JsonPatchOperation[] = [];
  const differ = new Differ(ops, new Set(ignored), ignored.map(parseJsonPointer));
  differ.diff(before, after, '');
  return ops;
}

/** Deep equality of JSON values (member order does not matter). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++)
      if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    const other = getOwn(b, key);
    if (other === undefined || !jsonEqual(a[key] as JsonValue, other)) return false;
  }
  return true;
}

class Differ {
  constructor(
    private readonly ops: JsonPatchOperation[],
    private readonly ignored: ReadonlySet<string>,
    private readonly ignoredSegments: readonly string[][],
  ) {}

  diff(a: JsonValue, b: JsonValue, path: string): void {
    if (a === b || this.ignored.has(path)) return;
    if (Array.isArray(a) && Array.isArray(b)) this.diffArrays(a, b, path);
    else if (isJsonObject(a) && isJsonObject(b)) this.diffObjects(a, b, path);
    else if (!jsonEqual(a, b)) this.emit('replace', path, b);
  }

  private diffObjects(a: JsonObject, b: JsonObject, path: string): void {
    const keys = Object.keys(b);
    for (const key of Object.keys(a)) if (!hasOwn(b, key)) keys.push(key);
    sortStrings(keys);
    for (const key of keys) {
      const from = getOwn(a, key);
      const to = getOwn(b, key);
      // Members shared by copy-on-write are identical: no path to build, nothing to compare.
      if (from === to) continue;
      const child = `${path}/${escapePointerSegment(key)}`;
      if (to === undefined) this.remove(child);
      else if (from === undefined) this.emit('add', child, to);
      else this.diff(from, to, child);
    }
  }

  private diffArrays(a: readonly JsonValue[], b: readonly JsonValue[], path: string): void {
    let prefix = 0;
    const shorter = Math.min(a.length, b.length);
    while (prefix < shorter && jsonEqual(a[prefix] as JsonValue, b[prefix] as JsonValue)) prefix++;
    let suffix = 0;
    while (
      suffix < shorter - prefix &&
      jsonEqual(a[a.length - 1 - suffix] as JsonValue, b[b.length - 1 - suffix] as JsonValue)
    ) {
      suffix++;
    }
    const middleA = a.length - prefix - suffix;
    const middleB = b.length - prefix - suffix;
    const common = Math.min(middleA, middleB);
    for (let i = prefix; i < prefix + common; i++) {
      if (a[i] !== b[i]) this.diff(a[i] as JsonValue, b[i] as JsonValue, `${path}/${i}`);
    }
    for (let i = prefix + common; i < prefix + middleB; i++) {
      this.emit('add', `${path}/${i}`, b[i] as JsonValue);
    }
    for (let i = prefix + middleA - 1; i >= prefix + common; i--) this.remove(`${path}/${i}`);
  }

  private remove(path: string): void {
    if (!this.ignored.has(path)) this.ops.push({ op: 'remove', path });
  }

  private emit(op: 'add' | 'replace', path: string, value: JsonValue): void {
    if (this.ignored.has(path)) return;
    this.ops.push({ op, path, value: this.strip(path, cloneJson(value)) });
  }

  /** Removes ignored members below `path` from a (copied) op value. */
  private strip(path: string, value: JsonValue): JsonValue {
    if (this.ignoredSegments.length === 0 || typeof value !== 'object' || value === null) {
      return value;
    }
    const depth = parseJsonPointer(path).length;
    for (const segments of this.ignoredSegments) {
      if (segments.length <= depth) continue;
      const ignoredPath = '/' + segments.map(escapePointerSegment).join('/');
      if (path !== '' && !ignoredPath.startsWith(path + '/')) continue;
      let node: JsonValue | undefined = value;
      for (const segment of segments.slice(depth, -1)) {
        node = isJsonObject(node) ? getOwn(node, segment) : undefined;
      }
      const last = segments[segments.length - 1];
      if (isJsonObject(node) && last !== undefined && hasOwn(node, last)) deleteOwn(node, last);
    }
    return value;
  }
}
