import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOperator } from '../../src/cli/operator-command.js';
import type { RunningOperator } from '../../src/controller/operator.js';
import { freeLoopbackPorts } from '../cluster/control-plane.js';
import {
  clusterEndpoint,
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { buildHelm, CHART_PATH, run, setArgs } from './support/helm.js';
import { uniqueName } from './support/names.js';
import {
  caBundlesInjected,
  deleteWebhookConfigurations,
  ensureNamespace,
  MUTATING,
  SYSTEM_NAMESPACE,
} from './support/operator-env.js';
import { modRule, type Obj } from './support/operator-fixtures.js';

// `helm install` and `helm upgrade` of charts/kubemod-ts on the e2e API server. No kubelet runs
// here, so the chart's operator Pods never start, and the API server cannot reach a Service; the
// operator runs in-process instead, as the chart's ServiceAccount (a token the API server issues,
// laid out as the kubelet mounts it), and the chart's webhook.urlBase points the webhook
// configurations at it (the dev-cluster setting for an operator outside the cluster). It injects
// its CA into the chart-installed configurations and serves ModRules with the chart's permissions.

const RELEASE = 'kubemod-ts';
const ns = uniqueName('helm');
const ignored = uniqueName('helm-ignored');

interface Deployment {
  spec: {
    replicas: number;
    template: {
      spec: { containers: { args: string[]; env: { name: string; value?: string }[] }[] };
    };
  };
}
interface Webhooks {
  webhooks: {
    name: string;
    rules: { resources: string[] }[];
    clientConfig: { caBundle?: string };
    namespaceSelector?: { matchExpressions: { key: string; values: string[] }[] };
  }[];
}

describe.runIf(inject('localControlPlane'))('the Helm chart on the e2e API server', () => {
  let helmPath: string;
  let saDir: string;
  let stopOperator: (() => Promise<number>) | undefined;
  let port: number;
  const logs: string[] = [];

  async function helm(args: readonly string[]): Promise<string> {
    const result = await run(helmPath, args, { KUBECONFIG: kubeconfig() }, 300_000);
    if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  }

  async function startOperator(port: number): Promise<RunningOperator> {
    writeFileSync(
      join(saDir, 'token'),
      (await kubectl(['create', 'token', 'kubemod-operator', '-n', SYSTEM_NAMESPACE])).trim(),
    );
    const { server, caPem } = clusterEndpoint();
    writeFileSync(join(saDir, 'ca.crt'), caPem);
    writeFileSync(join(saDir, 'namespace'), SYSTEM_NAMESPACE);
    const url = new URL(server);
    const abort = new AbortController();
    let started: (op: RunningOperator) => void = () => undefined;
    const running = new Promise<RunningOperator>((resolve) => {
      started = resolve;
    });
    const args = [
      '--webhook-host',
      '127.0.0.1',
      '--webhook-port',
      String(port),
      '--health-port',
      '0',
    ];
    const exit = runOperator(
      [...args, '--webhook-url-base', `https://127.0.0.1:${String(port)}`, '--log-level', 'warn'],
      {
        stdout: (text) => logs.push(text),
        stderr: (text) => logs.push(text),
        env: {
          KUBERNETES_SERVICE_HOST: url.hostname,
          KUBERNETES_SERVICE_PORT: url.port,
          POD_NAMESPACE: SYSTEM_NAMESPACE,
        },
        serviceAccountDir: saDir,
        signal: abort.signal,
        onStarted: started,
      },
    );
    stopOperator = () => {
      abort.abort();
      return exit;
    };
    return Promise.race([
      running,
      exit.then((code) => {
        throw new Error(`operator exited with ${String(code)}: ${logs.join('')}`);
      }),
    ]);
  }

  /** A new ConfigMap in `namespace`, as stored (after the webhooks). */
  async function createConfigMap(namespace: string): Promise<Obj> {
    const name = uniqueName('cm');
    await kubectlApply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
    return (await kubectlJson(['get', 'configmap', name, '-n', namespace])) as Obj;
  }

  async function ruleReady(namespace: string, name: string): Promise<void> {
    await waitFor(`ModRule ${namespace}/${name} Ready`, async () => {
      const rule = (await kubectlJson(['get', 'modrule', name, '-n', namespace])) as Obj;
      return rule.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
    });
  }

  beforeAll(async () => {
    helmPath = await buildHelm();
    const [free] = await freeLoopbackPorts(1);
    if (free === undefined) throw new Error('no free loopback port');
    port = free;
    saDir = mkdtempSync(join(tmpdir(), 'kubemod-helm-sa-'));
    // Webhook configurations other tests left (URL-based) would merge with the chart's service
    // references on adoption; the namespace must exist for Helm's release record.
    await deleteWebhookConfigurations(kubectl);
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
  }, 30 * 60_000);

  afterAll(async () => {
    if (stopOperator !== undefined) await stopOperator();
    // After a failure half-way, leave no release (its fail-closed ModRule webhooks would point at
    // a stopped operator) for the tests that follow.
    await run(helmPath, ['uninstall', RELEASE, '-n', SYSTEM_NAMESPACE, '--ignore-not-found'], {
      KUBECONFIG: kubeconfig(),
    });
    rmSync(saDir, { recursive: true, force: true });
    await deleteNamespacesNow([ns, ignored]);
  });

  it('installs, adopting the existing namespace', async () => {
    await helm([
      'install',
      RELEASE,
      CHART_PATH,
      '--namespace',
      SYSTEM_NAMESPACE,
      '--take-ownership',
      ...setArgs({ 'webhook.urlBase': `https://127.0.0.1:${String(port)}` }),
    ]);
    const status = JSON.parse(
      await helm(['status', RELEASE, '-n', SYSTEM_NAMESPACE, '-o', 'json']),
    ) as {
      info: { status: string };
    };
    expect(status.info.status).toBe('deployed');
    const namespace = (await kubectlJson(['get', 'namespace', SYSTEM_NAMESPACE])) as Obj;
    expect(namespace.metadata.labels).toMatchObject({
      'admission.kubemod.io/ignore': 'true',
      'app.kubernetes.io/managed-by': 'Helm',
    });
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM_NAMESPACE,
    ])) as Deployment;
    expect(deployment.spec.replicas).toBe(2);
    const crd = (await kubectlJson(['get', 'crd', 'modrules.api.kubemod.io'])) as Obj;
    expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
  });

  it('serves ModRules as the chart ServiceAccount, through the chart-installed webhooks', async () => {
    const operator = await startOperator(port);
    await waitFor(
      'caBundle injected',
      async () => ((await caBundlesInjected(kubectl)) ? true : undefined),
      30_000,
    );
    await operator.waitForReady();
    await kubectl(['create', 'namespace', ns]);
    await kubectlApply(
      modRule('label-configmaps', ns, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/chart', value: '"installed"' }],
      }),
    );
    await ruleReady(ns, 'label-configmaps');
    const cm = await waitFor('a ConfigMap patched by the rule', async () => {
      const created = await createConfigMap(ns);
      return created.metadata.labels?.chart === 'installed' ? created : undefined;
    });
    expect(cm.metadata.labels).toEqual({ chart: 'installed' });
    expect(logs.join('')).not.toMatch(/forbidden/i);
  });

  it('upgrades with changed values; the objects change and rules still apply', async () => {
    await kubectl(['create', 'namespace', ignored]);
    await helm([
      'upgrade',
      RELEASE,
      CHART_PATH,
      '--namespace',
      SYSTEM_NAMESPACE,
      '--reuse-values',
      ...setArgs({
        replicas: 3,
        logLevel: 'debug',
        'audit.intervalSeconds': 120,
        ignoredNamespaces: [ignored],
        targetResources: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['configmaps'],
            scope: '*',
          },
        ],
      }),
    ]);
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM_NAMESPACE,
    ])) as Deployment;
    expect(deployment.spec.replicas).toBe(3);
    const [container] = deployment.spec.template.spec.containers;
    expect(container?.args).toEqual([
      'operator',
      `--webhook-url-base=https://127.0.0.1:${String(port)}`,
      '--audit-interval-seconds=120',
    ]);
    expect(container?.env).toContainEqual({ name: 'KUBEMOD_LOG_LEVEL', value: 'debug' });
    const mutating = (await kubectlJson([
      'get',
      'mutatingwebhookconfiguration',
      MUTATING,
    ])) as Webhooks;
    const dragnet = mutating.webhooks.find((w) => w.name === 'dragnet.kubemod.io');
    expect(dragnet?.rules.map((r) => r.resources)).toEqual([['configmaps']]);
    expect(dragnet?.namespaceSelector?.matchExpressions).toContainEqual(
      expect.objectContaining({ key: 'kubernetes.io/metadata.name', values: [ignored] }),
    );
    // The upgrade kept the CA the operator injected.
    expect(mutating.webhooks.every((w) => (w.clientConfig.caBundle ?? '') !== '')).toBe(true);

    const cm = await createConfigMap(ns);
    expect(cm.metadata.labels).toEqual({ chart: 'installed' });
    // A rule in an ignored namespace is loaded, but the webhook never sees that namespace.
    await kubectlApply(
      modRule('label-configmaps', ignored, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/chart', value: '"ignored"' }],
      }),
    );
    await ruleReady(ignored, 'label-configmaps');
    expect((await createConfigMap(ignored)).metadata.labels).toBeUndefined();
    const history = await helm(['history', RELEASE, '-n', SYSTEM_NAMESPACE, '-o', 'json']);
    expect((JSON.parse(history) as { revision: number }[]).map((r) => r.revision)).toEqual([1, 2]);
  });

  it('uninstalls, keeping the ModRule CRD', async () => {
    if (stopOperator !== undefined) expect(await stopOperator()).toBe(0);
    stopOperator = undefined;
    await helm(['uninstall', RELEASE, '--namespace', SYSTEM_NAMESPACE, '--wait=false']);
    const gone = async (args: string[]): Promise<boolean> =>
      (await kubectl(['get', ...args, '--ignore-not-found', '-o', 'name'])).trim() === '';
    expect(await gone(['mutatingwebhookconfiguration', MUTATING])).toBe(true);
    expect(await gone(['clusterrole', 'kubemod-operator'])).toBe(true);
    expect(await gone(['crd', 'modrules.api.kubemod.io'])).toBe(false);
    // The namespace went with the release; let it finish (no kubelet confirms its Pods' deletion)
    // so later tests can create kubemod-system again.
    await deleteNamespacesNow([SYSTEM_NAMESPACE]);
    await waitFor(
      'kubemod-system to be deleted',
      async () => ((await gone(['namespace', SYSTEM_NAMESPACE])) ? true : undefined),
      90_000,
    );
  });
});
