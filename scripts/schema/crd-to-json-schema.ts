/**
 * Converts a CustomResourceDefinition's `openAPIV3Schema` into a standalone JSON Schema (draft-07)
 * for editors (yaml-language-server, VS Code) and kubeconform, keeping every description.
 *
 * What changes on the way, and why:
 * - An object schema with `properties` gets `additionalProperties: false`: the CRD is structural,
 *   so the API server prunes (silently drops) unknown fields of such objects, and a misspelt field
 *   is a rule that quietly does less than its author wrote. Parts marked
 *   `x-kubernetes-preserve-unknown-fields: true` stay open, as the API server keeps their fields.
 * - `nullable: true` becomes a `null` alternative of the type (OpenAPI 3.0 to JSON Schema).
 * - `x-kubernetes-int-or-string` becomes integer or string; other `x-kubernetes-*` keywords (list
 *   types and map keys) have no JSON Schema counterpart and are left out.
 * - `format` is kept where JSON Schema defines it (`date-time`); `int64`, `int32` and the like are
 *   OpenAPI's only and are left out (`type: integer` stays).
 * - The root `metadata` (`type: object` in every CRD: the API server owns ObjectMeta's schema)
 *   gets the ObjectMeta fields authors write, open to the server-managed rest.
 * - `apiVersion` and `kind` are pinned to the CRD's group/version and kind and required, so an
 *   editor offers them and a document of another kind is not taken for this one.
 */

/** A JSON Schema or OpenAPI schema node, as plain JSON. */
export type SchemaNode = { [key: string]: unknown };

/** The parts of a CRD the conversion reads. */
export interface CrdSource {
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly schema: SchemaNode;
}

/** Keywords copied unchanged from OpenAPI to JSON Schema (besides those handled one by one). */
const COPIED = [
  'description',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'minProperties',
  'maxProperties',
  'required',
] as const;

/** `format` values JSON Schema draft-07 defines (OpenAPI's int32, int64, byte… are not). */
const JSON_SCHEMA_FORMATS: ReadonlySet<string> = new Set(['date-time', 'date', 'email', 'uri']);

/** The ObjectMeta fields a ModRule's author writes; the object stays open to the rest. */
const OBJECT_META: SchemaNode = {
  description:
    "Standard object metadata (the API server's ObjectMeta). Only the fields authors write are " +
    'described here; the server-managed ones (uid, resourceVersion, managedFields, …) are accepted.',
  type: 'object',
  properties: {
    name: { description: 'Name of the object, unique in its namespace.', type: 'string' },
    generateName: {
      description: 'Prefix of a name the API server generates when `name` is not given.',
      type: 'string',
    },
    namespace: {
      description:
        'Namespace of the object. ModRules in kubemod-system apply cluster-wide; elsewhere, to ' +
        'their own namespace.',
      type: 'string',
    },
    labels: {
      description: 'Labels: string keys and values.',
      type: 'object',
      additionalProperties: { type: 'string' },
    },
    annotations: {
      description:
        'Annotations: string keys and values (api.kubemod.io/enforcement, ' +
        'api.kubemod.io/failure-policy, api.kubemod.io/apply-to-existing, …).',
      type: 'object',
      additionalProperties: { type: 'string' },
    },
  },
};

/** The JSON Schema of one CRD version, closed where the API server prunes. */
export function crdToJsonSchema(crd: CrdSource): SchemaNode {
  const root = convert(crd.schema, 'openAPIV3Schema');
  const properties = { ...(root.properties as SchemaNode | undefined) };
  properties.apiVersion = {
    ...(properties.apiVersion as SchemaNode | undefined),
    enum: [`${crd.group}/${crd.version}`],
  };
  properties.kind = { ...(properties.kind as SchemaNode | undefined), enum: [crd.kind] };
  properties.metadata = OBJECT_META;
  const own = Array.isArray(root.required) ? (root.required as string[]) : [];
  const required = new Set(['apiVersion', 'kind', ...own]);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `${crd.kind} (${crd.group}/${crd.version})`,
    ...root,
    properties,
    required: [...required],
  };
}

/** Converts one OpenAPI schema node (`at` names it in errors). */
export function convert(node: SchemaNode, at: string): SchemaNode {
  const out: SchemaNode = {};
  for (const key of COPIED) {
    if (node[key] !== undefined) out[key] = node[key];
  }
  if (node['x-kubernetes-int-or-string'] === true) {
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  } else if (typeof node.type === 'string') {
    out.type = node.nullable === true ? [node.type, 'null'] : node.type;
    if (node.nullable === true && Array.isArray(out.enum))
      out.enum = [...(out.enum as unknown[]), null];
  }
  if (typeof node.format === 'string' && JSON_SCHEMA_FORMATS.has(node.format)) {
    out.format = node.format;
  }
  if (node.items !== undefined)
    out.items = convert(asNode(node.items, `${at}.items`), `${at}.items`);
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[combinator];
    if (Array.isArray(list)) {
      out[combinator] = list.map((item, i) =>
        convert(asNode(item, `${at}.${combinator}[${String(i)}]`), `${at}.${combinator}`),
      );
    }
  }
  if (node.not !== undefined) out.not = convert(asNode(node.not, `${at}.not`), `${at}.not`);
  const open = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (node.properties !== undefined) {
    const properties: SchemaNode = {};
    for (const [name, child] of Object.entries(asNode(node.properties, `${at}.properties`))) {
      properties[name] = convert(asNode(child, `${at}.${name}`), `${at}.${name}`);
    }
    out.properties = properties;
  }
  if (typeof node.additionalProperties === 'object' && node.additionalProperties !== null) {
    const extra = asNode(node.additionalProperties, `${at}.additionalProperties`);
    out.additionalProperties = convert(extra, `${at}.additionalProperties`);
  } else if (typeof node.additionalProperties === 'boolean') {
    out.additionalProperties = node.additionalProperties;
  } else if (node.properties !== undefined && !open) {
    out.additionalProperties = false;
  }
  return out;
}

function asNode(value: unknown, at: string): SchemaNode {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${at}: expected a schema object, got ${JSON.stringify(value)}`);
  }
  return value as SchemaNode;
}
