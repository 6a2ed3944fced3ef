import { isJsonObject, type JsonObject } from '../engine/json.js';
import type { SyntheticRefs } from '../engine/evaluate.js';
import type { SyntheticRefLookups } from './dependencies.js';

/** Annotation through which a Pod names the node it runs on (set by the podbinding webhook). */
export const NODE_NAME_ANNOTATION = 'ref.kubemod.io/nodename';
/** Annotation asking kubemod to record a Pod's node. */
export const INJECT_NODE_REF_ANNOTATION = 'ref.kubemod.io/inject-node-ref';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The `syntheticRefs` for an object: its namespace's manifest (namespaced objects) and, for Pods
 * annotated with ref.kubemod.io/nodename, the node's manifest. Both come from memory only.
 */
export function syntheticRefsFor(
  object: JsonObject,
  namespace: string | undefined,
  lookups: SyntheticRefLookups,
): SyntheticRefs {
  const refs: { namespace?: JsonObject; node?: JsonObject } = {};
  if (namespace !== undefined) {
    const manifest = lookups.namespace(namespace);
    if (manifest !== undefined) refs.namespace = stripBookkeeping(manifest);
  }
  const nodeName = object.kind === 'Pod' ? annotation(object, NODE_NAME_ANNOTATION) : undefined;
  if (nodeName !== undefined && nodeName !== '') {
    const manifest = lookups.node(nodeName);
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
