import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import type { KubeObject } from '../../kube/informer.js';
import { apiVersionOf, type LookupKind } from './lookup-kinds.js';

/** kubectl's copy of the last applied manifest: a second copy of the object, never read. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

function deepFreeze(value: JsonValue): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else for (const key of Object.keys(value)) deepFreeze(value[key] ?? null);
  Object.freeze(value);
}

function compactMetadata(metadata: JsonValue | undefined): JsonObject {
  if (!isJsonObject(metadata)) return {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (key === 'managedFields') continue;
    if (key === 'annotations' && isJsonObject(value) && LAST_APPLIED_ANNOTATION in value) {
      const annotations: JsonObject = {};
      for (const [name, text] of Object.entries(value))
        if (name !== LAST_APPLIED_ANNOTATION) annotations[name] = text;
      out.annotations = annotations;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * What a lookup cache keeps of an object: without metadata.managedFields and kubectl's
 * last-applied annotation (together often more than half of an object), with its real apiVersion
 * and kind (list items and PartialObjectMetadata carry none or meta.k8s.io's), and frozen, since
 * every rule of every request reads the same copy. A metadata-only kind keeps apiVersion, kind and
 * metadata: what owner chains and label reads need.
 */
export function compactForLookup(kind: LookupKind): (obj: KubeObject) => KubeObject {
  const apiVersion = apiVersionOf(kind);
  return (obj) => {
    const out: JsonObject = {
      apiVersion,
      kind: kind.kind,
      metadata: compactMetadata(obj.metadata),
    };
    if (!kind.metadataOnly) {
      for (const [key, value] of Object.entries(obj))
        if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') out[key] = value;
    }
    deepFreeze(out);
    return out;
  };
}
