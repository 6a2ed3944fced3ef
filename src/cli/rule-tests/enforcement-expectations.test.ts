import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestFile } from './load-test-file.js';
import { runTestFile } from './run-test-file.js';

/** A Warn rule, an Audit rule and a Patch rule with failure policy Fail whose template fails. */
const RULES = `rules:
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata:
      name: warn-owner
      annotations: { api.kubemod.io/enforcement: Warn }
    spec:
      type: Reject
      rejectMessage: '{{ .Target.metadata.name }} has no owner'
      match: [{ select: '$.metadata.labels.owner', negate: true }, { select: '$.kind', matchValue: ConfigMap }]
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata:
      name: audit-team
      annotations: { api.kubemod.io/enforcement: Audit }
    spec:
      type: Reject
      match: [{ select: '$.metadata.labels.team', negate: true }, { select: '$.kind', matchValue: ConfigMap }]
  - apiVersion: api.kubemod.io/v1beta1
    kind: ModRule
    metadata:
      name: strict-copy
      annotations: { api.kubemod.io/failure-policy: Fail }
    spec:
      type: Patch
      match: [{ select: '$.data.text' }]
      patch: [{ op: add, path: /metadata/labels/text, value: '{{ fail "no copy" }}' }]
`;

const OWNED =
  '{ apiVersion: v1, kind: ConfigMap, metadata: { name: cm, namespace: default, labels: { owner: me, team: a } } }';
const BARE = '{ apiVersion: v1, kind: ConfigMap, metadata: { name: cm, namespace: default } }';

function run(cases: string): ReturnType<typeof runTestFile> {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-enforcement-'));
  const file = join(dir, 'kubemod-test.yaml');
  writeFileSync(file, `${RULES}cases:\n${cases}`);
  const load = loadTestFile(file);
  if (!load.ok) throw new Error(load.errors.join('\n'));
  return runTestFile(load.test, { now: () => 0 });
}

describe('kubemod-ts test: warnings, audited and fail-closed refusals', () => {
  it('passes cases that state the warnings and audited matches', () => {
    const result = run(`  - name: warned and audited
    resource: ${BARE}
    expect:
      noChange: true
      warnings: ['default/warn-owner: "cm has no owner"']
      audited: [default/audit-team]
  - name: conforming
    resource: ${OWNED}
    expect: { noChange: true }
`);
    expect(result.errors).toEqual([]);
    expect(result.cases.map((c) => [c.name, c.status, c.problems])).toEqual([
      ['warned and audited', 'pass', []],
      ['conforming', 'pass', []],
    ]);
  });

  it('fails a case that does not expect the warning it gets, or expects another one', () => {
    const result = run(`  - name: silent
    resource: ${BARE}
    expect: { noChange: true, audited: [default/audit-team] }
  - name: other text
    resource: ${BARE}
    expect:
      warnings: ['default/warn-owner: "something else"']
      audited: [default/audit-team]
`);
    expect(result.cases.map((c) => c.status)).toEqual(['fail', 'fail']);
    expect(result.cases[0]?.problems).toEqual([
      expect.objectContaining({
        field: 'expect.warnings',
        message: expect.stringContaining(
          'Reject rules warned (enforcement Warn) matched',
        ) as unknown,
      }),
    ]);
    expect(result.cases[1]?.problems.map((p) => p.field)).toEqual(['expect.warnings']);
  });

  it('reports a Fail-policy rule that cannot be evaluated as a refusal, as the webhook does', () => {
    const result = run(`  - name: refused
    resource: { apiVersion: v1, kind: ConfigMap, metadata: { name: cm, namespace: default, labels: { owner: me, team: a } }, data: { text: hi } }
    expect:
      noChange: true
      rejections: ['default/strict-copy: "could not be evaluated (failure policy Fail): KM3002 spec.patch[0].value: error calling fail at {{ fail \\"no copy\\" }}: fail: no copy"']
      failures: [{ rule: default/strict-copy, failurePolicy: Fail }]
`);
    expect(result.errors).toEqual([]);
    expect(result.cases[0]?.problems).toEqual([]);
    expect(result.cases[0]?.status).toBe('pass');
  });

  it('refuses an expected failurePolicy that is not one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemod-enforcement-'));
    const file = join(dir, 'kubemod-test.yaml');
    writeFileSync(
      file,
      `${RULES}cases:\n  - name: x\n    resource: ${BARE}\n    expect: { failures: [{ rule: a/b, failurePolicy: Closed }] }\n`,
    );
    const load = loadTestFile(file);
    expect(load.ok).toBe(false);
    if (load.ok) return;
    expect(load.errors.join('\n')).toMatch(
      /expect\.failures\[0\]\.failurePolicy: unknown failure policy "Closed"; must be one of Ignore, Fail/,
    );
  });
});
