import { KubemodError } from '../../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { formatJsonPointer, parseJsonPointer } from './json-pointer.js';
import { cloneJson, deleteOwn, getOwn, hasOwn, setOwn } from './own-property.js';
import { charge, chargeBytes } from '../active-meter.js';

/**
 * One KubeMod patch operation on a JSON document: RFC 6902 `add` / `replace` / `remove` with
 * KubeMod's extensions (as evanphx/json-patch with SupportNegativeIndices, AllowMissingPathOnRemove
 * and EnsurePathExistsOnAdd):
 *
 * - Negative array indexes count from the end. On `add`, `-1` appends after the last element,
 *   `-2` inserts before the last one, …; on `replace`/`remove` (and on intermediate segments)
 *   `-1` is the last element, `-2` the one before, …. `-` appends on `add`, as in RFC 6902.
 * - `remove` of a path that does not exist (missing member or parent, out-of-range or
 *   non-numeric array index, scalar parent) does nothing.
 * - `add` of an existing object member replaces it; `add` creates missing (or `null`) parents:
 *   an array when the next segment is `0`, `-1` or `-`, an object otherwise. An intermediate
 *   array segment equal to the array's length (or `-`, or `-1` on an empty array) appends the new
 *   parent.
 * - `replace` of a path that does not exist fails.
 *
 * The document is modified in place (the caller owns it); the (possibly new) root is returned,
 * since the pointer `""` replaces the whole document. The value is deep-copied, so one parsed
 * value may be applied many times. Every failure is a `KubemodError` (`PATCH_APPLY`, or
 * `PATCH_PATH` for a path that is not a JSON pointer; `WORK_LIMIT` from the work meter, charged
 * per path segment, value copied and array element moved).
 */

export type PatchOpName = 'add' | 'replace' | 'remove';

export interface PatchOperationInput {
  readonly op: PatchOpName;
  readonly path: string;
  /** The value for `add` / `replace`; missing means `null`. Ignored by `remove`. */
  readonly value?: JsonValue;
}

type Container = JsonObject | JsonValue[];

/** `segments` may be passed when the caller has already parsed `op.path`. */
export function applyOperation(
  doc: JsonValue,
  op: PatchOperationInput,
  segments: readonly string[] = parseJsonPointer(op.path),
): JsonValue {
  const kind: string = op.op;
  if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') {
    throw new KubemodError('PATCH_APPLY', `${kind} ${op.path}: unknown operation`);
  }
  const fail = (why: string): never => {
    throw new KubemodError('PATCH_APPLY', `${op.op} ${op.path}: ${why}`);
  };

  if (segments.length === 0) {
    if (op.op === 'remove') return fail('cannot remove the whole document');
    return cloneJson(op.value ?? null);
  }
  if (!isContainer(doc)) {
    if (op.op === 'remove') return doc;
    return fail('the document is not an object or array');
  }

  charge(segments.length);
  const last = segments.length - 1;
  let parent: Container = doc;
  for (let i = 0; i < last; i++) {
    const segment = segments[i] as string;
    const child = childAt(parent, segment);
    if (isContainer(child)) {
      parent = child;
      continue;
    }
    if (op.op === 'remove') return doc;
    // Only built to report a failure: building it for every created parent would be quadratic.
    const here = (): string => formatJsonPointer(segments.slice(0, i + 1));
    if (op.op === 'replace') {
      const why =
        child === undefined ? 'missing' : child === null ? 'null' : 'not an object or array';
      return fail(`path does not exist (${here()} is ${why})`);
    }
    if (child !== undefined && child !== null) return fail(`${here()} is not an object or array`);
    const created: Container = startsArray(segments[i + 1] as string) ? [] : {};
    if (!putParent(parent, segment, created)) {
      return fail(`index ${segment} is out of range at ${here()}`);
    }
    parent = created;
  }

  const key = segments[last] as string;
  const value = op.op === 'remove' ? null : cloneJson(op.value ?? null);
  if (isJsonObject(parent)) {
    if (op.op === 'remove') deleteOwn(parent, key);
    else if (op.op === 'replace' && !hasOwn(parent, key)) fail('path does not exist');
    else setOwn(parent, key, value);
    return doc;
  }

  const length = parent.length;
  if (op.op === 'add') {
    const index = key === '-' ? length : parseIndex(key);
    if (index === undefined) return fail(`${JSON.stringify(key)} is not an array index`);
    const at = index < 0 ? index + length + 1 : index;
    if (at < 0 || at > length) return fail(`index ${key} is out of range (array length ${length})`);
    // Inserting or removing moves the elements after it.
    chargeBytes(length - at);
    parent.splice(at, 0, value);
    return doc;
  }
  const at = existingIndex(parent, key);
  if (op.op === 'remove') {
    if (at !== undefined) {
      chargeBytes(parent.length - at);
      parent.splice(at, 1);
    }
    return doc;
  }
  if (at === undefined) return fail('path does not exist');
  parent[at] = value;
  return doc;
}

function isContainer(value: JsonValue | undefined): value is Container {
  return typeof value === 'object' && value !== null;
}

/** `+1`, `01`, `-2` are accepted like Go's strconv.Atoi. */
function parseIndex(segment: string): number | undefined {
  return /^[+-]?\d+$/.test(segment) ? Number(segment) : undefined;
}

/** The position of an existing element (negative counts from the end), if any. */
function existingIndex(array: readonly JsonValue[], segment: string): number | undefined {
  const index = parseIndex(segment);
  if (index === undefined) return undefined;
  const at = index < 0 ? index + array.length : index;
  return at >= 0 && at < array.length ? at : undefined;
}

function childAt(parent: Container, segment: string): JsonValue | undefined {
  if (!Array.isArray(parent)) return getOwn(parent, segment);
  const at = existingIndex(parent, segment);
  return at === undefined ? undefined : parent[at];
}

function startsArray(next: string): boolean {
  return next === '0' || next === '-1' || next === '-';
}

/** Stores a newly created parent; false when the array index is out of range. */
function putParent(parent: Container, segment: string, created: Container): boolean {
  if (!Array.isArray(parent)) {
    setOwn(parent, segment, created);
    return true;
  }
  const at = existingIndex(parent, segment);
  if (at !== undefined) {
    parent[at] = created;
    return true;
  }
  const index = segment === '-' ? parent.length : parseIndex(segment);
  if (index === parent.length || (index === -1 && parent.length === 0)) {
    parent.push(created);
    return true;
  }
  return false;
}
