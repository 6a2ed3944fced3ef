import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';

// Replaces a KubeMod install with kubemod-ts the way docs/install.md tells users to: KubeMod's
// objects (test/fixtures/kubemod-install, created as KubeMod's install creates them: client-side
// apply, then its certificate job's Secret and `kubectl patch` of the caBundles), ModRules in a
// namespace and in kubemod-system, then exactly scripts/switch-from-kubemod.sh, once client-side
// and once server-side. The ModRules must come out untouched and KubeMod's objects gone.

const exec = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(repoRoot, 'test/fixtures/kubemod-install');
const bundlePath = join(repoRoot, 'bundle.yaml');
const SYSTEM = 'kubemod-system';
const MUTATING = 'kubemod-mutating-webhook-configuration';
const VALIDATING = 'kubemod-validating-webhook-configuration';

interface ModRule {
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string };
  spec: Record<string, unknown>;
}
interface Meta {
  name: string;
  deletionTimestamp?: string;
  managedFields?: { manager: string; operation: string }[];
}

function rules(namespace: string): object[] {
  const rule = (ns: string, name: string, spec: object): object => ({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: ns },
    spec,
  });
  return [
    rule(namespace, 'label-web', {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'Deployment' },
        { select: '$.metadata.labels.app', matchValues: ['web', 'api'] },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/team', value: '{{ .Namespace }}' }],
    }),
    // KubeMod's CRD keeps explicit nulls (nullable: true); a schema without nullable would drop them.
    rule(namespace, 'drop-debug-env', {
      type: 'Patch',
      executionTier: 5,
      admissionOperations: ['CREATE'],
      match: [
        { select: '$.kind', matchValue: null, matchRegex: '^(Pod|Deployment)$', matchFor: 'All' },
      ],
      patch: [
        {
          op: 'remove',
          select: '$.spec.template.spec.containers[*].env[?(@.name == "DEBUG")]',
          path: '/spec/template/spec/containers/#0/env/#1',
          value: null,
        },
      ],
    }),
    rule(namespace, 'keep-config', {
      type: 'Reject',
      admissionOperations: ['DELETE'],
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.name', matchRegex: '^critical-', negate: false },
      ],
      rejectMessage: '{{ .Target.metadata.name }} is protected',
    }),
    rule(SYSTEM, 'cluster-wide-owner', {
      type: 'Patch',
      targetNamespaceRegex: `^${namespace}$`,
      match: [{ select: '$.kind', matchValue: 'Service' }],
      patch: [{ op: 'add', path: '/metadata/annotations/owner', value: 'platform' }],
    }),
  ];
}

async function modRules(namespaces: readonly string[]): Promise<ModRule[]> {
  const lists = await Promise.all(
    namespaces.map(
      async (ns) =>
        ((await kubectlJson(['get', 'modrules', '-n', ns])) as { items: ModRule[] }).items,
    ),
  );
  return lists.flat().sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

async function exists(args: readonly string[]): Promise<boolean> {
  const out = await kubectl(['get', ...args, '--ignore-not-found', '-o', 'json']);
  if (out.trim() === '') return false;
  return (JSON.parse(out) as { metadata: Meta }).metadata.deletionTimestamp === undefined;
}

async function gone(args: readonly string[]): Promise<boolean> {
  return (await kubectl(['get', ...args, '--ignore-not-found', '-o', 'name'])).trim() === '';
}

/** Waits for a namespace to be gone, force-deleting Pods no kubelet will confirm (see bundle.e2e). */
async function awaitNamespaceGone(name: string): Promise<void> {
  if (await gone(['namespace', name])) return;
  await deleteNamespacesNow([name]);
  await waitFor(
    `namespace ${name} to be deleted`,
    async () => ((await gone(['namespace', name])) ? true : undefined),
    90_000,
  );
}

/** Installs KubeMod's objects as its install does, and the ModRules, before its webhooks exist. */
async function installKubeMod(namespace: string): Promise<void> {
  await kubectl(['apply', '-f', join(fixtures, 'namespace-and-crd.yaml')]);
  await kubectl([
    'wait',
    '--for=condition=Established',
    'crd/modrules.api.kubemod.io',
    '--timeout=60s',
  ]);
  await kubectl(['create', 'namespace', namespace]);
  // ModRules first: KubeMod's ModRule webhooks fail closed and no KubeMod operator runs here.
  // `kubectl create` keeps explicit nulls as GitOps tools and server-side apply do (a client-side
  // `kubectl apply` would strip them before they reach the API server).
  await kubectl(['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rules(namespace) }),
  });
  await kubectl(['apply', '-f', join(fixtures, 'operator.yaml')]);
  // What KubeMod's kubemod-crt job does once installed: a TLS Secret and the CA in the webhooks.
  const pem = Buffer.from(
    '-----BEGIN CERTIFICATE-----\nkubemod\n-----END CERTIFICATE-----\n',
  ).toString('base64');
  await kubectl(['apply', '-n', SYSTEM, '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: 'webhook-server-cert' },
      data: { 'tls.crt': pem, 'tls.key': pem },
    }),
  });
  const caPatch = (count: number): string =>
    JSON.stringify(
      Array.from({ length: count }, (_, i) => ({
        op: 'replace',
        path: `/webhooks/${String(i)}/clientConfig/caBundle`,
        value: pem,
      })),
    );
  await kubectl([
    'patch',
    'mutatingwebhookconfiguration',
    MUTATING,
    '--type=json',
    '--patch',
    caPatch(3),
  ]);
  await kubectl([
    'patch',
    'validatingwebhookconfiguration',
    VALIDATING,
    '--type=json',
    '--patch',
    caPatch(1),
  ]);
}

/** `kubectl diff`: its exit code (0 same, 1 different) and output. */
function kubectlDiff(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['diff', ...args],
      { env: { ...process.env, KUBECONFIG: kubeconfig() }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : (error.code as number | null), out: stdout + stderr });
      },
    );
  });
}

async function uninstall(namespace: string): Promise<void> {
  await kubectl(['delete', '-f', bundlePath, '--wait=false', '--ignore-not-found']);
  await kubectl([
    'delete',
    '-f',
    join(fixtures, 'operator.yaml'),
    '--wait=false',
    '--ignore-not-found',
  ]);
  await kubectl([
    'delete',
    '-f',
    join(fixtures, 'namespace-and-crd.yaml'),
    '--wait=false',
    '--ignore-not-found',
  ]);
  await waitFor(
    'the ModRule CRD to be deleted',
    async () => ((await gone(['crd', 'modrules.api.kubemod.io'])) ? true : undefined),
    60_000,
  );
  await deleteNamespacesNow([namespace]);
  await awaitNamespaceGone(SYSTEM);
}

describe.each([
  { mode: 'client-side', flags: [] as string[] },
  { mode: 'server-side', flags: ['--server-side'] },
])('switching from KubeMod with scripts/switch-from-kubemod.sh ($mode)', ({ mode, flags }) => {
  const namespace = uniqueName(`switch-${mode}`);
  let before: ModRule[] = [];
  let scriptOutput = '';

  beforeAll(async () => {
    await uninstall(namespace); // leftovers of an interrupted earlier run
    await installKubeMod(namespace);
    before = await modRules([namespace, SYSTEM]);
  });

  afterAll(async () => {
    await uninstall(namespace);
  });

  it('starts from a KubeMod install whose ModRules hold explicit nulls', () => {
    expect(before.map((r) => r.metadata.name)).toEqual([
      'cluster-wide-owner',
      'drop-debug-env',
      'keep-config',
      'label-web',
    ]);
    const drop = before.find((r) => r.metadata.name === 'drop-debug-env');
    expect(drop?.spec.match).toEqual([
      { select: '$.kind', matchValue: null, matchRegex: '^(Pod|Deployment)$', matchFor: 'All' },
    ]);
    // KubeMod's CRD default, stored by the API server.
    expect(before.find((r) => r.metadata.name === 'label-web')?.spec.admissionOperations).toEqual([
      'CREATE',
      'UPDATE',
    ]);
  });

  if (mode === 'server-side') {
    it('would conflict on the webhook configurations if the bundle were applied straight over it', async () => {
      await expect(
        kubectl(['apply', '--server-side', '--dry-run=server', '-f', bundlePath]),
      ).rejects.toThrow(/conflict.*\.webhooks\[name="(mmodrule|vmodrule)\.kubemod\.io"\]/s);
    });
  }

  it('runs the documented sequence to the end', async () => {
    const result = await exec(
      'bash',
      [join(repoRoot, 'scripts/switch-from-kubemod.sh'), ...flags, bundlePath],
      {
        cwd: repoRoot,
        env: { ...process.env, KUBECONFIG: kubeconfig() },
        timeout: 120_000,
      },
    );
    scriptOutput = result.stderr;
    expect(scriptOutput).toContain(`kubectl apply ${flags.join(' ')}`.trim());
  });

  it('keeps every ModRule byte for byte: same object, same resourceVersion, same spec', async () => {
    const after = await modRules([namespace, SYSTEM]);
    expect(
      after.map((r) => [
        r.metadata.namespace,
        r.metadata.name,
        r.metadata.uid,
        r.metadata.resourceVersion,
      ]),
    ).toEqual(
      before.map((r) => [
        r.metadata.namespace,
        r.metadata.name,
        r.metadata.uid,
        r.metadata.resourceVersion,
      ]),
    );
    expect(after.map((r) => JSON.stringify(r.spec))).toEqual(
      before.map((r) => JSON.stringify(r.spec)),
    );
  });

  it("leaves none of KubeMod's own objects", async () => {
    const leftovers: string[][] = [
      ['cronjob', 'kubemod-crt-cron-job', '-n', SYSTEM],
      ['job', 'kubemod-crt-job', '-n', SYSTEM],
      ['service', 'kubemod-webapp-service', '-n', SYSTEM],
      ['secret', 'webhook-server-cert', '-n', SYSTEM],
      ['role', 'kubemod-crt', '-n', SYSTEM],
      ['rolebinding', 'kubemod-crt', '-n', SYSTEM],
      ['clusterrole', 'kubemod-crt'],
      ['clusterrolebinding', 'kubemod-crt'],
      ['clusterrole', 'kubemod-manager'],
      ['clusterrolebinding', 'kubemod-manager'],
    ];
    for (const args of leftovers) expect(await exists(args), args.join(' ')).toBe(false);
    // KubeMod's Pods are deleted; with no kubelet here they can only be Terminating.
    const pods = (await kubectlJson([
      'get',
      'pods',
      '-n',
      SYSTEM,
      '-l',
      'control-plane=controller-manager',
    ])) as {
      items: { metadata: Meta }[];
    };
    expect(pods.items.filter((p) => p.metadata.deletionTimestamp === undefined)).toEqual([]);
  });

  it('ends with exactly the objects of bundle.yaml (kubectl diff finds nothing)', async () => {
    const diff = await kubectlDiff([...flags, '-f', bundlePath]);
    expect(diff.out).toBe('');
    expect(diff.code).toBe(0);
    // The webhook configurations were created afresh: KubeMod's caBundle is gone with them, and
    // one field manager owns them, so later server-side applies have nothing to conflict with.
    for (const [kind, name] of [
      ['mutatingwebhookconfiguration', MUTATING],
      ['validatingwebhookconfiguration', VALIDATING],
    ] as const) {
      const config = (await kubectlJson(['get', kind, name, '--show-managed-fields'])) as {
        metadata: Meta;
        webhooks: { name: string; clientConfig: { caBundle?: string } }[];
      };
      expect(config.webhooks.map((w) => w.clientConfig.caBundle)).toEqual(
        config.webhooks.map(() => undefined),
      );
      expect(config.metadata.managedFields?.map((f) => f.manager)).toEqual([
        mode === 'server-side' ? 'kubectl' : 'kubectl-client-side-apply',
      ]);
    }
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM,
    ])) as {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    expect(deployment.spec.selector.matchLabels).not.toHaveProperty('control-plane');
  });
});
