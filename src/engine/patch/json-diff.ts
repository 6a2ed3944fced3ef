import { isJsonObject, type JsonObject, type JsonPatchOperation, type JsonValue } from '../json.js';
import { escapePointerSegment, parseJsonPointer } from './json-pointer.js';
import { cloneJson, deleteOwn, getOwn, hasOwn } from './own-property.js';
import { sortStrings } from '../sort-strings.js';
import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { charge, chargeBytes } from '../active-meter.js';

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

/** Ignored paths as the differ reads them: by text, by segments, and their most segments. */
interface IgnoredPaths {
  readonly paths: ReadonlySet<string>;
  readonly segments: readonly (readonly string[])[];
  readonly depth: number;
}

function ignoredPathsOf(paths: readonly string[]): IgnoredPaths {
  const segments = paths.map(parseJsonPointer);
  const depth = Math.max(0, ...segments.map((s) => s.length));
  return { paths: new Set(paths), segments, depth };
}

/** The defaults, parsed once (every admission request with a patch diffs with them). */
let defaultIgnored: IgnoredPaths | undefined;

export function createJsonPatch(
  before: JsonValue,
  after: JsonValue,
  options: CreateJsonPatchOptions = {},
): JsonPatchOperation[] {
  let ignored: IgnoredPaths;
  if (options.ignoredPaths === undefined) {
    defaultIgnored ??= ignoredPathsOf(DEFAULT_IGNORED_PATHS);
    ignored = defaultIgnored;
    // Charged as when they were parsed on every call: the request's units stay what they were.
    for (const path of DEFAULT_IGNORED_PATHS) chargeBytes(path.length);
  } else {
    ignored = ignoredPathsOf(options.ignoredPaths);
  }
  const ops: JsonPatchOperation[] = [];
  new Differ(ops, ignored).diff(before, after, '', 0);
  return ops;
}

/**
 * Deep equality of JSON values (member order does not matter). Iterative, so values of any depth
 * are compared without recursion; charges the active work meter about one unit per value compared
 * unless `metered` is false.
 */
export function jsonEqual(a: JsonValue, b: JsonValue, metered = true): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const pending: JsonValue[] = [a, b];
  for (;;) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === undefined || y === undefined) return true;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      if (metered) charge(x.length + 1);
      for (let i = 0; i < x.length; i++) {
        const p = x[i] as JsonValue;
        const q = y[i] as JsonValue;
        if (p === q) continue;
        if (typeof p !== 'object' || p === null) return false;
        pending.push(p, q);
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    if (metered) charge(keys.length + 1);
    for (const key of keys) {
      const p = x[key] as JsonValue;
      const q = getOwn(y, key);
      if (p === q) continue;
      if (q === undefined || typeof p !== 'object' || p === null) return false;
      pending.push(p, q);
    }
  }
}

/**
 * Not metered: evaluate() runs it once, after the rules, on the request object and what the
 * rules built, and it walks only what differs (members shared by copy-on-write are skipped), so
 * its cost is bounded by the request size and by the rules' metered work. Charging it would turn
 * a request whose time budget the rules used up into a failure of every rule's patch.
 */
class Differ {
  private readonly ignored: ReadonlySet<string>;
  private readonly ignoredSegments: readonly (readonly string[])[];
  /** The most segments of an ignored path: deeper paths are never looked up. */
  private readonly ignoredDepth: number;

  constructor(
    private readonly ops: JsonPatchOperation[],
    ignored: IgnoredPaths,
  ) {
    this.ignored = ignored.paths;
    this.ignoredSegments = ignored.segments;
    this.ignoredDepth = ignored.depth;
  }

  /**
   * `depth` is the number of segments of `path`. Recursion stops at MAX_VALUE_DEPTH: values that
   * still differ there are replaced whole (a coarser patch with the same result).
   */
  diff(a: JsonValue, b: JsonValue, path: string, depth: number): void {
    if (a === b || (depth <= this.ignoredDepth && this.ignored.has(path))) return;
    if (depth >= MAX_VALUE_DEPTH) {
      if (!jsonEqual(a, b, false)) this.emit('replace', path, b, depth);
    } else if (Array.isArray(a) && Array.isArray(b)) this.diffArrays(a, b, path, depth);
    else if (isJsonObject(a) && isJsonObject(b)) this.diffObjects(a, b, path, depth);
    else if (!jsonEqual(a, b, false)) this.emit('replace', path, b, depth);
  }

  private diffObjects(a: JsonObject, b: JsonObject, path: string, depth: number): void {
    // Only the members that differ are sorted and visited: those shared by copy-on-write are
    // identical (no path to build, nothing to compare), and they are most of a patched object.
    const keys: string[] = [];
    for (const key in b) if (hasOwn(b, key) && getOwn(a, key) !== b[key]) keys.push(key);
    for (const key in a) if (hasOwn(a, key) && !hasOwn(b, key)) keys.push(key);
    sortStrings(keys);
    for (const key of keys) {
      const from = getOwn(a, key);
      const to = getOwn(b, key);
      const child = `${path}/${escapePointerSegment(key)}`;
      if (to === undefined) this.remove(child, depth + 1);
      else if (from === undefined) this.emit('add', child, to, depth + 1);
      else this.diff(from, to, child, depth + 1);
    }
  }

  private diffArrays(
    a: readonly JsonValue[],
    b: readonly JsonValue[],
    path: string,
    depth: number,
  ): void {
    let prefix = 0;
    const shorter = Math.min(a.length, b.length);
    while (prefix < shorter && jsonEqual(a[prefix] as JsonValue, b[prefix] as JsonValue, false))
      prefix++;
    let suffix = 0;
    while (
      suffix < shorter - prefix &&
      jsonEqual(a[a.length - 1 - suffix] as JsonValue, b[b.length - 1 - suffix] as JsonValue, false)
    ) {
      suffix++;
    }
    const middleA = a.length - prefix - suffix;
    const middleB = b.length - prefix - suffix;
    const common = Math.min(middleA, middleB);
    const child = depth + 1;
    for (let i = prefix; i < prefix + common; i++) {
      if (a[i] !== b[i]) this.diff(a[i] as JsonValue, b[i] as JsonValue, `${path}/${i}`, child);
    }
    for (let i = prefix + common; i < prefix + middleB; i++) {
      this.emit('add', `${path}/${i}`, b[i] as JsonValue, child);
    }
    for (let i = prefix + middleA - 1; i >= prefix + common; i--) {
      this.remove(`${path}/${i}`, child);
    }
  }

  private remove(path: string, depth: number): void {
    if (depth <= this.ignoredDepth && this.ignored.has(path)) return;
    this.ops.push({ op: 'remove', path });
  }

  private emit(op: 'add' | 'replace', path: string, value: JsonValue, depth: number): void {
    if (depth <= this.ignoredDepth && this.ignored.has(path)) return;
    this.ops.push({ op, path, value: this.strip(path, cloneJson(value, false), depth) });
  }

  /** Removes ignored members below `path` (`depth` segments) from a (copied) op value. */
  private strip(path: string, value: JsonValue, depth: number): JsonValue {
    if (depth >= this.ignoredDepth || typeof value !== 'object' || value === null) {
      return value;
    }
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
