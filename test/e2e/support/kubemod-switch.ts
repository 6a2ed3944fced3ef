import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deleteNamespacesNow, kubeconfig, kubectl, kubectlJson, waitFor } from './kubectl.js';
import { run } from './helm.js';

// KubeMod installs for the switch e2e tests (test/e2e/switch-*.e2e.test.ts): from KubeMod's
// bundle (test/fixtures/kubemod-install) or from KubeMod's Helm chart (test/fixtures/kubemod-chart,
// installed with helm as release `kubemod`), with ModRules that must come through every switch
// byte for byte; and the scripts users run.

const exec = promisify(execFile);
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = join(repoRoot, 'test/fixtures/kubemod-install');
export const bundlePath = join(repoRoot, 'bundle.yaml');
export const SYSTEM = 'kubemod-system';
export const MUTATING = 'kubemod-mutating-webhook-configuration';
export const VALIDATING = 'kubemod-validating-webhook-configuration';

/**
 * `kubectl get` arguments of KubeMod's own objects that no switch may leave behind (its webhook
 * configurations and namespace are checked separately: kubemod-ts takes those names over).
 */
export const KUBEMOD_LEFTOVERS: readonly (readonly string[])[] = [
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
const CRDS = ['modrules.api.kubemod.io', 'externaldataproviders.api.kubemod.io'];

export interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: { manager: string; operation: string }[];
}
export interface KubeObject {
  metadata: Meta;
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[] };
}

const rule = (ns: string, name: string, spec: object): object => ({
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: { name, namespace: ns },
  spec,
});

/** ModRules in `namespace` and one cluster-wide, with KubeMod's explicit nulls. */
export function rules(namespace: string): object[] {
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

/** Every ModRule of the namespaces as the API server serves it, sorted by namespace and name. */
export async function modRules(namespaces: readonly string[]): Promise<KubeObject[]> {
  const lists = await Promise.all(
    namespaces.map(
      async (ns) =>
        (
          (await kubectlJson(['get', 'modrules', '-n', ns, '--show-managed-fields'])) as {
            items: KubeObject[];
          }
        ).items,
    ),
  );
  const key = (r: KubeObject): string => `${r.metadata.namespace ?? ''}/${r.metadata.name}`;
  return lists.flat().sort((a, b) => key(a).localeCompare(key(b)));
}

/** One JSON line per ModRule: what "byte for byte" compares. */
export async function modRuleBytes(namespaces: readonly string[]): Promise<string[]> {
  return (await modRules(namespaces)).map((r) => JSON.stringify(r));
}

export async function exists(args: readonly string[]): Promise<boolean> {
  const out = await kubectl(['get', ...args, '--ignore-not-found', '-o', 'json']);
  if (out.trim() === '') return false;
  return (JSON.parse(out) as KubeObject).metadata.deletionTimestamp === undefined;
}

export async function gone(args: readonly string[]): Promise<boolean> {
  return (await kubectl(['get', ...args, '--ignore-not-found', '-o', 'name'])).trim() === '';
}

/** What KubeMod's kubemod-crt job does once installed: a TLS Secret and its CA in the webhooks. */
async function certificateJob(): Promise<void> {
  const pem = Buffer.from('-----BEGIN CERTIFICATE-----\nkubemod\n-----END CERTIFICATE-----\n');
  const b64 = pem.toString('base64');
  await kubectl(['apply', '-n', SYSTEM, '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: 'webhook-server-cert' },
      data: { 'tls.crt': b64, 'tls.key': b64 },
    }),
  });
  const caPatch = (count: number): string =>
    JSON.stringify(
      Array.from({ length: count }, (_, i) => ({
        op: 'replace',
        path: `/webhooks/${String(i)}/clientConfig/caBundle`,
        value: b64,
      })),
    );
  for (const [kind, name, count] of [
    ['mutatingwebhookconfiguration', MUTATING, 3],
    ['validatingwebhookconfiguration', VALIDATING, 1],
  ] as const) {
    await kubectl(['patch', kind, name, '--type=json', '--patch', caPatch(count)]);
  }
}

/** `kubectl create` keeps explicit nulls, as GitOps tools and server-side apply do. */
async function createRules(objects: readonly object[]): Promise<void> {
  await kubectl(['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
}

/** KubeMod's bundle as its install applies it (client-side), then ModRules, then its cert job. */
export async function installKubeModBundle(namespace: string): Promise<void> {
  await kubectl(['apply', '-f', join(fixtures, 'namespace-and-crd.yaml')]);
  await kubectl(['wait', '--for=condition=Established', `crd/${CRDS[0]}`, '--timeout=60s']);
  await kubectl(['create', 'namespace', namespace]);
  // ModRules first: KubeMod's ModRule webhooks fail closed and no KubeMod operator runs here.
  await createRules(rules(namespace));
  await kubectl(['apply', '-f', join(fixtures, 'operator.yaml')]);
  await certificateJob();
}

/** KubeMod's bundle as one file, as its release ships it. */
export function kubeModBundleFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kubemod-bundle-')), 'bundle.yaml');
  const parts = ['namespace-and-crd.yaml', 'operator.yaml'].map((f) =>
    readFileSync(join(fixtures, f), 'utf8'),
  );
  writeFileSync(path, parts.join('\n---\n'));
  return path;
}

/** test/fixtures/kubemod-chart with its crds/ holding KubeMod's CRD (see its README). */
export function kubeModChart(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'kubemod-chart-')), 'kubemod');
  cpSync(join(repoRoot, 'test/fixtures/kubemod-chart'), dir, { recursive: true });
  const crd = readFileSync(join(fixtures, 'namespace-and-crd.yaml'), 'utf8').split(/^---$/m)[1];
  if (crd === undefined) throw new Error('namespace-and-crd.yaml has no second document');
  mkdirSync(join(dir, 'crds'));
  writeFileSync(join(dir, 'crds', 'crd-kubemod.yaml'), crd);
  return dir;
}

/**
 * KubeMod's chart as `helm install kubemod kubemod/kubemod -n kubemod-system --create-namespace`
 * installs it, with one ModRule from its `modrules` value; then ModRules (its webhooks fail open)
 * and its cert job.
 */
export async function installKubeModChart(helm: string, namespace: string): Promise<void> {
  const chartRule = {
    name: 'chart-rule',
    namespace: SYSTEM,
    spec: (rules('x')[3] as KubeObject).spec,
  };
  await helmOk(helm, [
    'install',
    'kubemod',
    kubeModChart(),
    '-n',
    SYSTEM,
    '--create-namespace',
    '--set-json',
    `modrules=${JSON.stringify([chartRule])}`,
  ]);
  await kubectl(['create', 'namespace', namespace]);
  await createRules(rules(namespace));
  await certificateJob();
}

export async function helmOk(helm: string, args: readonly string[]): Promise<string> {
  const result = await run(helm, args, { KUBECONFIG: kubeconfig() }, 300_000);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** Runs scripts/<script> as a user would; resolves its stderr (the `set -x` trace). */
export async function runScript(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  const result = await exec('bash', [join(repoRoot, 'scripts', script), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env, KUBECONFIG: kubeconfig() },
    timeout: 300_000,
  });
  return result.stderr;
}

/** `kubectl diff`: its exit code (0 same, 1 different, >1 error) and output. */
export function kubectlDiff(
  args: readonly string[],
): Promise<{ code: number | null; out: string }> {
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

/** Waits for a namespace to be gone, force-deleting Pods no kubelet will confirm. */
async function awaitNamespaceGone(name: string): Promise<void> {
  if (await gone(['namespace', name])) return;
  await deleteNamespacesNow([name]);
  await waitFor(
    `namespace ${name} to be deleted`,
    async () => ((await gone(['namespace', name])) ? true : undefined),
    90_000,
  );
}

/** Removes every install of either operator, the CRDs (so every ModRule) and the namespaces. */
export async function uninstallAll(namespace: string, helm?: string): Promise<void> {
  if (helm !== undefined) {
    for (const release of ['kubemod', 'kubemod-ts'])
      await run(helm, ['uninstall', release, '-n', SYSTEM, '--ignore-not-found'], {
        KUBECONFIG: kubeconfig(),
      });
  }
  for (const file of [bundlePath, join(fixtures, 'operator.yaml')])
    await kubectl(['delete', '-f', file, '--wait=false', '--ignore-not-found']);
  await kubectl([
    'delete',
    'clusterrole,clusterrolebinding',
    '-l',
    'app.kubernetes.io/instance=kubemod',
  ]);
  await kubectl(['delete', 'crd', ...CRDS, '--wait=false', '--ignore-not-found']);
  await waitFor(
    'the ModRule CRD to be deleted',
    async () => ((await gone(['crd', CRDS[0] ?? ''])) ? true : undefined),
    60_000,
  );
  await deleteNamespacesNow([namespace]);
  await awaitNamespaceGone(SYSTEM);
}
