import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiCall } from '../cluster/api-client.js';
import {
  clusterEndpoint,
  deleteNamespacesNow,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  startWebhookServer,
  type AdmissionRequest,
  type JsonPatchOperation,
  type WebhookServer,
} from './support/webhook-server.js';

interface ObjectMeta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
  deletionTimestamp?: string;
}
interface KubeObject {
  metadata: ObjectMeta;
  spec?: { nodeName?: string; taints?: { key: string }[] };
  status?: {
    conditions?: { type: string; status: string }[];
    allocatable?: Record<string, string>;
  };
  data?: Record<string, string>;
}
interface KubeList {
  items: KubeObject[];
}

const NAMESPACE_LABEL = 'e2e.kubemod.io/namespace';
const MUTATED_LABEL = 'e2e.kubemod.io/mutated';

async function getObject(args: string[]): Promise<KubeObject> {
  return (await kubectlJson(['get', ...args])) as KubeObject;
}

describe('control plane', () => {
  it('serves the selected Kubernetes version ($KUBEMOD_K8S_VERSION, default the newest)', async () => {
    const version = JSON.parse(await kubectl(['get', '--raw', '/version'])) as {
      gitVersion: string;
    };
    const selected = inject('kubernetesVersions');
    if (selected === undefined) expect(version.gitVersion).toMatch(/^v1\./);
    else expect(version.gitVersion).toBe(selected.controlPlane);
  });

  it('establishes a CustomResourceDefinition and serves its resources', async () => {
    const crdName = 'widgets.example.kubemod.io';
    await kubectlApply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName },
      spec: {
        group: 'example.kubemod.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    });
    await waitFor('the CRD to be Established', async () => {
      const crd = await getObject(['crd', crdName]);
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      return established?.status === 'True' ? true : undefined;
    });
    const name = uniqueName('widget');
    await kubectlApply({
      apiVersion: 'example.kubemod.io/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'default' },
      spec: { size: 3 },
    });
    const widget = (await kubectlJson(['get', 'widget', name, '-n', 'default'])) as {
      spec: { size: number };
    };
    expect(widget.spec.size).toBe(3);
    await kubectl(['delete', 'widget', name, '-n', 'default', '--wait=false']);
  });
});

describe.skipIf(!inject('localControlPlane'))('mutating webhooks on 127.0.0.1', () => {
  const namespace = uniqueName('e2e');
  const webhookName = `${namespace}.e2e.kubemod.io`;
  let server: WebhookServer;

  const mutateDeployments = (request: AdmissionRequest): JsonPatchOperation[] | undefined => {
    if (request.kind.kind !== 'Deployment') {
      return undefined;
    }
    const object = request.object as KubeObject;
    return [
      ...(object.metadata.labels
        ? []
        : [{ op: 'add' as const, path: '/metadata/labels', value: {} }]),
      { op: 'add', path: `/metadata/labels/${MUTATED_LABEL.replace('/', '~1')}`, value: 'true' },
      ...(object.metadata.annotations
        ? []
        : [{ op: 'add' as const, path: '/metadata/annotations', value: {} }]),
      { op: 'add', path: '/metadata/annotations/e2e.kubemod.io~1by', value: 'in-test-webhook' },
    ];
  };

  const webhook = (name: string, rule: object): object => ({
    name: `${name}.${webhookName}`,
    clientConfig: { url: `${server.url}/mutate`, caBundle: server.caBundle },
    rules: [rule],
    namespaceSelector: { matchLabels: { [NAMESPACE_LABEL]: namespace } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
  });

  const deployment = (name: string): object => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  });

  beforeAll(async () => {
    server = await startWebhookServer(mutateDeployments);
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { [NAMESPACE_LABEL]: namespace } },
    });
    await kubectlApply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: webhookName },
      webhooks: [
        webhook('deployments', {
          apiGroups: ['apps'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['deployments'],
          scope: 'Namespaced',
        }),
        webhook('bindings', {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['CREATE'],
          resources: ['pods/binding'],
          scope: 'Namespaced',
        }),
      ],
    });
    // The API server picks up webhook configurations asynchronously: probe with server-side
    // dry-runs (allowed because sideEffects is None) until one reaches our server.
    await waitFor('the webhook configuration to become active', async () => {
      await kubectl(['create', '--dry-run=server', '-f', '-'], {
        input: JSON.stringify(deployment('probe')),
      });
      return server.requests.some((r) => r.name === 'probe' && r.dryRun === true) || undefined;
    });
  });

  afterAll(async () => {
    const cleanups = [
      kubectl(['delete', 'mutatingwebhookconfiguration', webhookName, '--ignore-not-found']),
      deleteNamespacesNow([namespace]),
    ];
    await Promise.allSettled(cleanups);
    await server.close();
  });

  it('stores the JSONPatch returned for a Deployment', async () => {
    const name = uniqueName('web');
    await kubectlApply(deployment(name));

    const stored = await getObject(['deployment', name, '-n', namespace]);
    expect(stored.metadata.labels).toMatchObject({ app: name, [MUTATED_LABEL]: 'true' });
    expect(stored.metadata.annotations).toMatchObject({ 'e2e.kubemod.io/by': 'in-test-webhook' });

    const review = server.requests.find((r) => r.name === name && r.dryRun !== true);
    expect(review).toMatchObject({
      operation: 'CREATE',
      namespace,
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    });
  });

  it("sends kube-scheduler's pods/binding CREATE requests to the webhook", async () => {
    const pod = uniqueName('pod');
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    });

    const review = await waitFor('the binding admission review', () =>
      server.requests.find((r) => r.subResource === 'binding' && r.name === pod),
    );
    expect(review).toMatchObject({
      operation: 'CREATE',
      namespace,
      subResource: 'binding',
      kind: { group: '', version: 'v1', kind: 'Binding' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      object: { target: { kind: 'Node' } },
      userInfo: { username: 'system:kube-scheduler' },
    });
    const target = (review.object as { target: { name: string } }).target.name;
    expect(inject('harnessNodes')).toContain(target);
    const bound = await waitFor('the pod to be bound', async () => {
      const p = await getObject(['pod', pod, '-n', namespace]);
      return p.spec?.nodeName === undefined ? undefined : p;
    });
    expect(bound.spec?.nodeName).toBe(target);
  });
});

describe.runIf(inject('localControlPlane'))(
  'controllers, scheduler and nodes of the harness',
  () => {
    const namespace = uniqueName('ctl');

    beforeAll(async () => {
      await kubectl(['create', 'namespace', namespace]);
    });

    afterAll(async () => {
      await deleteNamespacesNow([namespace]).catch(() => undefined);
    });

    it('registers Ready, untainted Nodes with capacity and zone labels', async () => {
      const names = inject('harnessNodes');
      expect(names.length).toBeGreaterThanOrEqual(2);
      const zones = new Set<string>();
      for (const name of names) {
        const node = await getObject(['node', name]);
        expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
        expect(node.spec?.taints ?? []).toEqual([]);
        expect(node.status?.allocatable).toMatchObject({ cpu: '8', memory: '32Gi', pods: '110' });
        expect(node.metadata.labels?.['kubernetes.io/hostname']).toBe(name);
        zones.add(node.metadata.labels?.['topology.kubernetes.io/zone'] ?? '');
      }
      expect(zones.size).toBe(names.length);
    });

    it('gives a new namespace its default ServiceAccount, kube-root-ca.crt and working legacy tokens', async () => {
      const endpoint = clusterEndpoint();
      await waitFor('the default ServiceAccount', () =>
        getObject(['serviceaccount', 'default', '-n', namespace]),
      );
      const rootCa = await waitFor('kube-root-ca.crt', () =>
        getObject(['configmap', 'kube-root-ca.crt', '-n', namespace]),
      );
      expect(rootCa.data?.['ca.crt']).toBe(endpoint.caPem);

      await kubectlApply({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/service-account-token',
        metadata: {
          name: 'default-token',
          namespace,
          annotations: { 'kubernetes.io/service-account.name': 'default' },
        },
      });
      const secret = await waitFor('the token controller to fill the Secret', async () => {
        const s = await getObject(['secret', 'default-token', '-n', namespace]);
        return s.data?.token === undefined ? undefined : s;
      });
      const token = Buffer.from(secret.data?.token ?? '', 'base64').toString('utf8');
      expect(Buffer.from(secret.data?.['ca.crt'] ?? '', 'base64').toString('utf8')).toBe(
        endpoint.caPem,
      );
      const review = (await apiCall(
        { ...endpoint, token },
        'POST',
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      )) as { status: { userInfo: { username: string } } };
      expect(review.status.userInfo.username).toBe(`system:serviceaccount:${namespace}:default`);
    });

    it('runs a Deployment: a ReplicaSet, its Pods bound to the Nodes, all collected on delete', async () => {
      const name = uniqueName('deploy');
      await kubectlApply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      });
      const pods = await waitFor('three scheduled Pods', async () => {
        const list = (await kubectlJson([
          'get',
          'pods',
          '-n',
          namespace,
          '-l',
          `app=${name}`,
        ])) as KubeList;
        const scheduled = list.items.filter((p) => p.spec?.nodeName !== undefined);
        return scheduled.length === 3 ? scheduled : undefined;
      });
      const replicaSets = (await kubectlJson([
        'get',
        'replicasets',
        '-n',
        namespace,
        '-l',
        `app=${name}`,
      ])) as KubeList;
      expect(replicaSets.items).toHaveLength(1);
      const replicaSet = replicaSets.items[0]?.metadata;
      expect(replicaSet?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name });
      for (const pod of pods) {
        expect(pod.metadata.ownerReferences?.[0]).toMatchObject({
          kind: 'ReplicaSet',
          name: replicaSet?.name,
        });
        expect(pod.metadata.name.startsWith(`${replicaSet?.name ?? ''}-`)).toBe(true);
        expect(inject('harnessNodes')).toContain(pod.spec?.nodeName);
        expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
      }

      await kubectl(['delete', 'deployment', name, '-n', namespace]);
      await waitFor('the garbage collector to delete the ReplicaSet and its Pods', async () => {
        const rs = (await kubectlJson([
          'get',
          'replicasets',
          '-n',
          namespace,
          '-l',
          `app=${name}`,
        ])) as KubeList;
        const left = (await kubectlJson([
          'get',
          'pods',
          '-n',
          namespace,
          '-l',
          `app=${name}`,
        ])) as KubeList;
        // No kubelet confirms the deletion of a scheduled Pod: it stays, marked for deletion.
        return rs.items.length === 0 &&
          left.items.every((p) => p.metadata.deletionTimestamp !== undefined)
          ? true
          : undefined;
      });
    });

    it('deletes a namespace with its content (namespace controller)', async () => {
      const doomed = uniqueName('doomed');
      await kubectl(['create', 'namespace', doomed]);
      await kubectl(['create', 'configmap', 'content', '-n', doomed, '--from-literal=k=v']);
      await kubectl(['delete', 'namespace', doomed, '--wait=false']);
      await waitFor(
        'the namespace to be gone',
        async () =>
          (await kubectl(['get', 'namespace', doomed, '--ignore-not-found'])).trim() === ''
            ? true
            : undefined,
        60_000,
      );
    });
  },
);
