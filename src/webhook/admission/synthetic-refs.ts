import { isJsonObject, type JsonObject } from '../../engine/json.js';
import type { SyntheticRefLookups, SyntheticRefs } from '../../engine/evaluate.js';

/** Annotation through which a Pod names the node it runs on (set by the podbinding webhook). */
export const NODE_NAME_ANNOTATION = 'ref.kubemod.io/nodename';
/** Annotation asking kubemod to record a Pod's node. */
export const INJECT_NODE_REF_ANNOTATION = 'ref.kubemod.io/inject-node-ref';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The names of the manifests an object's `syntheticRefs` are made of (see syntheticRefsFor). */
export interface SyntheticRefNames {
  readonly namespace?: string;
  readonly node?: string;
}

/**
 * Which manifests the `syntheticRefs` of an object need: its namespace (namespaced objects) and,
 * for a Pod annotated with ref.kubemod.io/nodename, that node.
 */
export function syntheticRefNames(
  object: JsonObject,
  namespace: string | undefined,
): SyntheticRefNames {
  const nodeName = object.kind === 'Pod' ? annotation(object, NODE_NAME_ANNOTATION) : undefined;
  return {
    ...(namespace === undefined ? {} : { namespace }),
    ...(nodeName === undefined || nodeName === '' ? {} : { node: nodeName }),
  };
}

/**
 * The `syntheticRefs` for an object: its namespace's manifest (namespaced objects) and, for Pods
 * annotated with ref.kubemod.io/nodename, the node's manifest. Both come from memory only.
 */
export function syntheticRefsFor(
  object: JsonObject,
  namespace: string | undefined,
  lookups: SyntheticRefLookups,
): SyntheticRefs {
  return lookupSyntheticRefs(syntheticRefNames(object, namespace), lookups);
}

/** The manifests named by `names` that the lookups hold, without their bookkeeping fields. */
export function lookupSyntheticRefs(
  names: SyntheticRefNames,
  lookups: SyntheticRefLookups,
): SyntheticRefs {
  const refs: { namespace?: JsonObject; node?: JsonObject } = {};
  if (names.namespace !== undefined) {
    const manifest = lookups.namespace(names.namespace);
    if (manifest !== undefined) refs.namespace = stripBookkeeping(manifest);
  }
  if (names.node !== undefined) {
    const manifest = lookups.node(names.node);
    if (manifest !== undefined) refs.node = stripBookkeeping(manifest);
  }
  return refs;
}

export function annotation(object: JsonObject, name: string): string | undefined {
  const metadata = object.metadata;
  if (!isJsonObject(metadata)) return undefined;
  const annotations = metadata.annotations;
  if (!isJsonObject(annotations)) return undefined;
  const value = annotations[name];
  return typeof value === 'string' ? value : undefined;
}

/** A copy without metadata.managedFields and the last-applied-configuration annotation. */
export function stripBookkeeping(manifest: JsonObject): JsonObject {
  const metadata = manifest.metadata;
  if (!isJsonObject(metadata)) return manifest;
  const cleanMetadata: JsonObject = { ...metadata };
  delete cleanMetadata.managedFields;
  const annotations = cleanMetadata.annotations;
  if (isJsonObject(annotations) && LAST_APPLIED_ANNOTATION in annotations) {
    cleanMetadata.annotations = Object.fromEntries(
      Object.entries(annotations).filter(([key]) => key !== LAST_APPLIED_ANNOTATION),
    );
  }
  return { ...manifest, metadata: cleanMetadata };
}
