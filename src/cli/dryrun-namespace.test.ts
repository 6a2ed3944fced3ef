import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain, type MainRun } from './run-main.test-support.js';

// Issue 39: `dryrun` decides the namespace of a manifest as kubectl does (request-namespace.ts)
// and its explanation says what it assumed.

const dir = mkdtempSync(join(tmpdir(), 'dryrun-namespace-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const rules = file(
  'rules.yaml',
  `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: mark, namespace: default}
spec:
  type: Patch
  match: [{select: '$.kind'}]
  patch: [{op: add, path: /metadata/labels/ns, value: '"{{ .Namespace }}/{{ .Target.metadata.namespace }}"'}]
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: cluster-mark, namespace: kubemod-system}
spec:
  type: Patch
  match: [{select: '$.kind'}]
  patch: [{op: add, path: /metadata/labels/cluster, value: '"yes"'}]
`,
);
const pod = file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {}}\n');
const tenant = file(
  'tenant.yaml',
  'apiVersion: example.com/v1\nkind: Tenant\nmetadata: {name: t1, labels: {}}\n',
);
const crd = file(
  'crd.yaml',
  `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: tenants.example.com}
spec: {group: example.com, scope: Cluster, names: {kind: Tenant, plural: tenants}}
`,
);

const run = (argv: string[]): Promise<MainRun> =>
  runMain(argv, { stdoutIsTty: false, clock: () => 0 });

interface JsonAnswer {
  patch: { op: string; path: string; value?: unknown }[];
  patched: { metadata: { namespace?: string } };
}

describe('kubemod-ts dryrun: the namespace of a manifest without one', () => {
  it.each([
    [
      'a Pod lands in default, filled in as the API server does',
      pod,
      [],
      'default/default',
      'default',
    ],
    ['… or in the namespace given', pod, ['--namespace', 'shop'], undefined, 'shop'],
    ['an unknown custom kind is assumed namespaced', tenant, [], 'default/default', 'default'],
    [
      'its CRD in --cluster makes it cluster-scoped',
      tenant,
      ['--cluster', crd],
      undefined,
      undefined,
    ],
    [
      'an empty --namespace makes it cluster-scoped',
      tenant,
      ['--namespace', ''],
      undefined,
      undefined,
    ],
  ])(
    '%s',
    async (_what, resource, extra, nsLabel, namespace) => {
      const { code, stdout, stderr } = await run([
        'dryrun',
        '--modrule',
        rules,
        '--resource',
        resource,
        '--output',
        'json',
        ...extra,
      ]);
      expect(code, stderr).toBe(0);
      const answer = JSON.parse(stdout) as JsonAnswer;
      expect(answer.patched.metadata.namespace).toBe(namespace);
      const labels = Object.fromEntries(answer.patch.map((op) => [op.path, op.value]));
      // The default rule applies only to objects of default; the cluster-wide one only to
      // cluster-scoped objects.
      expect(labels['/metadata/labels/ns']).toBe(nsLabel);
      expect(labels['/metadata/labels/cluster']).toBe(namespace === undefined ? 'yes' : undefined);
      // The first run loads the CLI's modules: far slower than the others on a busy machine.
    },
    60_000,
  );

  it('explains what it assumed as the first line under the request', async () => {
    const { code, stdout } = await run([
      'dryrun',
      '--modrule',
      rules,
      '--resource',
      pod,
      '--explain',
    ]);
    expect(code).toBe(0);
    expect(stdout.split('\n')[1]).toBe(
      '├─ namespace: no metadata.namespace: Pod (v1) is namespaced, so it is evaluated in namespace default, where kubectl would create it',
    );
    const unknown = await run(['dryrun', '--modrule', rules, '--resource', tenant, '--explain']);
    expect(unknown.stdout).toContain('Tenant (example.com/v1) is assumed namespaced');
  });

  it('says nothing was assumed when the manifest names its namespace', async () => {
    const named = file(
      'named.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\n',
    );
    const { stdout } = await run(['dryrun', '--modrule', rules, '--resource', named, '--explain']);
    expect(stdout).not.toContain('─ namespace: ');
  });
});
