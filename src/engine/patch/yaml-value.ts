import type { Schema } from 'js-yaml';
import { describeError, isKubemodError, KubemodError } from '../../errors/catalog.js';
import type { JsonObject, JsonValue } from '../json.js';
import { charge } from '../active-meter.js';
import { loadAllYamlBounded, YAML_UNITS_PER_CHAR } from '../yaml-bounded.js';
import { createGoYamlSchema, isGoYamlWord } from './go-yaml-schema.js';
import { setOwn } from './own-property.js';
import { goMapKey } from './yaml-map-key.js';

/**
 * Reads a rendered patch value the way KubeMod does (sigs.k8s.io/yaml over go-yaml v2, then JSON):
 * `8080` → 8080, `"8080"` → "8080", `yes`/`off`/… → booleans, `~`/`null`/empty → null, YAML
 * objects/arrays → JSON objects/arrays with non-string keys turned into strings (see
 * {@link goMapKey}) and members in sorted order (as Go's encoding/json writes them). Only the
 * first YAML document is read (as go-yaml's Unmarshal does); duplicate keys keep the last value.
 * Throws `PATCH_VALUE` for invalid YAML, NaN/infinite numbers and unsupported map keys, and
 * `YAML_LIMIT` / `DEPTH_LIMIT` for aliases that expand too far or nesting that goes too deep (see
 * {@link loadAllYamlBounded}, which also charges the text to the work meter: values are parsed
 * per request).
 */

let cachedSchema: Schema | undefined;

function schema(): Schema {
  cachedSchema ??= createGoYamlSchema();
  return cachedSchema;
}

/**
 * Texts that go-yaml reads as the plain string they spell, whatever the schema: a letter, then
 * letters, digits and `._/-`, with `:` only between two such runs (never before a space or at
 * the end, where it would start a map). Image references, names and hosts look like this; they
 * are the usual rendered value, and js-yaml takes 20–60 µs to read one.
 */
const PLAIN_STRING = /^[A-Za-z][A-Za-z0-9._/-]*(?::[A-Za-z0-9._/-]+)*$/;

export function parseYamlValue(text: string): JsonValue {
  if (text.length <= 4096 && PLAIN_STRING.test(text) && !isGoYamlWord(text)) {
    // Charged as the parser would be: units follow the input, not the path taken.
    charge(text.length * YAML_UNITS_PER_CHAR);
    return text;
  }
  return toJson(loadGoYaml(text)[0] ?? null);
}

/**
 * Every document of `text`, each read like {@link parseYamlValue} (an empty document is null),
 * with the same errors: whole manifests as kubectl would send them (timestamps stay strings).
 */
export function parseYamlDocuments(text: string): JsonValue[] {
  return loadGoYaml(text).map((document) => toJson(document ?? null));
}

function loadGoYaml(text: string): unknown[] {
  try {
    return loadAllYamlBounded(text, { schema: schema(), json: true });
  } catch (err) {
    if (isKubemodError(err)) throw err;
    throw new KubemodError(
      'PATCH_VALUE',
      `value is not valid YAML: ${describeError(err)}`,
      undefined,
      {
        cause: err,
      },
    );
  }
}

/** Recursive, but the bounded loader has limited the nesting to MAX_VALUE_DEPTH. */
function toJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    const shown = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
    throw new KubemodError('PATCH_VALUE', `value cannot be represented in JSON: ${shown}`);
  }
  if (Array.isArray(value)) return value.map((item: unknown) => toJson(item));
  if (value instanceof Map) {
    const entries: [string, unknown][] = [];
    for (const [key, item] of value as Map<unknown, unknown>) {
      const name = goMapKey(key);
      if (name === undefined) {
        throw new KubemodError('PATCH_VALUE', `unsupported YAML map key ${describeKey(key)}`);
      }
      entries.push([name, item]);
    }
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const result: JsonObject = {};
    for (const [name, item] of entries) setOwn(result, name, toJson(item));
    return result;
  }
  throw new KubemodError('PATCH_VALUE', `unsupported YAML value of type ${typeof value}`);
}

function describeKey(key: unknown): string {
  if (key === null) return 'null';
  if (typeof key === 'bigint') return `${key.toString()} (out of the int64 range)`;
  if (Array.isArray(key)) return '(a sequence)';
  if (key instanceof Map) return '(a mapping)';
  return `of type ${typeof key}`;
}
