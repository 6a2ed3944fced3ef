import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './run-main.test-support.js';

// Issue 39: `kubemod-ts dryrun` says on stderr what the API server would refuse in the patched
// object (the JSON on stdout keeps its contract), and names an unquoted template at its line.

const rule = (value: string): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: owner
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/owner
      value: ${value}
`;

const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: shop
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function files(value: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-dryrun-problems-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'rule.yaml'), rule(value));
  writeFileSync(join(dir, 'cm.yaml'), CONFIG_MAP);
  return ['--modrule', join(dir, 'rule.yaml'), '--resource', join(dir, 'cm.yaml')];
}

describe('kubemod-ts dryrun: results the API server would refuse (issue 39)', () => {
  it('warns about a <no value> label on stderr and keeps the JSON as it was', async () => {
    const { code, stdout, stderr } = await runMain([
      'dryrun',
      ...files("'{{ .Target.metadata.labels.team }}'"),
      '-o',
      'json',
    ]);
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(stdout) as object)).not.toContain('objectProblems');
    expect(stderr).toContain(
      'kubemod-ts dryrun: warning: the API server would refuse the patched object: metadata.labels.owner: "<no value>" is not a valid label value',
    );
  });

  it('says nothing for a valid result', async () => {
    const { code, stderr } = await runMain(['dryrun', ...files("'{{ .Target.metadata.name }}'")]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('names an unquoted template at its line with the quoted value', async () => {
    const { code, stderr } = await runMain(['dryrun', ...files('{{ .Target.metadata.name }}')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /rule\.yaml: not valid YAML: line 13: the template \{\{ \.Target\.metadata\.name \}\} is not quoted, .* write it quoted: value: '\{\{ \.Target\.metadata\.name \}\}' \(13:14\)/,
    );
  });
});
