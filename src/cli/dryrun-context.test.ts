import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

// Issue 28 (defect 8 and the context of a request): `dryrun` reads stdin, several resources,
// the namespace and node manifests (--refs) and the old object (--old).

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'dryrun-context-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function run(
  argv: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['dryrun', ...argv], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
    ...(stdin === undefined ? {} : { stdin: () => stdin }),
  });
  return { code, stdout, stderr };
}

const rules = file(
  'rules.yaml',
  `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: cost-center }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Pod
    - select: '$.syntheticRefs.namespace.metadata.labels["cost-center"]'
  patch:
    - op: add
      path: /metadata/labels
      value: '{"cost-center": "{{ index .Target.syntheticRefs.namespace.metadata.labels "cost-center" }}"}'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: keep-protected }
spec:
  type: Reject
  admissionOperations: [DELETE]
  match:
    - select: '$.metadata.annotations.protected'
      matchValue: 'yes'
`,
);
const podA = 'apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop}\n';
const podB = 'apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: shop}\n';
const pod = file('pod.yaml', podA);
const pods = file('pods.yaml', `${podA}---\n${podB}`);
const refs = file(
  'refs.yaml',
  'namespace:\n  kind: Namespace\n  metadata: {name: shop, labels: {cost-center: cc-7}}\n',
);

describe('kubemod-ts dryrun inputs', () => {
  it('refuses --resource given twice, naming the flag', async () => {
    const { code, stderr } = await run(['--modrule', rules, '--resource', pod, '--resource', pods]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--resource: given 2 times; give it once/);
  });

  it('reads the resource from stdin with --resource -', async () => {
    const { code, stdout } = await run(
      ['--modrule', rules, '--resource', '-', '--refs', refs],
      podA,
    );
    expect(code).toBe(0);
    expect(load(stdout)).toMatchObject({ metadata: { labels: { 'cost-center': 'cc-7' } } });
  });

  it('injects the namespace manifest of --refs; without it the rule does not match', async () => {
    const without = await run(['--modrule', rules, '--resource', pod, '-o', 'json']);
    expect((JSON.parse(without.stdout) as { patch: unknown[] }).patch).toEqual([]);
    const withRefs = await run([
      '--modrule',
      rules,
      '--resource',
      pod,
      '--refs',
      refs,
      '-o',
      'json',
    ]);
    expect((JSON.parse(withRefs.stdout) as { patch: unknown[] }).patch).toEqual([
      { op: 'add', path: '/metadata/labels', value: { 'cost-center': 'cc-7' } },
    ]);
  });

  it('refuses a misspelt --refs key with a suggestion', async () => {
    const bad = file('bad-refs.yaml', 'namespaces: {kind: Namespace}\n');
    const { code, stderr } = await run(['--modrule', rules, '--resource', pod, '--refs', bad]);
    expect(code).toBe(1);
    expect(stderr).toContain('namespaces: unknown field (did you mean namespace?)');
  });

  it('gives a result per resource of a multi-document file', async () => {
    const yaml = await run(['--modrule', rules, '--resource', pods, '--refs', refs]);
    expect(yaml.code).toBe(0);
    const objects = loadAll(yaml.stdout) as { metadata: { name: string; labels: unknown } }[];
    expect(objects.map((o) => [o.metadata.name, o.metadata.labels])).toEqual([
      ['a', { 'cost-center': 'cc-7' }],
      ['b', { 'cost-center': 'cc-7' }],
    ]);
    const json = await run(['--modrule', rules, '--resource', pods, '-o', 'json']);
    const out = JSON.parse(json.stdout) as { results: { kind: string; name: string }[] };
    expect(out.results.map((r) => `${r.kind}/${r.name}`)).toEqual(['Pod/a', 'Pod/b']);
  });

  it('says that nothing changed in -o diff', async () => {
    const { code, stdout } = await run(['--modrule', rules, '--resource', pod, '-o', 'diff']);
    expect(code).toBe(0);
    expect(stdout).toBe('No changes: no ModRule changed Pod/a.\n');
    const multi = await run(['--modrule', rules, '--resource', pods, '--refs', refs, '-o', 'diff']);
    expect(multi.stdout).toMatch(/^Index: Pod\/a\n[^]*Index: Pod\/b\n/);
  });

  it('evaluates the object a DELETE removes, given with --old', async () => {
    const old = file(
      'old.yaml',
      `${podA.trimEnd().slice(0, -1)}, annotations: {protected: 'yes'}}\n`,
    );
    const { code, stderr } = await run(['--modrule', rules, '--old', old, '--operation', 'DELETE']);
    expect(code).toBe(0);
    expect(stderr).toContain('rejected by the following ModRule(s): shop/keep-protected');
  });

  it.each([
    [['--old', 'pod.yaml'], /--old: a CREATE request has no old object/, 2],
    [['--operation', 'UPDATE', '--old', 'pods.yaml'], /--old holds 2 objects and --resource 1/, 1],
    [
      ['--resource', '-', '--old', '-', '--operation', 'UPDATE'],
      /only one of --resource, --old/,
      2,
    ],
  ])('refuses %j', async (flags, message, status) => {
    const argv = [
      '--modrule',
      rules,
      ...flags.map((f) => (f.endsWith('.yaml') ? join(dir, f) : f)),
    ];
    if (!argv.includes('--resource')) argv.push('--resource', pod);
    const { code, stderr } = await run(argv, '');
    expect(stderr).toMatch(message);
    expect(code).toBe(status);
  });
});

describe('kubemod-ts dryrun --resource - as a process', () => {
  it('reads a piped manifest', { timeout: 60_000 }, () => {
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src', 'cli', 'main.ts'),
        'dryrun',
        '--modrule',
        rules,
        '--resource',
        '-',
        '--refs',
        refs,
        '-o',
        'json',
      ],
      { encoding: 'utf8', input: readFileSync(pod, 'utf8'), cwd: root },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({
      patched: { metadata: { labels: { 'cost-center': 'cc-7' } } },
    });
  });
});
