import { ADMISSION_OPERATIONS, type AdmissionOperation } from '../../api/index.js';
import { didYouMean } from '../../api/did-you-mean.js';
import { KubemodError } from '../../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { parseDocuments } from '../../engine/load-rules.js';
import {
  checkTextLength,
  readManifestText,
  readManifestSet,
  readSingleManifest,
  type ManifestSet,
} from './dryrun-manifests.js';

export { MAX_DRYRUN_RESOURCES, MAX_DRYRUN_YAML_CHARS } from './dryrun-manifests.js';

/**
 * Most ModRules one dry run compiles. Compiling is not metered like evaluation (about 0.1–0.3 ms a
 * rule), and a 3 MB body of 10,000 small rules held the event loop for over a second; the web app
 * sends the few rules being edited.
 */
export const MAX_DRYRUN_RULES = 100;

/** The members a `PUT /v1/dryrun` body may have; any other is refused, naming it. */
export const DRYRUN_REQUEST_MEMBERS: readonly string[] = [
  'resourceManifest',
  'modRules',
  'namespace',
  'operation',
  'syntheticRefs',
  'oldResourceManifest',
  'cluster',
];

/** Most documents a dry run's `cluster` member may hold. */
export const MAX_DRYRUN_CLUSTER_OBJECTS = 1_000;

const REF_MEMBERS: readonly string[] = ['namespace', 'node'];

/** Longest namespace name Kubernetes accepts (a DNS-1123 label). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** One resource of a dry run. */
export interface DryRunResource {
  /** The object the rules see: the new object, or for DELETE the object being deleted. */
  readonly object: JsonObject;
  /** The object before the change (UPDATE and DELETE), when the body gave one. */
  readonly oldObject: JsonObject | undefined;
}

/** The Namespace and Node manifests a body gives for `syntheticRefs` (each optional). */
export interface GivenSyntheticRefs {
  readonly namespace?: JsonObject | undefined;
  readonly node?: JsonObject | undefined;
}

/** A `PUT /v1/dryrun` body, checked. */
export interface DryRunRequest {
  /** At least one; several when the body sent a multi-document text or a List. */
  readonly resources: readonly DryRunResource[];
  /** True when the resources came as several documents or a List: a result per resource. */
  readonly multi: boolean;
  /** ModRule manifests, not yet validated (each is checked and reported by its index). */
  readonly modRules: readonly unknown[];
  /** The request's namespace when the body names one; otherwise derived from each resource. */
  readonly namespace: string | undefined;
  readonly operation: AdmissionOperation;
  /** True when the resource came as YAML text: the answer then carries `patchedYaml`. */
  readonly yaml: boolean;
  /** The body's `syntheticRefs`, used instead of looking the manifests up; undefined if none. */
  readonly syntheticRefs: GivenSyntheticRefs | undefined;
  /**
   * The body's `cluster`: the manifests and ExternalDataAnswers documents lookups read
   * (docs/lookups.md); undefined if none. A dry run never reads the server's own caches.
   */
  readonly cluster: readonly JsonValue[] | undefined;
}

/**
 * Reads a dry-run body: KubeMod's web app format `{"resourceManifest": {...}, "modRules": [...]}`,
 * where each of the two may also be YAML (or JSON) text, as typed into an editor: the resource
 * one or more documents (or a List: a result per object), the rules any number of
 * `---`-separated documents (empty ones are skipped, the others numbered `modRules[i]` in order).
 * Optional `namespace` (the admission request's namespace, which rules without one are loaded
 * into), `operation` (CREATE, UPDATE or DELETE; default CREATE), `syntheticRefs` (`{namespace?,
 * node?}` manifests, injected as the webhook injects the cluster's) and `oldResourceManifest` (the
 * object before an UPDATE, or the object a DELETE removes). Any other member is refused. Throws
 * INPUT_INVALID naming the field first (`resourceManifest…`, `modRules…`, …), so that a client
 * can show the error next to what it concerns.
 */
export function readDryRunRequest(body: JsonValue): DryRunRequest {
  if (!isJsonObject(body))
    throw invalid('the body must be a JSON object {"resourceManifest": {...}, "modRules": [...]}');
  checkMembers(body, DRYRUN_REQUEST_MEMBERS, 'the dry-run request');
  const operation = readOperation(body.operation);
  const { set, resources } = readResources(body, operation);
  const modRules = readModRules(body.modRules ?? []);
  if (modRules.length > MAX_DRYRUN_RULES) {
    throw invalid(
      `modRules holds ${String(modRules.length)} ModRules; a dry run takes at most ${String(MAX_DRYRUN_RULES)}`,
    );
  }
  return {
    resources,
    multi: set.multi,
    modRules,
    namespace: readNamespace(body.namespace),
    operation,
    yaml: set.text,
    syntheticRefs: readSyntheticRefs(body.syntheticRefs),
    cluster: readCluster(body.cluster),
  };
}

/** `cluster`: a list of manifests, or YAML text of `---`-separated documents. */
function readCluster(value: JsonValue | undefined): readonly JsonValue[] | undefined {
  if (value === undefined || value === null) return undefined;
  let documents: JsonValue[];
  if (typeof value === 'string') {
    checkTextLength(value, 'cluster');
    documents = readManifestText(value, 'cluster').filter((d) => d !== null);
  } else if (Array.isArray(value)) {
    documents = value;
  } else {
    throw invalid('cluster must be a list of manifests (or YAML text of documents)');
  }
  if (documents.length > MAX_DRYRUN_CLUSTER_OBJECTS) {
    throw invalid(
      `cluster holds ${String(documents.length)} documents; a dry run takes at most ${String(MAX_DRYRUN_CLUSTER_OBJECTS)}`,
    );
  }
  return documents;
}

/** How the fields of the resources and old objects are named in messages (body or flags). */
export interface ResourceFieldNames {
  readonly resource: string;
  readonly old: string;
  readonly operation: string;
}

const BODY_FIELDS: ResourceFieldNames = {
  resource: 'resourceManifest',
  old: 'oldResourceManifest',
  operation: 'operation',
};

function readResources(
  body: JsonObject,
  operation: AdmissionOperation,
): { set: ManifestSet; resources: DryRunResource[] } {
  const given = (value: JsonValue | undefined): boolean => value !== undefined && value !== null;
  const read = (value: JsonValue | undefined, field: string): ManifestSet | undefined =>
    given(value) ? readManifestSet(value ?? null, field) : undefined;
  const resources = read(body.resourceManifest, BODY_FIELDS.resource);
  const old = read(body.oldResourceManifest, BODY_FIELDS.old);
  // Without either, the message of a missing resourceManifest.
  if (resources === undefined && old === undefined) readManifestSet(null, BODY_FIELDS.resource);
  return pairResources(operation, resources, old, BODY_FIELDS);
}

/**
 * The resources of a dry run from its resources and old objects, as the API server pairs them.
 * For DELETE the object evaluated is the one being deleted, given as the old object (as the API
 * server sends it) or, as before, as the resource, not both. For UPDATE the old objects, when
 * given, are one for each resource, in the same order, of the same kind and name. CREATE has no
 * old object. Throws INPUT_INVALID naming the field (`names`).
 */
export function pairResources(
  operation: AdmissionOperation,
  resources: ManifestSet | undefined,
  old: ManifestSet | undefined,
  names: ResourceFieldNames,
): { set: ManifestSet; resources: DryRunResource[] } {
  if (old !== undefined && operation === 'CREATE') {
    throw invalid(
      `${names.old}: a CREATE request has no old object; set ${names.operation} to UPDATE or DELETE`,
    );
  }
  if (old !== undefined && operation === 'DELETE') {
    if (resources !== undefined) {
      throw invalid(
        `${names.resource}: a DELETE request carries only the object being deleted; send it as ${names.old}, not both`,
      );
    }
    return { set: old, resources: old.objects.map((object) => ({ object, oldObject: object })) };
  }
  if (resources === undefined) throw invalid(`${names.resource}: is required`);
  if (old === undefined) {
    return {
      set: resources,
      resources: resources.objects.map((object) => ({ object, oldObject: undefined })),
    };
  }
  if (old.objects.length !== resources.objects.length) {
    throw invalid(
      `${names.old} holds ${String(old.objects.length)} objects and ${names.resource} ${String(resources.objects.length)}; an UPDATE needs the old object of each resource, in the same order`,
    );
  }
  const paired = resources.objects.map((object, i) => {
    const oldObject = old.objects[i] ?? object;
    checkSameObject(object, oldObject, `${names.old}${resources.multi ? `[${String(i)}]` : ''}`);
    return { object, oldObject };
  });
  return { set: resources, resources: paired };
}

/** The old object of an UPDATE is the same object: same kind and, when both name it, name. */
function checkSameObject(object: JsonObject, old: JsonObject, field: string): void {
  const name = (o: JsonObject): JsonValue | undefined =>
    isJsonObject(o.metadata) ? o.metadata.name : undefined;
  if (object.kind !== old.kind) {
    throw invalid(
      `${field}.kind is ${JSON.stringify(old.kind ?? null)} but the resource's is ${JSON.stringify(object.kind ?? null)}; an UPDATE changes one object`,
    );
  }
  const [newName, oldName] = [name(object), name(old)];
  if (newName !== undefined && oldName !== undefined && newName !== oldName) {
    throw invalid(
      `${field}.metadata.name is ${JSON.stringify(oldName).slice(0, 80)} but the resource's is ${JSON.stringify(newName).slice(0, 80)}; an UPDATE changes one object`,
    );
  }
}

function readSyntheticRefs(value: JsonValue | undefined): GivenSyntheticRefs | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) {
    throw invalid('syntheticRefs must be an object {"namespace": {...}, "node": {...}}');
  }
  checkMembers(value, REF_MEMBERS, 'syntheticRefs');
  const read = (member: 'namespace' | 'node', kind: string): JsonObject | undefined => {
    const manifest = value[member];
    if (manifest === undefined || manifest === null) return undefined;
    return readSingleManifest(manifest, `syntheticRefs.${member}`, kind);
  };
  const namespace = read('namespace', 'Namespace');
  const node = read('node', 'Node');
  return {
    ...(namespace === undefined ? {} : { namespace }),
    ...(node === undefined ? {} : { node }),
  };
}

/** Refuses members not in `known`, naming each (with the known one it was probably meant as). */
function checkMembers(object: JsonObject, known: readonly string[], what: string): void {
  const unknown = Object.keys(object).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.slice(0, 5).map((key) => {
    const hint = didYouMean(key, known);
    const shown = JSON.stringify(key.slice(0, 64));
    return hint === undefined ? shown : `${shown} (did you mean "${hint}"?)`;
  });
  const more = unknown.length > 5 ? ` and ${String(unknown.length - 5)} more` : '';
  const prefix = what === 'syntheticRefs' ? 'syntheticRefs: ' : '';
  throw invalid(
    `${prefix}unknown member${unknown.length > 1 ? 's' : ''} ${named.join(', ')}${more} of ${what}; it takes ${known.join(', ')}`,
  );
}

function readModRules(value: JsonValue): readonly unknown[] {
  if (typeof value === 'string') return parseRulesText(value);
  if (!Array.isArray(value)) throw invalid('modRules must be an array of ModRule manifests');
  return value;
}

function readNamespace(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  // '' asks for a cluster-scoped request (a custom kind the engine cannot know offline).
  if (value === '') return '';
  if (typeof value !== 'string' || !DNS_LABEL.test(value)) {
    throw invalid(
      `namespace must be a namespace name (lower-case letters, digits and '-', at most 63), got ${JSON.stringify(value).slice(0, 80)}`,
    );
  }
  return value;
}

function readOperation(value: JsonValue | undefined): AdmissionOperation {
  if (value === undefined || value === null) return 'CREATE';
  const operation = typeof value === 'string' ? value.toUpperCase() : undefined;
  if (operation === undefined || !(ADMISSION_OPERATIONS as readonly string[]).includes(operation)) {
    throw invalid(
      `operation must be one of ${ADMISSION_OPERATIONS.join(', ')}, got ${JSON.stringify(value).slice(0, 80)}`,
    );
  }
  return operation as AdmissionOperation;
}

/** The ModRule documents of a YAML text, read as rule files are; empty documents are dropped. */
function parseRulesText(text: string): unknown[] {
  checkTextLength(text, 'modRules');
  const { documents, errors } = parseDocuments(text, 'modRules');
  if (errors.length > 0) throw invalid(errors.join('\n'));
  return documents;
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
