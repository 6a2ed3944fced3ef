import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestFile } from './load-test-file.js';
import { runTestFile, type FileResult } from './run-test-file.js';

// Issue 28: test cases give an old object, a failed `applied` says which match item failed, and
// a misspelt key gets a suggestion.

const RULES = `rules:
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: web-label }
    spec:
      type: Patch
      match:
        - select: '$.kind'
          matchValue: ConfigMap
        - select: '$.metadata.labels.app'
          matchValue: web
      patch: [{ op: add, path: /metadata/labels/tier, value: front }]
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: keep-locked }
    spec:
      type: Reject
      admissionOperations: [DELETE]
      match: [{ select: '$.metadata.labels.locked', matchValue: 'true' }]
`;

const cm = (labels: string, name = 'cm'): string =>
  `{ apiVersion: v1, kind: ConfigMap, metadata: { name: ${name}, namespace: default, labels: ${labels} } }`;

function write(cases: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-case-'));
  const file = join(dir, 'kubemod-test.yaml');
  writeFileSync(file, `${RULES}cases:\n${cases}`);
  return file;
}

function run(cases: string): FileResult {
  const load = loadTestFile(write(cases));
  if (!load.ok) throw new Error(load.errors.join('\n'));
  return runTestFile(load.test);
}

function errorsOf(cases: string): string[] {
  const load = loadTestFile(write(cases));
  if (load.ok) throw new Error('the file was expected to be invalid');
  return load.errors.map((line) => line.slice(line.indexOf('case ')));
}

describe('test cases with an old object', () => {
  it('evaluates the object a DELETE removes, given as oldResource', () => {
    const result = run(`  - name: locked
    operation: DELETE
    oldResource: ${cm('{ locked: "true" }')}
    expect:
      rejections: [default/keep-locked]
`);
    expect(result.cases[0]?.status).toBe('pass');
  });

  it('takes the old object of an UPDATE next to the new one', () => {
    const result = run(`  - name: update
    operation: UPDATE
    resource: ${cm('{ app: web }')}
    oldResource: ${cm('{ app: api }')}
    expect:
      applied: [default/web-label]
`);
    expect(result.cases[0]?.status).toBe('pass');
  });

  it.each([
    [
      `    oldResource: ${cm('{}')}\n    resource: ${cm('{}')}`,
      'case "c": oldResource: a CREATE request has no old object; set operation to UPDATE or DELETE',
    ],
    [
      `    operation: DELETE\n    oldResource: ${cm('{}')}\n    resource: ${cm('{}')}`,
      'case "c": resource: a DELETE request carries only the object being deleted; give it as oldResource, not both',
    ],
    [
      `    operation: UPDATE\n    oldResource: ${cm('{}', 'other')}\n    resource: ${cm('{}')}`,
      `case "c": oldResource.metadata.name: is string "other" but the resource's is string "cm"; an UPDATE changes one object`,
    ],
    [`    operation: UPDATE\n    oldResource: ${cm('{}')}`, 'case "c": resource: is required'],
  ])('refuses %#', (fields, message) => {
    expect(errorsOf(`  - name: c\n${fields}\n    expect: { noChange: true }\n`)).toEqual([message]);
  });
});

describe('a failed applied expectation', () => {
  it('says which match item of the expected rule did not match', () => {
    const result = run(`  - name: api
    resource: ${cm('{ app: api }')}
    expect:
      applied: [default/web-label]
`);
    const [problem] = result.cases[0]?.problems ?? [];
    expect(problem?.field).toBe('expect.applied');
    expect(problem?.message).toBe(
      'the rules that applied are not the ones expected (- expected, + actual); default/web-label did not match: spec.match[1] $.metadata.labels.app = "web": got api → not matched (no value accepted)',
    );
  });

  it('names a rule the file does not have, and a rule that applied unexpected', () => {
    const result = run(`  - name: web
    resource: ${cm('{ app: web }')}
    expect:
      applied: [default/web-lable]
`);
    expect(result.cases[0]?.problems[0]?.message).toMatch(
      /default\/web-lable did not apply: no ModRule of this test file has that name .*; default\/web-label applied, and the case does not expect it$/,
    );
  });
});

describe('misspelt keys', () => {
  it.each([
    [
      'expect: { nochange: true }',
      'case "c": expect.nochange: unknown field (did you mean noChange?)',
    ],
    [
      'expect: { rejection: [] }',
      'case "c": expect.rejection: unknown field (did you mean rejections?)',
    ],
    [
      'oldresource: {}\n    expect: { noChange: true }',
      'case "c": oldresource: unknown field (did you mean oldResource?)',
    ],
  ])('%s', (fields, message) => {
    const errors = errorsOf(`  - name: c\n    resource: ${cm('{}')}\n    ${fields}\n`);
    expect(errors).toContain(message);
  });
});
