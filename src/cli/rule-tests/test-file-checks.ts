import type { AdmissionOperation } from '../../api/index.js';
import { describe, type FieldReader } from '../../api/field-reader.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { annotation, NODE_NAME_ANNOTATION } from '../../webhook/admission/synthetic-refs.js';
import { TEST_FILE_LIMITS, type CaseRefs } from './test-file.js';

/** Checks of a test case that relate several of its fields (see load-test-file.ts). */

/** Reads a manifest given inline or as a file path, of `kind` when given; undefined if invalid. */
export type ManifestReader = (
  value: unknown,
  field: string,
  kind: string | undefined,
) => JsonObject | undefined;

export const REF_FIELDS = ['namespace', 'node'];

/**
 * `syntheticRefs` of a file or case: the Namespace and Node manifests, each optional, given
 * inline or (a string) as the path of a YAML file holding the mapping (a recipe's refs.yaml),
 * which `readFile` reads.
 */
export function readRefs(
  value: unknown,
  field: string,
  r: FieldReader,
  manifest: ManifestReader,
  readFile: (path: string) => unknown,
): CaseRefs {
  if (value === undefined || value === null) return {};
  const refs = r.object(typeof value === 'string' && value !== '' ? readFile(value) : value, field);
  if (refs === undefined) return {};
  r.noUnknownFields(refs, REF_FIELDS, field);
  const out: { namespace?: JsonObject; node?: JsonObject } = {};
  if (refs.namespace !== undefined && refs.namespace !== null) {
    const read = manifest(refs.namespace, `${field}.namespace`, 'Namespace');
    if (read !== undefined) out.namespace = read;
  }
  if (refs.node !== undefined && refs.node !== null) {
    const read = manifest(refs.node, `${field}.node`, 'Node');
    if (read !== undefined) out.node = read;
  }
  return out;
}

/** A manifest field of a case: whether it was given, and the object when it could be read. */
export interface GivenManifest {
  readonly given: boolean;
  readonly object: JsonObject | undefined;
}

/**
 * The object a case evaluates, from its `resource` and `oldResource`, paired as the dry-run API
 * pairs them: a DELETE evaluates the object being deleted, given as `oldResource` (or, as
 * before, as `resource`; not both); an UPDATE's `oldResource` is the same object (kind and
 * name) before the change; a CREATE has none. Problems go on `r`.
 */
export function pairOldResource(
  operation: AdmissionOperation | undefined,
  resource: GivenManifest,
  old: GivenManifest,
  r: FieldReader,
): JsonObject | undefined {
  // Neither given is reported by the caller (in the order of the case's fields).
  if (!old.given) return resource.object;
  if (operation === 'CREATE') {
    r.fail('oldResource', 'a CREATE request has no old object; set operation to UPDATE or DELETE');
    return undefined;
  }
  if (operation === 'DELETE') {
    if (resource.given) {
      r.fail(
        'resource',
        'a DELETE request carries only the object being deleted; give it as oldResource, not both',
      );
      return undefined;
    }
    return old.object;
  }
  if (!resource.given) r.fail('resource', 'is required');
  if (resource.object !== undefined && old.object !== undefined) {
    const name = (o: JsonObject): JsonValue | undefined =>
      isJsonObject(o.metadata) ? o.metadata.name : undefined;
    if (resource.object.kind !== old.object.kind) {
      r.fail(
        'oldResource.kind',
        `is ${describe(old.object.kind)} but the resource's is ${describe(resource.object.kind)}; an UPDATE changes one object`,
      );
    } else if (
      name(resource.object) !== undefined &&
      name(old.object) !== undefined &&
      name(resource.object) !== name(old.object)
    ) {
      r.fail(
        'oldResource.metadata.name',
        `is ${describe(name(old.object))} but the resource's is ${describe(name(resource.object))}; an UPDATE changes one object`,
      );
    }
  }
  return resource.object;
}

/**
 * A case's own syntheticRefs must be ones the webhook would inject into its request: the
 * namespace's manifest into namespaced objects, a node's into Pods annotated with their node.
 * (File-wide defaults are simply not injected where they do not apply.)
 */
export function checkRefsApply(
  resource: JsonObject,
  namespace: string | undefined,
  refs: CaseRefs,
  r: FieldReader,
): void {
  if (refs.namespace !== undefined && (namespace === undefined || namespace === '')) {
    r.fail(
      'syntheticRefs.namespace',
      'is injected only into namespaced objects, and this request has no namespace',
    );
  }
  if (refs.node !== undefined) {
    const node = resource.kind === 'Pod' ? annotation(resource, NODE_NAME_ANNOTATION) : undefined;
    if (node === undefined || node === '') {
      r.fail(
        'syntheticRefs.node',
        `is injected only into Pods annotated ${NODE_NAME_ANNOTATION} (set once the Pod is scheduled)`,
      );
    }
  }
}

/** A required list with at least one item (`what`); undefined, with the problem on `r`, if not. */
export function nonEmptyList(
  value: unknown,
  field: string,
  r: FieldReader,
  what: string,
): unknown[] | undefined {
  const items = r.optionalArray(value, field);
  if (items !== undefined && items.length > 0) return items;
  if (items !== undefined || value === undefined || value === null) {
    r.fail(field, `must list at least one ${what}`);
  }
  return undefined;
}

/** ModRules among parsed documents, a List counting its items. */
export function documentCount(documents: readonly unknown[]): number {
  let count = 0;
  for (const doc of documents) {
    const items = isRecord(doc) && doc.kind === 'List' ? doc.items : undefined;
    count += Array.isArray(items) ? items.length : 1;
  }
  return count;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A case's name: one line, at most maxNameLength characters, unique in the file (`names`). */
export function caseName(value: unknown, names: Set<string>, r: FieldReader): string | undefined {
  const name = r.requiredString(value, 'name');
  if (name === undefined) return undefined;
  const max = TEST_FILE_LIMITS.maxNameLength;
  if (name.length > max || /[\r\n]/.test(name)) {
    r.fail('name', `must be one line of at most ${String(max)} characters`);
    return undefined;
  }
  if (names.has(name)) {
    r.fail('name', 'is the name of an earlier case; names must be unique in a file');
    return undefined;
  }
  names.add(name);
  return name;
}
