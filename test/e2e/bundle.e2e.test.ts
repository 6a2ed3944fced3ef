import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';

// Installs the generated bundle.yaml into the e2e API server the way a cluster admin would, uses
// it, and uninstalls it. The harness has no kubelet, so the operator Deployment's Pods are
// scheduled but never run: its webhook Service has no endpoints. The dragnet and podbinding webhooks fail open (Ignore), but
// the ModRule webhooks fail closed (Fail), which would block every ModRule write; the test
// therefore switches those two to Ignore after installing, and checks that re-applying the bundle
// (the upgrade path) puts Fail back while keeping the caBundle the operator would have injected.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const bundlePath = join(repoRoot, 'bundle.yaml');
const SYSTEM_NAMESPACE = 'kubemod-system';
const MUTATING = 'kubemod-mutating-webhook-configuration';
const VALIDATING = 'kubemod-validating-webhook-configuration';
const OPERATOR = 'system:serviceaccount:kubemod-system:kubemod-operator';

interface Meta {
  name: string;
  namespace?: string;
  deletionTimestamp?: string;
}
interface KubeObject {
  kind?: string;
  metadata: Meta;
  status?: { conditions?: { type: string; status: string }[] };
}
interface WebhookConfiguration {
  webhooks: { name: string; failurePolicy: string; clientConfig: { caBundle?: string } }[];
}

async function webhookConfiguration(kind: string, name: string): Promise<WebhookConfiguration> {
  return (await kubectlJson(['get', kind, name])) as WebhookConfiguration;
}

/** JSON-patches `failurePolicy` (and optionally `caBundle`) of one webhook, found by name. */
async function patchWebhook(
  kind: string,
  name: string,
  webhook: string,
  changes: { failurePolicy?: string; caBundle?: string },
): Promise<void> {
  const index = (await webhookConfiguration(kind, name)).webhooks.findIndex(
    (w) => w.name === webhook,
  );
  expect(index).toBeGreaterThanOrEqual(0);
  const ops = [
    ...(changes.failurePolicy === undefined
      ? []
      : [
          { op: 'replace', path: `/webhooks/${index}/failurePolicy`, value: changes.failurePolicy },
        ]),
    ...(changes.caBundle === undefined
      ? []
      : [{ op: 'add', path: `/webhooks/${index}/clientConfig/caBundle`, value: changes.caBundle }]),
  ];
  await kubectl(['patch', kind, name, '--type=json', '-p', JSON.stringify(ops)]);
}

/** The namespace exists and is not being deleted (a previous run's leftovers would block us). */
async function namespaceActive(name: string): Promise<boolean> {
  const out = await kubectl(['get', 'namespace', '--ignore-not-found', '-o', 'json', name]);
  if (out.trim() === '') return false;
  return (JSON.parse(out) as KubeObject).metadata.deletionTimestamp === undefined;
}

/**
 * Waits until a deleted namespace is gone. The namespace controller deletes its content, but the
 * operator Deployment's Pods are bound to harness Nodes where no kubelet confirms their graceful
 * deletion: force-delete them so the controller can finish, and later test files (and re-runs)
 * can create kubemod-system again.
 */
async function awaitNamespaceDeletion(name: string): Promise<void> {
  const gone = async (): Promise<boolean> =>
    (await kubectl(['get', 'namespace', '--ignore-not-found', '-o', 'name', name])).trim() === '';
  if (await gone()) return;
  await deleteNamespacesNow([name]);
  await waitFor(
    `namespace ${name} to be deleted`,
    async () => ((await gone()) ? true : undefined),
    90_000,
  );
}

function sampleFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sampleFiles(path);
      return /\.ya?ml$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

/** `kubectl auth can-i … --as <operator>` (`type#subresource` for subresources): "yes" or "no" (it exits 1 on "no", hence execFile). */
function canI(verb: string, resource: string, namespace?: string): Promise<string> {
  const [type = resource, subresource] = resource.split('#');
  const args = ['auth', 'can-i', verb, type, '--as', OPERATOR];
  if (subresource !== undefined) args.push(`--subresource=${subresource}`);
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      namespace === undefined ? args : [...args, '-n', namespace],
      { env: { ...process.env, KUBECONFIG: kubeconfig() }, timeout: 30_000 },
      (_error, stdout, stderr) => {
        resolve(stdout.trim() || stderr.trim());
      },
    );
  });
}

describe('bundle.yaml', () => {
  const namespace = uniqueName('bundle');
  const local = inject('localControlPlane');

  beforeAll(async () => {
    if (local && !(await namespaceActive(SYSTEM_NAMESPACE))) {
      await awaitNamespaceDeletion(SYSTEM_NAMESPACE);
    }
  });

  afterAll(async () => {
    await deleteNamespacesNow([namespace]);
  });

  it('installs with kubectl apply and with kubectl apply --server-side', async () => {
    await kubectl(['apply', '-f', bundlePath]);
    await kubectl(['apply', '--server-side', '-f', bundlePath]);
    await waitFor('the ModRule CRD to be Established', async () => {
      const crd = (await kubectlJson(['get', 'crd', 'modrules.api.kubemod.io'])) as KubeObject;
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      return established?.status === 'True' ? true : undefined;
    });
    const ns = (await kubectlJson(['get', 'namespace', SYSTEM_NAMESPACE])) as {
      metadata: { labels?: Record<string, string> };
    };
    expect(ns.metadata.labels?.['admission.kubemod.io/ignore']).toBe('true');
  });

  it('grants the operator what it needs and no more', async () => {
    expect(await canI('watch', 'modrules.api.kubemod.io')).toBe('yes');
    expect(await canI('patch', 'modrules.api.kubemod.io', namespace)).toBe('no');
    expect(await canI('patch', 'modrules.api.kubemod.io#status', namespace)).toBe('yes');
    expect(await canI('list', 'nodes')).toBe('yes');
    expect(await canI('patch', 'pods', namespace)).toBe('yes');
    // Reading workloads comes only from the droppable audit ClusterRole; updating them only from
    // config/optional/apply-to-existing-rbac.yaml, which the bundle does not contain.
    expect(await canI('get', 'pods', namespace)).toBe('yes');
    expect(await canI('list', 'deployments.apps')).toBe('yes');
    expect(await canI('update', 'deployments.apps', namespace)).toBe('no');
    expect(await canI('create', 'subjectaccessreviews.authorization.k8s.io')).toBe('yes');
    expect(await canI('list', 'secrets')).toBe('no');
    expect(await canI('update', 'secrets', namespace)).toBe('no');
    expect(await canI('list', 'roles.rbac.authorization.k8s.io')).toBe('yes');
    expect(await canI('update', 'roles.rbac.authorization.k8s.io', namespace)).toBe('no');
    expect(await canI('delete', 'deployments.apps', namespace)).toBe('no');
    expect(await canI('patch', `mutatingwebhookconfigurations/${MUTATING}`)).toBe('yes');
    expect(await canI('patch', 'mutatingwebhookconfigurations/some-other-webhook')).toBe('no');
    expect(await canI('update', `validatingwebhookconfigurations/${VALIDATING}`)).toBe('yes');
    expect(await canI('get', 'secrets/kubemod-webhook-server-cert', SYSTEM_NAMESPACE)).toBe('yes');
    expect(await canI('get', 'secrets/other', SYSTEM_NAMESPACE)).toBe('no');
    expect(await canI('get', 'secrets/kubemod-webhook-server-cert', namespace)).toBe('no');
    expect(await canI('create', 'secrets', SYSTEM_NAMESPACE)).toBe('yes');
    expect(await canI('update', 'leases/kubemod-operator-leader', SYSTEM_NAMESPACE)).toBe('yes');
    // Policy reports are written only with config/optional/policy-reports-rbac.yaml.
    expect(await canI('create', 'reports.openreports.io', namespace)).toBe('no');
    expect(await canI('update', 'clusterpolicyreports.wgpolicyk8s.io')).toBe('no');
  });

  it('keeps the audit permissions droppable: without the optional bindings they are gone', async () => {
    await kubectl(['delete', 'clusterrolebinding', 'kubemod-operator-audit']);
    await waitFor('the permissions to go', async () =>
      (await canI('list', 'deployments.apps')) === 'no' ? true : undefined,
    );
    expect(await canI('list', 'pods', namespace)).toBe('no');
    expect(await canI('get', 'configmaps', namespace)).toBe('no');
    expect(await canI('update', 'deployments.apps', namespace)).toBe('no');
    // What the operator needs for everything else is unaffected, the node ref included: it reads a
    // Pod's spec.nodeName before it writes (a forged binding review is not trusted).
    expect(await canI('watch', 'modrules.api.kubemod.io')).toBe('yes');
    expect(await canI('get', 'pods', namespace)).toBe('yes');
    expect(await canI('patch', 'pods', namespace)).toBe('yes');
    await kubectl(['apply', '-f', bundlePath]);
  });

  it('serves ModRules and prints their type, tier and readiness', async () => {
    // No operator runs here: let ModRule writes through while its webhooks cannot answer.
    await patchWebhook('mutatingwebhookconfiguration', MUTATING, 'mmodrule.kubemod.io', {
      failurePolicy: 'Ignore',
    });
    await patchWebhook('validatingwebhookconfiguration', VALIDATING, 'vmodrule.kubemod.io', {
      failurePolicy: 'Ignore',
    });
    await kubectl(['create', 'namespace', namespace]);
    const rule = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'reject-privileged', namespace },
      spec: {
        type: 'Reject',
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        rejectMessage: 'no pods here',
      },
    };
    await kubectl(['apply', '-f', '-'], { input: JSON.stringify(rule) });
    const table = await kubectl(['get', 'modrules', '-n', namespace]);
    const [header, row] = table.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'TYPE', 'TIER', 'ENFORCEMENT', 'READY', 'AGE']);
    // executionTier is defaulted to 0 by the CRD schema.
    expect(row?.split(/\s+/).slice(0, 3)).toEqual(['reject-privileged', 'Reject', '0']);

    const invalid = { ...rule, metadata: { name: 'bad-tier', namespace } };
    const tooHigh = { ...invalid, spec: { ...rule.spec, executionTier: 40000 } };
    await expect(kubectl(['apply', '-f', '-'], { input: JSON.stringify(tooHigh) })).rejects.toThrow(
      /executionTier/,
    );
  });

  it('accepts every Kubernetes manifest in samples/', async () => {
    // Not the kubemod-test files (`kubemod-ts test` input) nor the recipes (playground examples).
    const files = sampleFiles(join(repoRoot, 'samples')).filter(
      (file) => !file.endsWith('kubemod-test.yaml') && !file.includes('/samples/recipes/'),
    );
    for (const file of files) {
      const docs = loadAll(readFileSync(file, 'utf8')).filter(
        (doc): doc is KubeObject => typeof doc === 'object' && doc !== null,
      );
      expect(
        docs.every((doc) => typeof doc.kind === 'string' && typeof doc.metadata === 'object'),
        `${file} holds only Kubernetes objects`,
      ).toBe(true);
      // Objects without a namespace go to this test's namespace; the others where they say.
      const withoutNamespace = docs.filter((doc) => doc.metadata.namespace === undefined);
      const withNamespace = docs.filter((doc) => doc.metadata.namespace !== undefined);
      const name = relative(repoRoot, file);
      if (withoutNamespace.length > 0) {
        const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: withoutNamespace });
        await expect(
          kubectl(['apply', '-n', namespace, '-f', '-'], { input }),
          name,
        ).resolves.toBeTypeOf('string');
      }
      if (withNamespace.length > 0) {
        const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: withNamespace });
        await expect(kubectl(['apply', '-f', '-'], { input }), name).resolves.toBeTypeOf('string');
      }
    }
    console.log(`[bundle] applied ${String(files.length)} sample file(s)`);
  });

  it('upgrades in place: re-applying restores the bundle and keeps the injected caBundle', async () => {
    const caBundle = Buffer.from('-----BEGIN CERTIFICATE-----\nfake\n').toString('base64');
    await patchWebhook('mutatingwebhookconfiguration', MUTATING, 'dragnet.kubemod.io', {
      caBundle,
    });
    await kubectl(['apply', '-f', bundlePath]);
    await kubectl(['apply', '--server-side', '-f', bundlePath]);
    const mutating = await webhookConfiguration('mutatingwebhookconfiguration', MUTATING);
    const validating = await webhookConfiguration('validatingwebhookconfiguration', VALIDATING);
    const byName = new Map([...mutating.webhooks, ...validating.webhooks].map((w) => [w.name, w]));
    expect(byName.get('dragnet.kubemod.io')?.clientConfig.caBundle).toBe(caBundle);
    expect(byName.get('mmodrule.kubemod.io')?.failurePolicy).toBe('Fail');
    expect(byName.get('vmodrule.kubemod.io')?.failurePolicy).toBe('Fail');
  });

  it('uninstalls with kubectl delete -f bundle.yaml', async () => {
    await kubectl(['delete', '-f', bundlePath, '--wait=false']);
    const goneOrTerminating = async (args: string[]): Promise<boolean> => {
      const out = await kubectl(['get', ...args, '--ignore-not-found', '-o', 'json']);
      return (
        out.trim() === '' ||
        (JSON.parse(out) as KubeObject).metadata.deletionTimestamp !== undefined
      );
    };
    await waitFor('the bundle objects to be gone or terminating', async () => {
      const checks = await Promise.all([
        goneOrTerminating(['crd', 'modrules.api.kubemod.io']),
        goneOrTerminating(['clusterrole', 'kubemod-operator']),
        goneOrTerminating(['clusterrolebinding', 'kubemod-operator']),
        goneOrTerminating(['mutatingwebhookconfiguration', MUTATING]),
        goneOrTerminating(['validatingwebhookconfiguration', VALIDATING]),
        goneOrTerminating(['namespace', SYSTEM_NAMESPACE]),
      ]);
      return checks.every(Boolean) ? true : undefined;
    });
    // The CRD's own finalizer (deleting every ModRule) runs inside the API server; let it finish
    // so that a later install in the same cluster does not meet a terminating CRD.
    await waitFor(
      'the ModRule CRD to be deleted',
      async () =>
        (await kubectl(['get', 'crd', 'modrules.api.kubemod.io', '--ignore-not-found'])).trim() ===
        ''
          ? true
          : undefined,
      60_000,
    );
    if (local) {
      await awaitNamespaceDeletion(SYSTEM_NAMESPACE);
    }
  });
});
