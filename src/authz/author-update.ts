import {
  APPLY_TO_EXISTING_ANNOTATION,
  ENFORCEMENT_ANNOTATION,
  FAILURE_POLICY_ANNOTATION,
} from '../api/annotations.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { jsonEqual } from '../engine/patch/json-diff.js';
import {
  authorAnnotationOf,
  authorMacOf,
  canonicalAuthor,
  recordableUser,
  type UserInfo,
} from './author-record.js';
import type { AuthorSigner } from './author-signature.js';

/**
 * The annotations that change what a ModRule does without changing its spec. Changing one makes
 * the requester the rule's author, as a spec change does; any other metadata change does not.
 */
export const BEHAVIOUR_ANNOTATIONS: readonly string[] = [
  APPLY_TO_EXISTING_ANNOTATION,
  ENFORCEMENT_ANNOTATION,
  FAILURE_POLICY_ANNOTATION,
];

/** The author annotations a ModRule write must carry (undefined: the annotation is absent). */
export interface AuthorAnnotations {
  /** api.kubemod.io/author: canonical JSON of the author. */
  readonly record: string | undefined;
  /** api.kubemod.io/author-mac: its MAC, when the record is signed. */
  readonly mac: string | undefined;
  /** True when the record is the previous one, kept (an update that changes no behaviour). */
  readonly kept: boolean;
}

/** What of an admission request decides the author annotations of the ModRule it writes. */
export interface AuthorWrite {
  readonly operation: string;
  readonly userInfo: UserInfo | 'too-large' | undefined;
  /** The rule's namespace (the request's) and name (the object's; '' under generateName). */
  readonly namespace: string;
  readonly name: string;
  /** The rule as it will be stored (with defaults), and as it was (UPDATE), with defaults. */
  readonly object: JsonObject;
  readonly oldObject: JsonObject | undefined;
}

function specOf(object: JsonObject): JsonValue {
  return object.spec ?? null;
}

function behaviourOf(object: JsonObject, key: string): JsonValue {
  const metadata = object.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return null;
  return metadata.annotations[key] ?? null;
}

/**
 * Whether an update of a ModRule changes what it does: its spec, or one of its behaviour
 * annotations. Both objects are compared with KubeMod's defaults filled in, so that an agent
 * re-applying a manifest that omits a defaulted field changes nothing.
 */
export function changesBehaviour(previous: JsonObject, next: JsonObject): boolean {
  if (!jsonEqual(specOf(previous), specOf(next), false)) return true;
  return BEHAVIOUR_ANNOTATIONS.some(
    (key) => !jsonEqual(behaviourOf(previous, key), behaviourOf(next, key), false),
  );
}

/**
 * The author annotations a ModRule write gets (issue 37). An UPDATE that changes neither the spec
 * nor a behaviour annotation keeps the previous record and MAC exactly as they were, whoever
 * sends it and whatever the request carries: the garbage collector removing an ownerReference, a
 * GitOps agent re-applying the same manifest or adding its tracking label, an admin labelling
 * rules. Every other write records the requester without its per-credential extras, signed with
 * the operator's key over namespace, name and record. No signature without a key or a name (a
 * rule created with generateName is named after admission): such a record reads as unknown.
 */
export function authorAnnotationsFor(
  write: AuthorWrite,
  signer: AuthorSigner | undefined,
): AuthorAnnotations {
  const previous = write.oldObject;
  if (
    write.operation === 'UPDATE' &&
    previous !== undefined &&
    !changesBehaviour(previous, write.object)
  )
    return { record: authorAnnotationOf(previous), mac: authorMacOf(previous), kept: true };
  const user = write.userInfo;
  const record =
    user === undefined || user === 'too-large' ? undefined : canonicalAuthor(recordableUser(user));
  const mac =
    record === undefined || signer === undefined || write.name === ''
      ? undefined
      : signer.sign(write.namespace, write.name, record);
  return { record, mac, kept: false };
}
