import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestFile } from './load-test-file.js';
import { runTestFile, type RunOptions } from './run-test-file.js';
import { fileText } from './report-text.js';

/** A Patch rule (label team=a on ConfigMaps), a Reject rule and a rule failing at run time. */
const RULES = `rules:
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: team-label }
    spec:
      type: Patch
      match: [{ select: '$.kind', matchValue: ConfigMap }]
      patch: [{ op: add, path: /metadata/labels/team, value: a }]
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: no-forbidden }
    spec:
      type: Reject
      rejectMessage: '{{ .Target.metadata.name }} holds forbidden data'
      match: [{ select: '$.data.forbidden' }]
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata: { name: copy-text }
    spec:
      type: Patch
      match: [{ select: '$.data.text' }]
      patch: [{ op: add, path: /metadata/annotations/text, value: '{{ .Target.data.text }}' }]
`;

const CONFIGMAP = '{ apiVersion: v1, kind: ConfigMap, metadata: { name: cm, namespace: default } }';

function run(cases: string, options: RunOptions = {}): ReturnType<typeof runTestFile> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-run-'));
  const file = join(dir, 'kubemod-test.yaml');
  writeFileSync(file, `${RULES}cases:\n${cases}`);
  const load = loadTestFile(file);
  if (!load.ok) throw new Error(load.errors.join('\n'));
  let now = 0;
  return runTestFile(load.test, { now: () => (now += 0.5), ...options });
}

describe('runTestFile', () => {
  it('passes a case whose expectations hold, and times it with the clock', () => {
    const result = run(`  - name: labels
    resource: ${CONFIGMAP}
    expect:
      patch: [{ op: add, path: /metadata/labels, value: { team: a } }]
      patched:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: cm, namespace: default, labels: { team: a } }
      applied: [default/team-label]
`);
    // line: the case's list item, right under `cases:` (RULES is 23 lines).
    expect(result.cases).toEqual([
      { name: 'labels', line: 24, status: 'pass', problems: [], durationMs: 0.5 },
    ]);
    expect(result.errors).toEqual([]);
  });

  it('fails a case whose patch differs, with a YAML diff of expected against actual', () => {
    const result = run(`  - name: wrong team
    resource: ${CONFIGMAP}
    expect:
      patch: [{ op: add, path: /metadata/labels, value: { team: b } }]
`);
    expect(result.cases[0]?.status).toBe('fail');
    expect(result.cases[0]?.problems).toEqual([
      {
        field: 'expect.patch',
        message: 'the patch is not the one expected (- expected, + actual)',
        diff: '@@ -1,4 +1,4 @@\n - op: add\n   path: /metadata/labels\n   value:\n-    team: b\n+    team: a\n',
      },
    ]);
    expect(fileText(result)).toBe(
      [
        result.file,
        '  FAIL   wrong team',
        `         at ${result.file}:24`,
        '         expect.patch: the patch is not the one expected (- expected, + actual)',
        '           @@ -1,4 +1,4 @@',
        '            - op: add',
        '              path: /metadata/labels',
        '              value:',
        '           -    team: b',
        '           +    team: a',
        '',
      ].join('\n'),
    );
  });

  it('fails a case rejected where it expects no rejection, and passes one expecting it', () => {
    const forbidden =
      '{ apiVersion: v1, kind: Secret, metadata: { name: s, namespace: default }, data: { forbidden: x } }';
    const result = run(`  - name: unexpected
    resource: ${forbidden}
    expect: { noChange: true }
  - name: expected
    resource: ${forbidden}
    expect:
      rejections: ['default/no-forbidden: "s holds forbidden data"']
`);
    expect(result.cases.map((c) => c.status)).toEqual(['fail', 'pass']);
    expect(result.cases[0]?.problems).toEqual([
      {
        field: 'expect.rejections',
        message:
          'the object was rejected, and the case expects no rejection (- expected, + actual)',
        diff: '@@ -1,1 +1,1 @@\n-[]\n+- \'default/no-forbidden: "s holds forbidden data"\'\n',
      },
    ]);
  });

  it('fails on a rule failing at run time unless the case expects it (by rule, field and code)', () => {
    const text = `{ apiVersion: v1, kind: Secret, metadata: { name: s, namespace: default }, data: { text: 'a: b: c' } }`;
    const result = run(`  - name: unexpected
    resource: ${text}
    expect: { noChange: true }
  - name: expected
    resource: ${text}
    expect:
      noChange: true
      failures: [{ rule: default/copy-text, field: 'spec.patch[0].value', code: KM4002 }]
  - name: wrong code
    resource: ${text}
    expect:
      noChange: true
      failures: [{ rule: default/copy-text, code: KM3002 }]
`);
    expect(result.cases.map((c) => c.status)).toEqual(['fail', 'pass', 'fail']);
    expect(result.cases[0]?.problems[0]?.field).toBe('expect.failures');
    expect(result.cases[0]?.problems[0]?.message).toBe(
      'rules failed and were skipped, and the case expects no failure (- expected, + actual)',
    );
    expect(result.cases[2]?.problems).toEqual([
      {
        field: 'expect.failures',
        message: 'the rule failures are not the ones expected (- expected, + actual)',
        diff: '@@ -1,2 +1,2 @@\n-- code: KM3002\n+- code: KM4002\n   rule: default/copy-text\n',
      },
    ]);
  });

  it('shows what changed when a case expects no change', () => {
    const result = run(`  - name: untouched
    resource: ${CONFIGMAP}
    expect: { noChange: true }
`);
    expect(result.cases[0]?.problems).toEqual([
      {
        field: 'expect.noChange',
        message: 'the object was changed by default/team-label (- received, + patched)',
        diff: '@@ -1,5 +1,7 @@\n apiVersion: v1\n kind: ConfigMap\n metadata:\n+  labels:\n+    team: a\n   name: cm\n   namespace: default\n',
      },
    ]);
  });

  it('fails a case whose applied rules differ', () => {
    const result = run(`  - name: applied
    resource: ${CONFIGMAP}
    expect: { applied: [] }
`);
    expect(result.cases[0]?.problems.map((p) => [p.field, p.diff])).toEqual([
      ['expect.applied', '@@ -1,1 +1,1 @@\n-[]\n+- default/team-label\n'],
    ]);
  });

  it('reports a case that cannot be evaluated (request work budget used up) as an error', () => {
    const result = run(
      `  - name: starved
    resource: ${CONFIGMAP}
    expect: { noChange: true }
`,
      { work: { requestUnits: 1 } },
    );
    expect(result.cases[0]?.status).toBe('error');
    expect(result.cases[0]?.problems[0]?.field).toBe('evaluation');
    expect(result.cases[0]?.problems[0]?.message).toMatch(
      /^the request cannot be evaluated \[KM5002\]: /,
    );
  });
});
