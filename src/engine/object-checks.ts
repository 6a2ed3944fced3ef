import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

/**
 * What the API server would refuse in a patched object, found before it is sent: a rule can
 * produce a result that admission accepts (the webhook only patches) but the API server then
 * refuses — a label value `<no value>` (a template's output for a missing field), or a label
 * turned into a number because a template's output is read as YAML (`'0042'` becomes 34). The
 * dry run (page, `PUT /v1/dryrun`, `kubemod-ts dryrun`) lists these so an author sees them at
 * once rather than on the cluster.
 *
 * Checked: metadata's name, namespace, labels (keys and values, Kubernetes' syntax) and
 * annotations (keys, string values), the label maps of Pod templates and selectors, and the
 * types of well-known fields (replicas, container names, images, ports, env values). Not a
 * schema: fields not listed here are not looked at. Pure; the work is bounded by the object,
 * which the dry run has already bounded, and by MAX_PROBLEMS.
 */

/** Most problems listed for one object. */
export const MAX_PROBLEMS = 50;

/** `prefix/name`: prefix a DNS subdomain, name 1–63 of [A-Za-z0-9_.-], alphanumeric at the ends. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** What a Go template prints for a missing field. */
const NO_VALUE = '<no value>';

/** The container lists of a Pod spec. */
const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

/**
 * The problems of `object`, each `<field>: <reason>`, in a stable order; [] when none is found.
 * @param object the object as it would be sent to the API server
 */
export function objectProblems(object: JsonValue): string[] {
  const problems: string[] = [];
  const add = (field: string, reason: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${field}: ${reason}`);
  };
  if (!isJsonObject(object)) return problems;
  const metadata = object.metadata;
  if (isJsonObject(metadata)) checkMetadata(metadata, 'metadata', add);
  const spec = object.spec;
  if (!isJsonObject(spec)) return problems;
  checkInteger(spec.replicas, 'spec.replicas', add);
  checkSelector(spec.selector, 'spec.selector', add);
  checkPodSpec(spec, 'spec', add);
  const template = spec.template;
  if (isJsonObject(template)) {
    if (isJsonObject(template.metadata)) {
      checkLabels(template.metadata.labels, 'spec.template.metadata.labels', add);
      checkAnnotations(template.metadata.annotations, 'spec.template.metadata.annotations', add);
    }
    if (isJsonObject(template.spec)) checkPodSpec(template.spec, 'spec.template.spec', add);
  }
  return problems;
}

type Add = (field: string, reason: string) => void;

function checkMetadata(metadata: JsonObject, at: string, add: Add): void {
  const { name, namespace } = metadata;
  if (name !== undefined && typeof name !== 'string') add(`${at}.name`, mustBeString(name));
  if (namespace !== undefined) {
    if (typeof namespace !== 'string') add(`${at}.namespace`, mustBeString(namespace));
    else if (namespace !== '' && !DNS_LABEL.test(namespace)) {
      add(
        `${at}.namespace`,
        `${quote(namespace)} is not a valid namespace name${noValue(namespace)}`,
      );
    }
  }
  checkLabels(metadata.labels, `${at}.labels`, add);
  checkAnnotations(metadata.annotations, `${at}.annotations`, add);
}

function checkLabels(labels: JsonValue | undefined, at: string, add: Add): void {
  if (labels === undefined || labels === null) return;
  if (!isJsonObject(labels)) {
    add(at, `must be a map of strings, got ${describe(labels)}`);
    return;
  }
  for (const [key, value] of Object.entries(labels)) {
    const field = `${at}.${key}`;
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem !== undefined) add(field, `the label key ${keyProblem}`);
    if (typeof value !== 'string') add(field, mustBeString(value));
    else if (value.length > 63 || !LABEL_VALUE.test(value)) {
      add(
        field,
        `${quote(value)} is not a valid label value (at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit)${noValue(value)}`,
      );
    }
  }
}

function checkAnnotations(annotations: JsonValue | undefined, at: string, add: Add): void {
  if (annotations === undefined || annotations === null) return;
  if (!isJsonObject(annotations)) {
    add(at, `must be a map of strings, got ${describe(annotations)}`);
    return;
  }
  for (const [key, value] of Object.entries(annotations)) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem !== undefined) add(`${at}.${key}`, `the annotation key ${keyProblem}`);
    if (typeof value !== 'string') add(`${at}.${key}`, mustBeString(value));
  }
}

function checkSelector(selector: JsonValue | undefined, at: string, add: Add): void {
  if (!isJsonObject(selector)) return;
  checkLabels(selector.matchLabels, `${at}.matchLabels`, add);
}

function checkPodSpec(spec: JsonObject, at: string, add: Add): void {
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((container, i) => {
      if (isJsonObject(container)) checkContainer(container, `${at}.${list}[${String(i)}]`, add);
    });
  }
}

function checkContainer(container: JsonObject, at: string, add: Add): void {
  for (const key of ['name', 'image', 'imagePullPolicy']) {
    const value = container[key];
    if (value !== undefined && typeof value !== 'string') add(`${at}.${key}`, mustBeString(value));
  }
  const { ports, env } = container;
  if (Array.isArray(ports)) {
    ports.forEach((port, i) => {
      if (!isJsonObject(port)) return;
      const field = `${at}.ports[${String(i)}].containerPort`;
      if (checkInteger(port.containerPort, field, add)) {
        const number = port.containerPort as number;
        if (number < 1 || number > 65535) add(field, `${String(number)} is not a port (1–65535)`);
      }
    });
  }
  if (Array.isArray(env)) {
    env.forEach((variable, i) => {
      if (!isJsonObject(variable)) return;
      const { name, value } = variable;
      const field = `${at}.env[${String(i)}]`;
      if (name !== undefined && typeof name !== 'string') add(`${field}.name`, mustBeString(name));
      if (value !== undefined && typeof value !== 'string')
        add(`${field}.value`, mustBeString(value));
    });
  }
}

/** Whether `value` is an integer (or absent); adds the problem when it is something else. */
function checkInteger(value: JsonValue | undefined, field: string, add: Add): boolean {
  if (value === undefined) return false;
  if (typeof value === 'number' && Number.isInteger(value)) return true;
  add(field, `must be an integer, got ${describe(value)}`);
  return false;
}

/** Why `key` is not a Kubernetes qualified name (`[prefix/]name`), or undefined when it is one. */
function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  const name = parts.length === 2 ? (parts[1] ?? '') : key;
  const prefix = parts.length === 2 ? (parts[0] ?? '') : undefined;
  if (parts.length > 2) return `${quote(key)} holds more than one '/'`;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `${quote(key)} has a prefix that is not a DNS subdomain (lower case, digits, '-', '.')`;
  }
  if (!LABEL_NAME.test(name)) {
    return `${quote(key)} is not a valid name (1–63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)${noValue(key)}`;
  }
  return undefined;
}

/** The reason for a non-string where a string is needed, with the likely cause. */
function mustBeString(value: JsonValue): string {
  const cause =
    typeof value === 'number' || typeof value === 'boolean' || value === null
      ? `; a template's output is read as YAML, so digits, true/false and null stop being text (and 0042 is the octal number 34): put quotes inside the template's quotes, e.g. value: '"{{ … }}"'`
      : '';
  return `must be a string, got ${describe(value)}${cause}`;
}

function noValue(text: string): string {
  return text.includes(NO_VALUE)
    ? ` (${NO_VALUE} is what a template prints for a field the object does not have: check the path, or use default)`
    : '';
}

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${quote(value)}`;
  return `the ${typeof value} ${String(value)}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length <= 80 ? text : `${text.slice(0, 77)}…`);
}

/**
 * The problems of `patched` that `original` does not have: what the rules made the API server
 * refuse (a problem the object came with is not the rules' doing, and the API server reports it
 * anyway).
 */
export function newObjectProblems(original: JsonValue, patched: JsonValue): string[] {
  const before = new Set(objectProblems(original));
  return objectProblems(patched).filter((problem) => !before.has(problem));
}
