import type { EvaluationResult, RuleFailure } from '../../engine/evaluate.js';
import { isJsonObject, type JsonObject, type JsonPatchOperation } from '../../engine/json.js';
import { parseJsonPointer } from '../../engine/patch/index.js';
import type { TargetResource } from '../../kube/target-resources.js';
import {
  evaluateAdmission,
  type EvaluationDependencies,
} from '../../webhook/admission/admission-evaluation.js';

/** What an UPDATE of an object as it is now would do. */
export type Action = 'none' | 'patch' | 'reject';

export interface ObjectVerdict {
  readonly action: Action;
  /** The final patch the webhook would answer (empty when nothing would change). */
  readonly patch: readonly JsonPatchOperation[];
  /** Patch rules whose operations write where the object would change (`ns/name`, sorted). */
  readonly patchingRules: readonly string[];
  /** Reject rules that would refuse the update (`ns/name`, in the webhook's order). */
  readonly rejectingRules: readonly string[];
  /**
   * Reject rules in Warn or Audit mode (api.kubemod.io/enforcement) that match: the update would
   * be admitted, but the object violates them (`ns/name`, in the webhook's order).
   */
  readonly violatingRules: readonly string[];
  /** KubeMod's rejection texts (`ns/name: "message"`). */
  readonly rejections: readonly string[];
  readonly failures: readonly RuleFailure[];
}

/**
 * Reads an evaluation as the audit reports it. An object is non-conforming when the update would
 * be rejected, or patched. A Patch rule is named (and counted) for an object when one of its
 * rendered operation paths and one path of the final patch are the same or one contains the
 * other: it writes where the object would change. A rule that matched but would change nothing,
 * or whose change a later tier undoes, is not named.
 */
export function verdictOf(result: EvaluationResult): ObjectVerdict {
  const changed = result.patch.map((op) => comparablePath(op.path));
  const patchingRules =
    changed.length === 0
      ? []
      : [
          ...new Set(
            result.applied
              .filter((rule) =>
                rule.operations.some((op) => {
                  const path = comparablePath(op.path);
                  return changed.some((c) => overlaps(c, path));
                }),
              )
              .map((rule) => rule.rule),
          ),
        ].sort();
  const rejectingRules = result.rejections.map(ruleOfRejection);
  const action: Action =
    result.rejections.length > 0 ? 'reject' : result.patch.length > 0 ? 'patch' : 'none';
  return {
    action,
    patch: result.patch,
    patchingRules,
    rejectingRules,
    violatingRules: [...result.warnings, ...result.audited].map(ruleOfRejection),
    rejections: result.rejections,
    failures: result.failures,
  };
}

/**
 * A path's segments up to (not including) the first `-` or negative index: those address an
 * array position that only exists once the operation ran, so the array itself is compared.
 */
function comparablePath(pointer: string): readonly string[] {
  let segments: string[];
  try {
    segments = parseJsonPointer(pointer);
  } catch {
    return [];
  }
  const cut = segments.findIndex((s) => s === '-' || /^-\d+$/.test(s));
  return cut === -1 ? segments : segments.slice(0, cut);
}

function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `ns/name: "message"` or `ns/name` → `ns/name` (names and namespaces cannot contain ':'). */
export function ruleOfRejection(rejection: string): string {
  const colon = rejection.indexOf(':');
  return colon === -1 ? rejection : rejection.slice(0, colon);
}

/** A copy without metadata.managedFields (noise in diffs and reports). */
export function withoutManagedFields(object: JsonObject): JsonObject {
  const metadata = object.metadata;
  if (!isJsonObject(metadata) || !('managedFields' in metadata)) return object;
  const rest: JsonObject = { ...metadata };
  delete rest.managedFields;
  return { ...object, metadata: rest };
}

/** `metadata.name`, `metadata.namespace` and `metadata.uid` of an object ('' / undefined when absent). */
export function identityOf(object: JsonObject): {
  name: string;
  namespace: string | undefined;
  uid: string | undefined;
} {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace:
      typeof metadata.namespace === 'string' && metadata.namespace !== ''
        ? metadata.namespace
        : undefined,
    uid: typeof metadata.uid === 'string' ? metadata.uid : undefined,
  };
}

/**
 * The judge of the audit and of apply-to-existing: an object as it is now, evaluated as an UPDATE
 * of itself through the webhook's evaluation, so that both act as the webhook would.
 */
export function evaluateAsUpdate(
  deps: EvaluationDependencies,
): (object: JsonObject, target: TargetResource) => EvaluationResult {
  return (object, target) =>
    evaluateAdmission(
      {
        operation: 'UPDATE',
        object,
        kind: target.kind,
        requestNamespace: identityOf(object).namespace,
      },
      deps,
    );
}
