import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlApply,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  deleteWebhookConfigurations,
  startOperatorOn,
  type TestOperator,
} from './support/operator-env.js';
import { configMap, get } from './support/operator-fixtures.js';

// The ModRule annotations api.kubemod.io/enforcement (Warn, Audit) and
// api.kubemod.io/failure-policy (Fail), end to end: the real kube-apiserver calls the operator's
// webhooks and real kubectl prints what the API server passes on (docs/rolling-out.md,
// docs/failure-policy.md).

const local = inject('localControlPlane');
let op: TestOperator;
const ns = uniqueName('enf');
const cleanup: string[][] = [];

interface KubectlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** kubectl with both output streams and its exit code (kubectl prints warnings on stderr). */
function kubectlRun(args: readonly string[], input = ''): Promise<KubectlRun> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      [...args],
      { env: { ...process.env, KUBECONFIG: kubeconfig() }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

function annotatedRule(name: string, annotations: Record<string, string>, spec: object): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: ns, annotations },
    spec,
  };
}

/** Applies a ModRule and waits until the operator has loaded it with the given annotations. */
async function applyRule(
  name: string,
  annotations: Record<string, string>,
  spec: object,
): Promise<void> {
  await kubectlApply(annotatedRule(name, annotations, spec));
  cleanup.push(['delete', 'modrule', name, '-n', ns, '--ignore-not-found']);
  await waitFor(
    `rule ${ns}/${name} loaded`,
    () => (op.operator.store.get(ns, name) ? true : undefined),
    10_000,
    50,
  );
}

/** A Reject rule on ConfigMaps labelled `check: <label>` that have no `owner` label. */
function ownerRule(label: string): object {
  return {
    type: 'Reject',
    rejectMessage: 'ConfigMap {{ .Target.metadata.name }} has no owner label',
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.check', matchValue: label },
      { select: '$.metadata.labels.owner', negate: true },
    ],
  };
}

async function metrics(): Promise<string> {
  return (await fetch(`${op.operator.healthUrl ?? ''}/metrics`)).text();
}

describe.runIf(local)('ModRule enforcement modes and failure policy', () => {
  beforeAll(async () => {
    op = await startOperatorOn(kubectl, kubeconfig());
    await kubectl(['create', 'namespace', ns]);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    for (const args of cleanup.reverse()) await kubectl(args).catch(() => undefined);
    expect(await op.stop()).toBe(0);
    await deleteNamespacesNow([ns]).catch(() => undefined);
  });

  it('Warn: the object is admitted and kubectl prints the rendered message as a warning', async () => {
    await applyRule('warn-owner', { 'api.kubemod.io/enforcement': 'Warn' }, ownerRule('warn'));
    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(configMap('warned', ns, { check: 'warn' })),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `Warning: ${ns}/warn-owner: "ConfigMap warned has no owner label"`,
    );
    expect((await get(['configmap', 'warned', '-n', ns])).metadata.name).toBe('warned');
    // A conforming object: no warning.
    const clean = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(configMap('owned', ns, { check: 'warn', owner: 'me' })),
    );
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).not.toContain('Warning');
    expect(await metrics()).toContain(
      `kubemod_rule_results_total{rule="${ns}/warn-owner",result="warned"} 1`,
    );
  });

  it('kubectl get modrules shows the enforcement mode', async () => {
    const table = await kubectl(['get', 'modrules', '-n', ns]);
    const [header, ...rows] = table.trim().split('\n');
    expect(header).toMatch(/\bENFORCEMENT\b/);
    expect(rows.find((row) => row.startsWith('warn-owner '))).toMatch(/\bWarn\b/);
  });

  it('Audit: the object is admitted silently and the violation is counted', async () => {
    await applyRule('audit-owner', { 'api.kubemod.io/enforcement': 'Audit' }, ownerRule('audit'));
    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(configMap('audited', ns, { check: 'audit' })),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect((await get(['configmap', 'audited', '-n', ns])).metadata.name).toBe('audited');
    expect(await metrics()).toContain(
      `kubemod_rule_results_total{rule="${ns}/audit-owner",result="audited"} 1`,
    );
  });

  it('Enforce after Audit: changing only the annotation makes the same rule refuse', async () => {
    await kubectlApply(
      annotatedRule('audit-owner', { 'api.kubemod.io/enforcement': 'Enforce' }, ownerRule('audit')),
    );
    await waitFor('rule promoted to Enforce', () =>
      op.operator.store.get(ns, 'audit-owner')?.enforcement === 'Enforce' ? true : undefined,
    );
    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(configMap('refused', ns, { check: 'audit' })),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `operation rejected by the following ModRule(s): ${ns}/audit-owner: "ConfigMap refused has no owner label"`,
    );
  });

  it('failure policy Fail: a rule whose template fails refuses the request, naming the rule and the reason', async () => {
    await applyRule(
      'strict-label',
      { 'api.kubemod.io/failure-policy': 'Fail' },
      {
        type: 'Patch',
        match: [
          { select: '$.kind', matchValue: 'ConfigMap' },
          { select: '$.metadata.labels.check', matchValue: 'strict' },
        ],
        patch: [{ op: 'add', path: '/metadata/labels/copied', value: '{{ fail "no source" }}' }],
      },
    );
    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(configMap('strict', ns, { check: 'strict' })),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(
        `${ns}/strict-label: \\\\?"could not be evaluated \\(failure policy Fail\\): KM\\d{4} spec\\.patch\\[0\\]\\.value: .*no source`,
      ),
    );
    const gone = await kubectlRun(['get', 'configmap', 'strict', '-n', ns]);
    expect(gone.code).not.toBe(0);
    // A rule without the enforcement annotation: the column is empty (the default, Enforce).
    const row = (
      await kubectl(['get', 'modrule', 'strict-label', '-n', ns, '--no-headers'])
    ).trim();
    expect(row).toMatch(/^strict-label\s+Patch\s+0\s/);
    expect(row).not.toMatch(/\b(Enforce|Warn|Audit)\b/);
  });

  it('refuses an invalid annotation value at ModRule admission, naming the field', async () => {
    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(
        annotatedRule('bad', { 'api.kubemod.io/enforcement': 'warn' }, ownerRule('x')),
      ),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /metadata\.annotations\[api\.kubemod\.io\/enforcement\]: must be one of Enforce, Warn, Audit, got \\?"warn\\?"/,
    );
  });
});
