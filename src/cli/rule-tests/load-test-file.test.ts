import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../read-inputs.js';
import { loadTestFile } from './load-test-file.js';
import { TEST_FILE_LIMITS, type RuleTestFile } from './test-file.js';

const root = join(import.meta.dirname, '..', '..', '..');
const invalidDir = join(root, 'test', 'fixtures', 'rule-tests', 'invalid');

/**
 * Each fixture: a bad test file and errors.txt, the lines the loader must give. (Named
 * test-file.yaml so that `kubemod-ts test` at the repository's root does not pick them up.)
 */
const fixtures = readdirSync(invalidDir).sort();

function loaded(file: string): RuleTestFile {
  const result = loadTestFile(file);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.test;
}

function tempFile(text: string, name = 'kubemod-test.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-test-'));
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const RULE = `  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: r }
    spec: { type: Reject, match: [{ select: '$.kind', matchValue: Secret }] }
`;
const CASE = (name: string): string =>
  `  - name: ${JSON.stringify(name)}\n    resource: { apiVersion: v1, kind: Secret, metadata: { name: s } }\n    expect: { noChange: true }\n`;

describe('loadTestFile: invalid files name the file, the case and the field', () => {
  it('has a fixture for each kind of mistake', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
  });

  it.each(fixtures)('%s', (fixture) => {
    const dir = join(invalidDir, fixture);
    const expected = readFileSync(join(dir, 'errors.txt'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replaceAll('{dir}', dir));
    const result = loadTestFile(join(dir, 'test-file.yaml'));
    expect(result.ok ? [] : result.errors).toEqual(expected);
  });
});

describe('loadTestFile: files that are not one YAML mapping', () => {
  it('names the file and the YAML error', () => {
    const file = tempFile('rules: [modrules/\ncases: []\n');
    const result = loadTestFile(file);
    expect(result.ok ? [] : result.errors).toEqual([
      expect.stringMatching(
        new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid YAML: .+`),
      ),
    ]);
  });

  it('refuses several documents', () => {
    const file = tempFile(`rules:\n${RULE}cases:\n${CASE('a')}---\nrules: []\n`);
    expect(loadTestFile(file)).toEqual({
      ok: false,
      file,
      errors: [`${file}: must be one YAML mapping with rules and cases, found 2 documents`],
    });
  });
});

describe('loadTestFile: bounds', () => {
  it('refuses more cases than a file may hold, without reading them', () => {
    const cases = Array.from({ length: TEST_FILE_LIMITS.maxCases + 1 }, (_, i) =>
      CASE(`c${String(i)}`),
    );
    const file = tempFile(`rules:\n${RULE}cases:\n${cases.join('')}`);
    expect(loadTestFile(file)).toEqual({
      ok: false,
      file,
      errors: [`${file}: cases: holds 1001 cases; a test file takes at most 1000`],
    });
  });

  it('refuses more ModRules than a file may hold', () => {
    const rules = Array.from({ length: TEST_FILE_LIMITS.maxRules + 1 }, () => RULE).join('');
    const file = tempFile(`rules:\n${rules}cases:\n${CASE('a')}`);
    const result = loadTestFile(file);
    expect(result.ok ? [] : result.errors[0]).toBe(
      `${file}: rules: hold 1001 ModRules; a test file takes at most 1000`,
    );
  });

  it('refuses a file larger than the CLI reads, before parsing it', () => {
    const file = tempFile(`# ${'x'.repeat(MAX_INPUT_BYTES)}\n`);
    expect(loadTestFile(file)).toEqual({
      ok: false,
      file,
      errors: [`${file}: is larger than ${String(MAX_INPUT_BYTES)} bytes`],
    });
  });

  it('refuses YAML aliases that expand without end (billion laughs)', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      levels.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const file = tempFile(`${levels.join('\n')}\n`);
    const result = loadTestFile(file);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.errors.join('\n')).toMatch(
      /: YAML aliases expand to more than \d+ nodes/,
    );
  });

  it('reports at most 50 errors of one file and counts the rest', () => {
    const cases = Array.from({ length: 60 }, (_, i) => `  - name: c${String(i)}\n`).join('');
    const file = tempFile(`rules:\n${RULE}cases:\n${cases}`);
    const result = loadTestFile(file);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toHaveLength(51);
    expect(errors[0]).toBe(`${file}: case "c0": resource: is required`);
    expect(errors[50]).toBe(`${file}: … and 70 more errors`);
  });
});

describe('loadTestFile: a valid file', () => {
  it('applies the file-wide defaults, resolves files from the test file and keeps overrides', () => {
    const test = loaded(join(root, 'samples', 'cost-center.kubemod-test.yaml'));
    expect(test.cases.map((c) => [c.name, c.operation, c.namespace])).toEqual([
      ["a Pod gets its namespace's cost-center label, as a string", 'CREATE', 'shop'],
      ['a namespace without the label leaves Pods alone', 'CREATE', 'shop'],
      ['the injected namespace never leaks into the stored object', 'CREATE', 'shop'],
    ]);
    expect(test.cases[0]?.refs.namespace?.metadata).toEqual({
      name: 'shop',
      labels: { 'cost-center': '4711' },
    });
    expect(test.cases[1]?.refs.namespace?.metadata).toEqual({ name: 'shop' });
    expect(test.rules.forNamespace('shop').store.size).toBe(1);
  });

  it('reads resources and rules from paths relative to the test file', () => {
    const test = loaded(join(root, 'samples', 'kubemod-test.yaml'));
    const first = test.cases[0];
    expect(first?.resource.metadata).toMatchObject({ name: 'web', namespace: 'default' });
    expect(first?.namespace).toBe('default');
    expect(test.rules.forNamespace('default').store.size).toBe(4);
    const deleteCase = test.cases.find((c) => c.operation === 'DELETE');
    expect(deleteCase?.expect).toEqual({
      noChange: true,
      applied: [],
      patched: undefined,
      patch: undefined,
      rejections: undefined,
      failures: undefined,
    });
  });

  it('takes a Namespace object as a cluster-scoped request, and an empty namespace too', () => {
    const file = tempFile(
      `rules:\n${RULE}cases:\n  - name: ns\n    resource: { apiVersion: v1, kind: Namespace, metadata: { name: shop } }\n    expect: { noChange: true }\n  - name: empty\n    namespace: ''\n    resource: { apiVersion: v1, kind: Secret, metadata: { name: s, namespace: a } }\n    expect: { noChange: true }\n`,
    );
    expect(loaded(file).cases.map((c) => c.namespace)).toEqual([undefined, undefined]);
  });
});
