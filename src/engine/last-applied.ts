import type { JsonObject, JsonPatchOperation, JsonValue } from './json.js';
import { applyOperation, jsonEqual } from './patch/index.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The annotation's key as a JSON-pointer segment. */
export const LAST_APPLIED_POINTER_KEY = 'kubectl.kubernetes.io~1last-applied-configuration';

/**
 * kubectl's `last-applied-configuration` annotation: KubeMod applies the same operations to it so
 * that a later `kubectl apply` does not undo the rule's changes. It is rewritten only when the
 * operations change it, with Go's sorted keys and the original trailing newline.
 */
export class LastApplied {
  private constructor(
    private readonly text: string,
    private readonly value: JsonValue,
  ) {}

  static read(object: JsonObject): LastApplied | undefined {
    const metadata = object.metadata;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      return undefined;
    const annotations = metadata.annotations;
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
      return undefined;
    const text = annotations[LAST_APPLIED_ANNOTATION];
    if (typeof text !== 'string') return undefined;
    try {
      return new LastApplied(text, JSON.parse(text) as JsonValue);
    } catch {
      return undefined;
    }
  }

  /** Applies the operations (each one that cannot apply to the annotation is skipped) and stores the result. */
  writeTo(object: JsonObject, operations: readonly JsonPatchOperation[]): void {
    let doc = JSON.parse(JSON.stringify(this.value)) as JsonValue;
    for (const op of operations) {
      try {
        doc = applyOperation(doc, op);
      } catch {
        // The annotation only holds what the user applied; operations on other fields do not fit it.
      }
    }
    if (jsonEqual(doc, this.value)) return;
    const metadata = object.metadata;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return;
    const annotations = metadata.annotations;
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
      return;
    annotations[LAST_APPLIED_ANNOTATION] =
      stringifySorted(doc) + (this.text.endsWith('\n') ? '\n' : '');
  }
}

/** JSON with object keys sorted, as Go's encoding/json writes maps. */
function stringifySorted(value: JsonValue): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
