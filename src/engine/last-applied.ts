import { KubemodError } from '../errors/catalog.js';
import type { JsonObject, JsonPatchOperation, JsonValue } from './json.js';
import { applyOperation, jsonEqual } from './patch/index.js';
import { jsonNestingDepth } from './json-depth.js';
import { cloneJson } from './patch/own-property.js';
import { MAX_VALUE_DEPTH } from './work-limits.js';
import { chargeBytes, depthError } from './active-meter.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The annotation's key as a JSON-pointer segment. */
export const LAST_APPLIED_POINTER_KEY = 'kubectl.kubernetes.io~1last-applied-configuration';

const WHAT = 'the last-applied-configuration annotation';

/**
 * kubectl's `last-applied-configuration` annotation: KubeMod applies the same operations to it so
 * that a later `kubectl apply` does not undo the rule's changes. It is rewritten only when the
 * operations change it, with Go's sorted keys and the original trailing newline.
 *
 * The annotation is any string the requester chose, so it is only parsed when a rule changed the
 * object, after its nesting was checked (V8's JSON.parse takes most of a second on 200,000 `[`,
 * and JSON.stringify overflows the stack), and all the work is charged to the active meter.
 */
export class LastApplied {
  private constructor(private readonly text: string) {}

  static read(object: JsonObject): LastApplied | undefined {
    const metadata = object.metadata;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      return undefined;
    const annotations = metadata.annotations;
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
      return undefined;
    const text = annotations[LAST_APPLIED_ANNOTATION];
    return typeof text === 'string' ? new LastApplied(text) : undefined;
  }

  /**
   * Applies the operations (each one that cannot apply to the annotation is skipped) and stores
   * the result. An annotation that is not JSON is left alone. Throws DEPTH_LIMIT when the
   * annotation (before or after the operations) nests deeper than MAX_VALUE_DEPTH, and WORK_LIMIT
   * from the meter; the object is then unchanged.
   */
  writeTo(object: JsonObject, operations: readonly JsonPatchOperation[]): void {
    chargeBytes(this.text.length);
    if (jsonNestingDepth(this.text, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH) throw depthError(WHAT);
    let value: JsonValue;
    try {
      value = JSON.parse(this.text) as JsonValue;
    } catch {
      return;
    }
    let doc = cloneJson(value);
    for (const op of operations) {
      try {
        doc = applyOperation(doc, op);
      } catch (err) {
        if (isLimitError(err)) throw err;
        // The annotation only holds what the user applied; operations on other fields do not fit it.
      }
    }
    if (jsonEqual(doc, value)) return;
    // `add` creates missing parents, so the operations can make it deeper than it was.
    if (valueDepthExceeds(doc, MAX_VALUE_DEPTH)) throw depthError(WHAT);
    const metadata = object.metadata;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return;
    const annotations = metadata.annotations;
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
      return;
    const text = stringifySorted(doc) + (this.text.endsWith('\n') ? '\n' : '');
    chargeBytes(text.length);
    annotations[LAST_APPLIED_ANNOTATION] = text;
  }
}

function isLimitError(err: unknown): boolean {
  return err instanceof KubemodError && (err.kind === 'WORK_LIMIT' || err.kind === 'DEPTH_LIMIT');
}

/**
 * JSON as Go's encoding/json writes it (recursive: depth-checked first): object keys sorted, and
 * `<`, `>`, `&`, U+2028 and U+2029 escaped as \u003c, \u003e, \u0026, \u2028 and \u2029 (so a
 * value such as `<no value>` reads the same in the annotation as in KubeMod's).
 */
function stringifySorted(value: JsonValue): string {
  return goJsonEscapes(sortedJson(value));
}

const GO_JSON_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** These characters can only occur inside JSON strings, where the escapes mean the same. */
function goJsonEscapes(json: string): string {
  return /[<>&\u2028\u2029]/.test(json)
    ? json.replace(/[<>&\u2028\u2029]/g, (c) => GO_JSON_ESCAPES[c] ?? c)
    : json;
}

function sortedJson(value: JsonValue): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      // defineProperty: a `__proto__` member stays a member.
      Object.defineProperty(sorted, k, {
        value: (v as Record<string, unknown>)[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return sorted;
  });
}

/** True when a value nests more than `max` arrays and objects (iterative). */
function valueDepthExceeds(value: JsonValue, max: number): boolean {
  const values: JsonValue[] = [value];
  const depths: number[] = [0];
  for (;;) {
    const item = values.pop();
    const depth = depths.pop();
    if (item === undefined || depth === undefined) return false;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      values.push(child);
      depths.push(depth + 1);
    }
  }
}
