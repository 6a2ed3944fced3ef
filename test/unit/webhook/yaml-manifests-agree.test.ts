import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { runTest } from '../../../src/cli/test-command.js';
import type { JsonObject } from '../../../src/engine/json.js';
import { dryRunYaml } from '../../../src/webhook/dryrun/dryrun-diff.js';
import { send, startHarness, testTls, type Harness } from './harness.js';

// Issue 27 (one evaluation everywhere): a manifest written in YAML means the same to
// `kubemod-ts dryrun`, `kubemod-ts test` and `PUT /v1/dryrun` (the playground's path), and what
// it means to kubectl, which reads YAML 1.1 before the API server sees JSON: `yes` is true, `012`
// is octal 10, a key `n` is "false". Before the fix the CLI read these as "yes", 12 and "n".

const dir = mkdtempSync(join(tmpdir(), 'yaml-agree-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const RULES = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: flags, namespace: team}
spec:
  type: Patch
  match:
    - select: '$.data.enabled'
      matchValue: 'true'
    - select: '$.syntheticRefs.namespace.metadata.labels.audited'
      matchValue: 'true'
  patch:
    - op: add
      path: /data/seen
      value: '"mode {{ .Target.data.mode }}, n {{ index .Target.data "false" }}, was {{ .Target.data.was }}"'
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: no-off, namespace: team}
spec:
  type: Reject
  admissionOperations: [UPDATE]
  match:
    - select: '$.data.switch == false'
  rejectMessage: 'switch is {{ .Target.data.switch }}'
`;

const RESOURCE = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data:
  enabled: yes
  mode: 012
  n: 1
  switch: off
  created: 2024-05-01T10:00:00Z
`;
const OLD = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data: {enabled: on, was: 0x1F}
`;
const REFS = `namespace:
  apiVersion: v1
  kind: Namespace
  metadata: {name: team, labels: {audited: Yes}}
`;
const NAMESPACE_MANIFEST = `apiVersion: v1
kind: Namespace
metadata: {name: team, labels: {audited: Yes}}
`;

interface Answer {
  readonly patch: unknown[];
  readonly patched?: JsonObject;
  readonly patchedYaml?: string;
  readonly rejections: string[];
  readonly warnings: string[];
  readonly failures: unknown[];
  readonly diff: string;
}

let harness: Harness | undefined;
afterAll(async () => {
  await harness?.close();
});

async function cli(argv: readonly string[]): Promise<Answer> {
  let stdout = '';
  let stderr = '';
  const code = await main(['dryrun', ...argv, '--output', 'json'], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
  });
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Answer;
}

async function api(body: JsonObject): Promise<Answer> {
  harness ??= await startHarness();
  const answer = await send(
    harness.server.port,
    testTls().ca,
    'PUT',
    '/v1/dryrun',
    JSON.stringify({ modRules: RULES, ...body }),
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.json<Answer>();
}

/** The members both answers have, in one order, as text: equal text is the same answer. */
function shared(answer: Answer): string {
  const { patch, rejections, warnings, failures, diff } = answer;
  return JSON.stringify({ patch, rejections, warnings, failures, diff });
}

/** The CLI's patched object as the API writes it for a YAML resource (patchedYaml). */
function sameObject(fromCli: Answer, fromApi: Answer): void {
  expect(fromCli.patched).toBeDefined();
  expect(dryRunYaml(fromCli.patched ?? {})).toBe(fromApi.patchedYaml);
}

const rules = file('rules.yaml', RULES);
const resource = file('resource.yaml', RESOURCE);
const old = file('old.yaml', OLD);
const refs = file('refs.yaml', REFS);
file('namespace.yaml', NAMESPACE_MANIFEST);

describe('YAML manifests read as kubectl reads them, by every path', () => {
  it('CREATE with refs: dryrun and /v1/dryrun give the same answer, and it is the YAML 1.1 one', async () => {
    const fromCli = await cli(['--modrule', rules, '--resource', resource, '--refs', refs]);
    const fromApi = await api({
      resourceManifest: RESOURCE,
      syntheticRefs: { namespace: NAMESPACE_MANIFEST },
    });
    expect(shared(fromCli)).toBe(shared(fromApi));
    sameObject(fromCli, fromApi);
    expect(fromApi.patch).toEqual([
      { op: 'add', path: '/data/seen', value: 'mode 10, n 1, was <no value>' },
    ]);
    expect(fromCli.patched?.data).toEqual({
      created: '2024-05-01T10:00:00Z',
      enabled: true,
      false: 1,
      mode: 10,
      seen: 'mode 10, n 1, was <no value>',
      switch: false,
    });
  });

  it('UPDATE with an old object: the same answer, and the Reject rule sees switch: off as false', async () => {
    const argv = ['--modrule', rules, '--resource', resource, '--old', old, '--refs', refs];
    const fromCli = await cli([...argv, '--operation', 'UPDATE']);
    const fromApi = await api({
      resourceManifest: RESOURCE,
      oldResourceManifest: OLD,
      operation: 'UPDATE',
      syntheticRefs: { namespace: NAMESPACE_MANIFEST },
    });
    expect(shared(fromCli)).toBe(shared(fromApi));
    sameObject(fromCli, fromApi);
    expect(fromApi.rejections).toEqual(['team/no-off: "switch is false"']);
  });

  const indent = (text: string, by: string): string =>
    text
      .trimEnd()
      .split('\n')
      .map((line) => by + line)
      .join('\n');

  it.each([
    ['manifest files', '    resource: resource.yaml\n    syntheticRefs: refs.yaml'],
    [
      'inline manifests',
      `    resource:\n${indent(RESOURCE, '      ')}\n    syntheticRefs:\n      namespace:\n${indent(NAMESPACE_MANIFEST, '        ')}`,
    ],
  ])('kubemod-ts test reads %s the same way', async (label, manifests) => {
    const fromApi = await api({
      resourceManifest: RESOURCE,
      syntheticRefs: { namespace: NAMESPACE_MANIFEST },
    });
    const fromCli = await cli(['--modrule', rules, '--resource', resource, '--refs', refs]);
    // The expectations are the answer (JSON is YAML): the case passes only if `test` gives it.
    const expectations = JSON.stringify({
      patch: fromApi.patch,
      patched: fromCli.patched,
      rejections: fromApi.rejections,
    });
    const testFile = file(
      `kubemod-test-${label.replace(' ', '-')}.yaml`,
      `rules: [rules.yaml]\ncases:\n  - name: yaml 1.1\n${manifests}\n    expect: ${expectations}\n`,
    );
    let output = '';
    const code = runTest([testFile], {
      stdout: (t) => (output += t),
      stderr: (t) => (output += t),
      env: {},
    });
    expect(code, output).toBe(0);
    expect(output).toMatch(/1 passed/);
  });
});
