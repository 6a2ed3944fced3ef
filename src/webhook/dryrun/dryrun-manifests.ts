import { describeError, isKubemodError, KubemodError } from '../../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { parseYamlDocuments } from '../../engine/patch/index.js';

/**
 * Reading the manifests of a dry run (resources, old objects, syntheticRefs) from JSON values or
 * YAML text. Pure (no Node APIs), so that the in-browser playground reads them as the server does.
 */

/** Most resources one dry run evaluates (each with its own work budget). */
export const MAX_DRYRUN_RESOURCES = 50;

/**
 * Longest YAML text accepted for one manifest field, in characters. YAML is parsed about 100
 * times slower than JSON (3–10 characters a microsecond), so text fields are held well below the
 * body limit: 256 Ki characters take at most a few tens of milliseconds. Larger manifests can
 * still be sent as JSON objects.
 */
export const MAX_DRYRUN_YAML_CHARS = 256 * 1024;

/** The objects of a manifest field, and whether it held several (documents or a List). */
export interface ManifestSet {
  readonly objects: readonly JsonObject[];
  /** True for a multi-document text or a List: the answer then has a result per object. */
  readonly multi: boolean;
  /** True when the field was YAML (or JSON) text rather than an object. */
  readonly text: boolean;
}

/**
 * Whether `value` is a Kubernetes list (`kind: List`, or any kind ending in `List` such as
 * `PodList`, as `kubectl get -o yaml` writes them) with an `items` array.
 */
export function isListManifest(
  value: JsonValue | undefined,
): value is JsonObject & { items: JsonValue[] } {
  return (
    isJsonObject(value) &&
    typeof value.kind === 'string' &&
    value.kind.endsWith('List') &&
    Array.isArray(value.items)
  );
}

/**
 * The objects of `field`: one object, a List, or YAML text of one or more documents (each an
 * object or a List; empty documents are skipped). Throws INPUT_INVALID naming the field
 * (`resourceManifest[2]: …` for the third object).
 */
export function readManifestSet(value: JsonValue, field: string): ManifestSet {
  const text = typeof value === 'string';
  let documents: JsonValue[];
  if (typeof value === 'string') {
    checkTextLength(value, field);
    documents = readManifestText(value, field).filter((document) => document !== null);
  } else if (isJsonObject(value)) {
    documents = [value];
  } else {
    throw invalid(`${field} must be an object (the Kubernetes manifest to evaluate)`);
  }
  const { objects, multi } = manifestObjects(
    documents,
    { maxObjects: MAX_DRYRUN_RESOURCES },
    {
      empty: () => invalid(`${field} is empty: expected the Kubernetes manifest to evaluate`),
      emptyList: () => invalid(`${field} is an empty list: expected a manifest`),
      notAnObject: (index, found) =>
        invalid(
          `${field}[${String(index)}] must be a Kubernetes object, found ${describeFound(found)}`,
        ),
      tooMany: (max) =>
        invalid(
          `${field} holds more than ${String(max)} objects; a dry run evaluates at most ${String(max)}`,
        ),
    },
  );
  return { objects, multi, text };
}

/** What a manifest reader allows: the dry-run API and the CLI read with different limits. */
export interface ManifestLimits {
  /** Most objects, Lists expanded (none when undefined). */
  readonly maxObjects?: number | undefined;
}

/** How a reader words each problem (the dry-run API and the CLI keep their own messages). */
export interface ManifestProblems {
  /** No document at all. */
  empty(): Error;
  /** Documents, but no object (an empty List). */
  emptyList(): Error;
  /** The object at `index` (0-based, Lists expanded) is `found`, not a mapping. */
  notAnObject(index: number, found: JsonValue): Error;
  /** The object at `index` has no `kind`; when given, every object must state its kind. */
  readonly noKind?: ((index: number) => Error) | undefined;
  /** More than `max` objects (asked only under `maxObjects`). */
  readonly tooMany?: ((max: number) => Error) | undefined;
}

/**
 * The one manifest reader of the dry-run API and the CLI: the objects of parsed `documents`
 * (each an object or a List, whose items count one by one), checked under `limits`, every
 * problem worded by `problems`. `multi` is true for several documents or a List.
 */
export function manifestObjects(
  documents: readonly JsonValue[],
  limits: ManifestLimits,
  problems: ManifestProblems,
): { readonly objects: JsonObject[]; readonly multi: boolean } {
  if (documents.length === 0) throw problems.empty();
  const objects: JsonObject[] = [];
  let multi = documents.length > 1;
  const add = (value: JsonValue): void => {
    const index = objects.length;
    if (!isJsonObject(value)) throw problems.notAnObject(index, value);
    const noKind = problems.noKind;
    if (noKind !== undefined && (typeof value.kind !== 'string' || value.kind === '')) {
      throw noKind(index);
    }
    objects.push(value);
  };
  for (const document of documents) {
    if (isListManifest(document)) {
      multi = true;
      for (const item of document.items) add(item);
    } else {
      add(document);
    }
    if (limits.maxObjects !== undefined && objects.length > limits.maxObjects) {
      throw (
        problems.tooMany?.(limits.maxObjects) ??
        invalid(`more than ${String(limits.maxObjects)} objects`)
      );
    }
  }
  if (objects.length === 0) throw problems.emptyList();
  return { objects, multi };
}

/**
 * One manifest (a syntheticRefs member): an object or YAML text of one document, whose `kind`,
 * when stated, must be `kind`.
 */
export function readSingleManifest(value: JsonValue, field: string, kind: string): JsonObject {
  const set = readManifestSet(value, field);
  const [object] = set.objects;
  if (set.multi || object === undefined) {
    throw invalid(`${field} must be one ${kind} manifest, found ${String(set.objects.length)}`);
  }
  if (object.kind !== undefined && object.kind !== kind) {
    throw invalid(`${field}.kind must be ${kind}, got ${JSON.stringify(object.kind).slice(0, 80)}`);
  }
  return object;
}

/** `null`, `a list`, `a string`, …: what stands where an object was expected. */
function describeFound(value: JsonValue): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/**
 * The documents of a manifest text, read as kubectl reads a manifest (go-yaml: timestamps stay
 * strings, `yes`/`no` are booleans), so a pasted `kubectl get -o yaml` means what it means to the
 * API server. Errors keep their code and name the field.
 */
export function readManifestText(text: string, field: string): JsonValue[] {
  try {
    return parseYamlDocuments(text);
  } catch (err) {
    if (!isKubemodError(err)) throw err;
    if (err.kind === 'PATCH_VALUE' && err.cause !== undefined) {
      throw invalid(`${field} is not valid YAML: ${describeError(err.cause)}`);
    }
    const kind = err.kind === 'PATCH_VALUE' ? 'INPUT_INVALID' : err.kind;
    throw new KubemodError(kind, err.rawMessage(), field, { cause: err });
  }
}

export function checkTextLength(text: string, field: string): void {
  if (text.length > MAX_DRYRUN_YAML_CHARS) {
    throw invalid(
      `${field} is ${String(text.length)} characters of text; a dry run reads at most ${String(MAX_DRYRUN_YAML_CHARS)} characters of YAML text (only a client of PUT /v1/dryrun can send larger manifests, as JSON objects, which this limit does not count)`,
    );
  }
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
