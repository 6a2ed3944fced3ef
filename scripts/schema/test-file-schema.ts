import type { SchemaNode } from './crd-to-json-schema.js';

/**
 * The JSON Schema of `kubemod-ts test` files (`kubemod-test.yaml`; docs/testing-rules.md), for
 * editors. The loader (src/cli/rule-tests/load-test-file.ts) stays the judge: it also checks what
 * a schema cannot (files exist, names are unique, ops need a value…). test/unit/json-schemas.test.ts
 * checks that the two know the same fields at every level, so a field added to one and not the
 * other fails the unit tests. Inline ModRules are checked against the ModRule schema.
 */

/** A manifest given inline, or the path of a YAML/JSON file holding it. */
function manifestOrPath(description: string, kind?: string): SchemaNode {
  const inline: SchemaNode = {
    type: 'object',
    properties: {
      kind: kind === undefined ? { type: 'string', minLength: 1 } : { enum: [kind] },
    },
  };
  if (kind === undefined) inline.required = ['kind'];
  return {
    description,
    anyOf: [{ type: 'string', minLength: 1, description: 'Path of a YAML/JSON file.' }, inline],
  };
}

const SYNTHETIC_REFS: SchemaNode = {
  description:
    'What the webhook injects under .syntheticRefs: the request namespace’s manifest and a ' +
    'Pod’s node’s, each inline or a file; or the path of a YAML file holding that mapping.',
  anyOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        namespace: manifestOrPath(
          'The Namespace manifest, injected into namespaced objects.',
          'Namespace',
        ),
        node: manifestOrPath(
          'The Node manifest, injected into Pods annotated ref.kubemod.io/nodename.',
          'Node',
        ),
      },
    },
    { type: 'null' },
  ],
};

const CLUSTER: SchemaNode = {
  description:
    'The cluster state lookups read (docs/lookups.md): manifests inline (ExternalDataAnswers ' +
    'documents included) or paths of files or directories of manifests, relative to the test file.',
  anyOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }] } },
    { type: 'null' },
  ],
};

const OPERATION: SchemaNode = {
  description: 'The admission operation: CREATE (the default), UPDATE or DELETE.',
  enum: ['CREATE', 'UPDATE', 'DELETE'],
};

const RULE_LIST: SchemaNode = {
  description: 'Rules listed as `<namespace>/<name>`, in order.',
  type: 'array',
  items: { type: 'string' },
};

const PATCH_OPERATION: SchemaNode = {
  type: 'object',
  additionalProperties: false,
  required: ['op', 'path'],
  properties: {
    op: { description: 'add, replace or remove.', enum: ['add', 'replace', 'remove'] },
    path: { description: 'A JSON pointer.', type: 'string', pattern: '^/' },
    value: { description: 'The value added or replaced (not for remove).' },
  },
};

const FAILURE: SchemaNode = {
  type: 'object',
  additionalProperties: false,
  required: ['rule'],
  properties: {
    rule: { description: '`<namespace>/<name>`.', type: 'string', pattern: '^[^/]+/[^/]+$' },
    field: { description: 'The rule field that failed, e.g. spec.patch[0].value.', type: 'string' },
    code: { description: 'The error code, e.g. KM4002.', type: 'string' },
    message: { description: 'The error message.', type: 'string' },
    failurePolicy: { description: 'Ignore, or Fail.', enum: ['Ignore', 'Fail'] },
  },
};

const EXPECT: SchemaNode = {
  description:
    'What must come out, at least one field. rejections, warnings, audited and failures are ' +
    'always checked: when not stated, none are expected.',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    patched: manifestOrPath('The object as the cluster would store it (inline or a file).'),
    patch: {
      description: 'The RFC 6902 patch the webhook would answer, in order.',
      type: 'array',
      items: PATCH_OPERATION,
    },
    noChange: {
      description: 'true: no rule changed the object. Not with patch or patched.',
      enum: [true],
    },
    rejections: {
      ...RULE_LIST,
      description:
        'The rejections in order: `<namespace>/<name>: "<message>"`, or `<namespace>/<name>`.',
    },
    warnings: { ...RULE_LIST, description: 'Matching Reject rules in Warn mode, as rejections.' },
    audited: { ...RULE_LIST, description: 'Matching Reject rules in Audit mode, as rejections.' },
    failures: {
      description: 'Rules that failed while evaluating and were skipped, in order.',
      type: 'array',
      items: FAILURE,
    },
    applied: {
      ...RULE_LIST,
      description: 'The Patch rules that matched and applied, in the order they ran.',
    },
  },
};

const CASE: SchemaNode = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'expect'],
  properties: {
    name: {
      description: 'One line, at most 200 characters, unique in the file.',
      type: 'string',
      minLength: 1,
      maxLength: 200,
    },
    resource: manifestOrPath('The object as the API server sends it (inline or a file).'),
    oldResource: manifestOrPath('The object before an UPDATE, or the object a DELETE deletes.'),
    operation: { ...OPERATION, description: 'Overrides the file’s operation.' },
    namespace: {
      description:
        "The request namespace (overrides the file’s); `''` is a cluster-scoped request.",
      type: 'string',
    },
    syntheticRefs: SYNTHETIC_REFS,
    cluster: CLUSTER,
    expect: EXPECT,
  },
};

/** The test-file schema; `modRule` (the ModRule schema) checks inline rules. */
export function testFileSchema(modRule: SchemaNode): SchemaNode {
  const inlineRule = { ...modRule };
  delete inlineRule.$schema;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'kubemod-ts test file (kubemod-test.yaml)',
    description:
      'ModRules and the cases they must pass: `kubemod-ts test` (docs/testing-rules.md).',
    type: 'object',
    additionalProperties: false,
    required: ['rules', 'cases'],
    properties: {
      rules: {
        description: 'ModRule files and directories (relative to this file), and inline ModRules.',
        type: 'array',
        minItems: 1,
        items: { anyOf: [{ type: 'string', minLength: 1 }, { $ref: '#/definitions/modRule' }] },
      },
      namespace: { description: 'Default request namespace of the cases.', type: 'string' },
      operation: { ...OPERATION, description: 'Default operation of the cases.' },
      syntheticRefs: SYNTHETIC_REFS,
      cluster: CLUSTER,
      cases: {
        description: 'The cases, at least one.',
        type: 'array',
        minItems: 1,
        maxItems: 1000,
        items: CASE,
      },
    },
    definitions: { modRule: inlineRule },
  };
}
