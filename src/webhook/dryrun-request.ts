import { ADMISSION_OPERATIONS, type AdmissionOperation } from '../api/index.js';
import { describeError, isKubemodError, KubemodError } from '../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { parseDocuments } from '../engine/load-rules.js';
import { parseYamlDocuments } from '../engine/patch/index.js';

/**
 * Most ModRules one dry run compiles. Compiling is not metered like evaluation (about 0.1–0.3 ms a
 * rule), and a 3 MB body of 10,000 small rules held the event loop for over a second; the web app
 * sends the few rules being edited.
 */
export const MAX_DRYRUN_RULES = 100;

/**
 * Longest YAML text accepted for `resourceManifest` or `modRules`, in characters. YAML is parsed
 * about 100 times slower than JSON (3–10 characters a microsecond), so text fields are held well
 * below the body limit: 256 Ki characters take at most a few tens of milliseconds. Larger
 * manifests can still be sent as JSON objects.
 */
export const MAX_DRYRUN_YAML_CHARS = 256 * 1024;

/** Longest namespace name Kubernetes accepts (a DNS-1123 label). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A `PUT /v1/dryrun` body, checked. */
export interface DryRunRequest {
  readonly resource: JsonObject;
  /** ModRule manifests, not yet validated (each is checked and reported by its index). */
  readonly modRules: readonly unknown[];
  /** The request's namespace when the body names one; otherwise derived from the resource. */
  readonly namespace: string | undefined;
  readonly operation: AdmissionOperation;
  /** True when the resource came as YAML text: the answer then carries `patchedYaml`. */
  readonly yaml: boolean;
}

/**
 * Reads a dry-run body: KubeMod's web app format `{"resourceManifest": {...}, "modRules": [...]}`,
 * where each of the two may also be YAML (or JSON) text, as typed into an editor: the resource a
 * single document, the rules any number of `---`-separated documents (empty ones are skipped, the
 * others numbered `modRules[i]` in order). Optional `namespace` (the admission request's namespace,
 * which rules without one are loaded into) and `operation` (CREATE, UPDATE or DELETE; default
 * CREATE). Throws INPUT_INVALID naming the field first (`resourceManifest…`, `modRules…`,
 * `namespace…`, `operation…`), so that a client can show the error next to what it concerns.
 */
export function readDryRunRequest(body: JsonValue): DryRunRequest {
  if (!isJsonObject(body))
    throw invalid('the body must be a JSON object {"resourceManifest": {...}, "modRules": [...]}');
  const yaml = typeof body.resourceManifest === 'string';
  const resource = readResource(body.resourceManifest);
  const modRules = readModRules(body.modRules ?? []);
  if (modRules.length > MAX_DRYRUN_RULES) {
    throw invalid(
      `modRules holds ${String(modRules.length)} ModRules; a dry run takes at most ${String(MAX_DRYRUN_RULES)}`,
    );
  }
  return {
    resource,
    modRules,
    namespace: readNamespace(body.namespace),
    operation: readOperation(body.operation),
    yaml,
  };
}

function readResource(value: JsonValue | undefined): JsonObject {
  if (typeof value === 'string') {
    checkTextLength(value, 'resourceManifest');
    const documents = readManifestText(value).filter((document) => document !== null);
    const [object] = documents;
    if (documents.length !== 1 || !isJsonObject(object)) {
      throw invalid(
        documents.length === 0
          ? 'resourceManifest is empty: expected the Kubernetes manifest to evaluate'
          : `resourceManifest must hold exactly one Kubernetes object, found ${describeDocuments(documents)}`,
      );
    }
    return object;
  }
  if (!isJsonObject(value))
    throw invalid('resourceManifest must be an object (the Kubernetes manifest to evaluate)');
  return value;
}

/**
 * The resource's documents, read as kubectl reads a manifest (go-yaml: timestamps stay strings,
 * `yes`/`no` are booleans), so a pasted `kubectl get -o yaml` means what it means to the API
 * server. Errors keep their code and name the field.
 */
function readManifestText(text: string): JsonValue[] {
  try {
    return parseYamlDocuments(text);
  } catch (err) {
    if (!isKubemodError(err)) throw err;
    if (err.kind === 'PATCH_VALUE' && err.cause !== undefined) {
      throw invalid(`resourceManifest is not valid YAML: ${describeError(err.cause)}`);
    }
    const kind = err.kind === 'PATCH_VALUE' ? 'INPUT_INVALID' : err.kind;
    throw new KubemodError(kind, err.rawMessage(), 'resourceManifest', { cause: err });
  }
}

function readModRules(value: JsonValue): readonly unknown[] {
  if (typeof value === 'string') return parseRulesText(value);
  if (!Array.isArray(value)) throw invalid('modRules must be an array of ModRule manifests');
  return value;
}

function readNamespace(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
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

function checkTextLength(text: string, field: string): void {
  if (text.length > MAX_DRYRUN_YAML_CHARS) {
    throw invalid(
      `${field} is ${String(text.length)} characters of text; a dry run reads at most ${String(MAX_DRYRUN_YAML_CHARS)} (send larger manifests as JSON)`,
    );
  }
}

function describeDocuments(documents: readonly unknown[]): string {
  if (documents.length > 1) return `${String(documents.length)} documents`;
  const [only] = documents;
  return Array.isArray(only) ? 'a list' : `a ${typeof only}`;
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
