import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { loadTestFile } from '../../../src/cli/rule-tests/load-test-file.js';
import {
  modRulesInDocs,
  modRulesInSamples,
  validator,
  yamlBlocks,
  yamlFiles,
} from './schema-validation.test-support.js';

// The published JSON Schemas (schemas/, npm run schema) accept every ModRule and test file the
// project shows its users, and refuse a misspelt field, naming it.
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const readJson = (name: string): object =>
  JSON.parse(readFileSync(join(repoRoot, 'schemas', name), 'utf8')) as object;
const modRule = validator(readJson('modrule-api-v1beta1.json'));
const testFile = validator(readJson('kubemod-test.json'));

const SAMPLE_RULE = {
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: { name: 'team-label', namespace: 'shop' },
  spec: {
    type: 'Patch',
    match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    patch: [{ op: 'add', path: '/metadata/labels/team', value: 'shop' }],
  },
};

describe('the ModRule schema', () => {
  const samples = modRulesInSamples(repoRoot);
  const { found: docs, lines: docLines } = modRulesInDocs(repoRoot);

  it('finds the ModRules of samples/ and every one of the docs', () => {
    expect(samples.length).toBeGreaterThan(20);
    expect(docs.length).toBeGreaterThan(5);
    expect(docs.length).toBe(docLines);
  });

  it.each(samples.map((f) => [f.where, f.document]))('accepts %s', (_where, document) => {
    expect(modRule(document)).toEqual([]);
  });

  it.each(docs.map((f) => [f.where, f.document]))('accepts %s', (_where, document) => {
    expect(modRule(document)).toEqual([]);
  });

  it.each([
    [
      'spec.matchh',
      { ...SAMPLE_RULE, spec: { ...SAMPLE_RULE.spec, matchh: [] } },
      '/spec',
      'matchh',
    ],
    [
      'spec.match[0].matchValeu',
      {
        ...SAMPLE_RULE,
        spec: { ...SAMPLE_RULE.spec, match: [{ select: '$.kind', matchValeu: 'x' }] },
      },
      '/spec/match/0',
      'matchValeu',
    ],
    [
      'spec.patch[0].vaule',
      {
        ...SAMPLE_RULE,
        spec: { ...SAMPLE_RULE.spec, patch: [{ op: 'add', path: '/a', vaule: '1' }] },
      },
      '/spec/patch/0',
      'vaule',
    ],
    ['specs', { ...SAMPLE_RULE, specs: {} }, '/', 'specs'],
  ])('refuses the misspelt field %s, naming it', (_name, document, path, field) => {
    expect(modRule(SAMPLE_RULE)).toEqual([]);
    expect(modRule(document)).toContainEqual(
      `${
        path === '/'
          ? '/'
          : `.${path
              .slice(1)
              .replace(/\/(\d+)/g, '[$1]')
              .replaceAll('/', '.')}`
      }: should NOT have additional properties (${field})`,
    );
  });

  it.each([
    ['an unknown type', { spec: { ...SAMPLE_RULE.spec, type: 'Mutate' } }],
    ['an unknown op', { spec: { ...SAMPLE_RULE.spec, patch: [{ op: 'move', path: '/a' }] } }],
    ['a match without select', { spec: { ...SAMPLE_RULE.spec, match: [{ matchValue: 'x' }] } }],
    ['a tier out of range', { spec: { ...SAMPLE_RULE.spec, executionTier: 40000 } }],
    ['another kind', { kind: 'ModRules' }],
  ])('refuses %s', (_name, change) => {
    expect(modRule({ ...SAMPLE_RULE, ...change }).length).toBeGreaterThan(0);
  });
});

describe('the test-file schema', () => {
  const files = yamlFiles(repoRoot, 'samples').filter((f) => /kubemod-test\.ya?ml$/.test(f));

  it('finds the test files of samples/ and the recipes', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files)('accepts %s, which the loader accepts too', (file) => {
    expect(loadTestFile(join(repoRoot, file))).toMatchObject({ ok: true });
    expect(testFile(load(readFileSync(join(repoRoot, file), 'utf8')))).toEqual([]);
  });

  it('accepts the example of docs/testing-rules.md', () => {
    const markdown = readFileSync(join(repoRoot, 'docs/testing-rules.md'), 'utf8');
    const [example] = yamlBlocks(markdown).filter((b) => b.text.includes('cases:'));
    expect(example).toBeDefined();
    expect(testFile(load(example?.text ?? ''))).toEqual([]);
  });

  it.each([
    [
      'a misspelt case field',
      { name: 'x', resource: 'a.yaml', expct: {}, expect: { noChange: true } },
      '.cases[0]',
      'expct',
    ],
    [
      'a misspelt expectation',
      { name: 'x', resource: 'a.yaml', expect: { patches: [] } },
      '.cases[0].expect',
      'patches',
    ],
  ])('refuses %s, naming it', (_name, testCase, path, field) => {
    const errors = testFile({ rules: ['rules/'], cases: [testCase] });
    expect(errors).toContainEqual(`${path}: should NOT have additional properties (${field})`);
  });

  it('checks inline ModRules with the ModRule schema', () => {
    const base = { cases: [{ name: 'x', resource: 'a.yaml', expect: { noChange: true } }] };
    expect(testFile({ ...base, rules: [SAMPLE_RULE] })).toEqual([]);
    const misspelt = { ...SAMPLE_RULE, spec: { ...SAMPLE_RULE.spec, rejectMesage: 'no' } };
    expect(testFile({ ...base, rules: [misspelt] })).toContainEqual(
      '.rules[0].spec: should NOT have additional properties (rejectMesage)',
    );
  });
});
