import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../../../scripts/schema/crd-to-json-schema.js';
import { convert } from '../../../scripts/schema/crd-to-json-schema.js';
import {
  kubeconformFileName,
  renderSchemas,
  SCHEMA_DIR,
  TEST_FILE_SCHEMA,
} from '../../../scripts/schema/schema-files.js';
import { CASE_FIELDS, TOP_FIELDS } from '../../../src/cli/rule-tests/load-test-file.js';
import {
  EXPECT_FIELDS,
  FAILURE_FIELDS,
  OP_FIELDS,
} from '../../../src/cli/rule-tests/read-expectations.js';
import { REF_FIELDS } from '../../../src/cli/rule-tests/test-file-checks.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

function readSchema(name: string): SchemaNode {
  return JSON.parse(readFileSync(join(repoRoot, SCHEMA_DIR, name), 'utf8')) as SchemaNode;
}

function props(node: unknown): SchemaNode {
  return (node as { properties: SchemaNode }).properties;
}

/** The object alternative of an anyOf (syntheticRefs is an object or a path). */
function objectBranch(node: unknown): SchemaNode {
  const branches = (node as { anyOf: SchemaNode[] }).anyOf;
  const found = branches.find((b) => b.type === 'object');
  if (found === undefined) throw new Error('no object branch');
  return found;
}

/** Paths of object schemas with properties that accept unknown fields. */
function openObjects(node: unknown, at: string, out: string[]): string[] {
  if (typeof node !== 'object' || node === null) return out;
  const schema = node as SchemaNode;
  if (schema.properties !== undefined && schema.additionalProperties !== false) out.push(at);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    openObjects(child, `${at}.${key}`, out);
  }
  if (schema.items !== undefined) openObjects(schema.items, `${at}[]`, out);
  return out;
}

describe('schemas/', () => {
  it('is what npm run schema writes from config/crd and the test-file schema (run it if not)', () => {
    const expected = renderSchemas(repoRoot);
    const onDisk = readdirSync(join(repoRoot, SCHEMA_DIR)).filter((n) => n.endsWith('.json'));
    expect(onDisk.sort()).toEqual([...expected.keys()]);
    for (const [name, text] of expected) {
      expect(readFileSync(join(repoRoot, SCHEMA_DIR, name), 'utf8'), name).toBe(text);
    }
  });

  it('names each CRD schema as kubeconform looks it up ({{ .ResourceKind }}{{ .KindSuffix }})', () => {
    expect(kubeconformFileName('ModRule', 'api.kubemod.io', 'v1beta1')).toBe(
      'modrule-api-v1beta1.json',
    );
    expect(kubeconformFileName('Deployment', 'apps', 'v1')).toBe('deployment-apps-v1.json');
    expect(readdirSync(join(repoRoot, SCHEMA_DIR))).toContain('modrule-api-v1beta1.json');
  });

  it('closes every ModRule object except metadata, and keeps the CRD descriptions', () => {
    const schema = readSchema('modrule-api-v1beta1.json');
    expect(openObjects(schema, 'ModRule', [])).toEqual(['ModRule.metadata']);
    const spec = props(schema).spec as SchemaNode;
    expect(spec.description).toMatch(/matches and what it does/);
    const match = props(spec).match as { items: SchemaNode };
    expect((props(match.items).matchRegex as SchemaNode).type).toEqual(['string', 'null']);
    expect(props(schema).apiVersion).toMatchObject({ enum: ['api.kubemod.io/v1beta1'] });
  });

  it.each([
    [{ type: 'object', properties: { a: { type: 'string' } } }, false],
    [
      {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { a: { type: 'string' } },
      },
      undefined,
    ],
    [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'string' }],
    [{ type: 'object' }, undefined],
  ])('leaves open only what the API server keeps open: %j', (node, additional) => {
    expect(convert(node, 'x').additionalProperties).toEqual(additional);
  });

  it.each([
    [{ type: 'string', nullable: true }, { type: ['string', 'null'] }],
    [{ 'x-kubernetes-int-or-string': true }, { anyOf: [{ type: 'integer' }, { type: 'string' }] }],
    [{ type: 'integer', format: 'int64' }, { type: 'integer' }],
    [
      { type: 'string', format: 'date-time' },
      { type: 'string', format: 'date-time' },
    ],
    [
      { type: 'array', 'x-kubernetes-list-type': 'map', items: {} },
      { type: 'array', items: {} },
    ],
  ])('converts OpenAPI keywords: %j', (node, converted) => {
    expect(convert(node, 'x')).toEqual(converted);
  });
});

describe('the test-file schema and the loader (src/cli/rule-tests) know the same fields', () => {
  const schema = readSchema(TEST_FILE_SCHEMA);
  const sorted = (names: readonly string[]): string[] => [...names].sort();
  const cases = (props(schema).cases as { items: SchemaNode }).items;
  const expectSchema = props(cases).expect as SchemaNode;

  it.each([
    ['top level', Object.keys(props(schema)), TOP_FIELDS],
    ['a case', Object.keys(props(cases)), CASE_FIELDS],
    ['expect', Object.keys(props(expectSchema)), EXPECT_FIELDS],
    [
      'expect.patch[]',
      Object.keys(props((props(expectSchema).patch as { items: SchemaNode }).items)),
      OP_FIELDS,
    ],
    [
      'expect.failures[]',
      Object.keys(props((props(expectSchema).failures as { items: SchemaNode }).items)),
      FAILURE_FIELDS,
    ],
    ['syntheticRefs', Object.keys(props(objectBranch(props(schema).syntheticRefs))), REF_FIELDS],
  ])('%s', (_where, inSchema, inLoader) => {
    expect(sorted(inSchema)).toEqual(sorted(inLoader));
  });
});
