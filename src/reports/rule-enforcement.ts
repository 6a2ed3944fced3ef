import {
  ENFORCEMENT_ANNOTATION,
  ENFORCEMENT_MODES,
  enforcementOf,
  type EnforcementMode,
} from '../api/annotations.js';
import type { CompiledRule } from '../engine/rule.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `metadata.annotations` of a ModRule manifest, string values only (undefined when absent). */
export function annotationsOf(manifest: unknown): Readonly<Record<string, string>> | undefined {
  if (!isRecord(manifest) || !isRecord(manifest.metadata)) return undefined;
  const annotations = manifest.metadata.annotations;
  if (!isRecord(annotations)) return undefined;
  return Object.fromEntries(
    Object.entries(annotations).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
  );
}

/**
 * The enforcement mode of each ModRule manifest, by `<namespace>/<name>` (a manifest without a
 * namespace counts as `defaultNamespace`'s, as the rule loaders place it). `List` documents are
 * read item by item; anything that is not a named object is left out.
 */
export function enforcementByRule(
  manifests: readonly unknown[],
  defaultNamespace: string,
): Map<string, EnforcementMode> {
  const out = new Map<string, EnforcementMode>();
  const visit = (doc: unknown): void => {
    if (!isRecord(doc)) return;
    if (doc.kind === 'List' && Array.isArray(doc.items)) {
      doc.items.forEach(visit);
      return;
    }
    const metadata = isRecord(doc.metadata) ? doc.metadata : {};
    if (typeof metadata.name !== 'string') return;
    const namespace =
      typeof metadata.namespace === 'string' && metadata.namespace !== ''
        ? metadata.namespace
        : defaultNamespace;
    out.set(`${namespace}/${metadata.name}`, enforcementOf(annotationsOf(doc)));
  };
  manifests.forEach(visit);
  return out;
}

function isEnforcementMode(value: unknown): value is EnforcementMode {
  return typeof value === 'string' && (ENFORCEMENT_MODES as readonly string[]).includes(value);
}

/**
 * A rule's enforcement mode: the one its compiled form carries, where the engine carries one,
 * else the one its manifest's annotations name (`Enforce` without any).
 */
export function enforcementFor(
  rule: CompiledRule,
  annotations: Readonly<Record<string, string>> | undefined,
): EnforcementMode {
  const carried = (rule as { readonly enforcement?: unknown }).enforcement;
  return isEnforcementMode(carried) ? carried : enforcementOf(annotations);
}

/**
 * A ModRule cache transform (the operator's lean informer cache) that also keeps a valid
 * `api.kubemod.io/enforcement` annotation, which the periodic audit's reports read for engines
 * whose compiled rules do not carry the mode. Adds at most a few bytes per rule.
 */
export function keepingEnforcement(
  retain: (obj: JsonObject) => JsonObject,
): (obj: JsonObject) => JsonObject {
  return (obj) => {
    const kept = retain(obj);
    const mode = annotationsOf(obj)?.[ENFORCEMENT_ANNOTATION];
    if (!isEnforcementMode(mode)) return kept;
    const metadata = isJsonObject(kept.metadata) ? kept.metadata : {};
    const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
    return {
      ...kept,
      metadata: { ...metadata, annotations: { ...annotations, [ENFORCEMENT_ANNOTATION]: mode } },
    };
  };
}
