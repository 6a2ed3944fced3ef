import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './support/kubectl.js';
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
}
interface KubeObject {
  metadata: ObjectMeta;
  spec?: { nodeName?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

const NAMESPACE_LABEL = 'e2e.kubemod.io/namespace';
const MUTATED_LABEL = 'e2e.kubemod.io/mutated';

async function getObject(args: string[]): Promise<KubeObject> {
  return (await kubectlJson(['get', ...args])) as KubeObject;
}

describe('control plane', () => {
  it('serves the pinned Kubernetes version', async () => {
    const version = JSON.parse(await kubectl(['get', '--raw', '/version'])) as {
      gitVersion: string;
    };
    expect(version.gitVersion).toMatch(inject('localControlPlane') ? /^v1\.33\.\d+$/ : /^v1\./);
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
  const nodeName = uniqueName('node');
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
      kubectl(['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']),
      kubectl(['delete', 'node', nodeName, '--wait=false', '--ignore-not-found']),
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

  it('sends pods/binding CREATE requests to the webhook', async () => {
    await kubectlApply({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } });
    const pod = uniqueName('pod');
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    });

    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: pod, namespace },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    };
    await kubectl(
      ['create', '--raw', `/api/v1/namespaces/${namespace}/pods/${pod}/binding`, '-f', '-'],
      {
        input: JSON.stringify(binding),
      },
    );

    const review = server.requests.find((r) => r.subResource === 'binding' && r.name === pod);
    expect(review).toMatchObject({
      operation: 'CREATE',
      namespace,
      subResource: 'binding',
      kind: { group: '', version: 'v1', kind: 'Binding' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      object: { target: { kind: 'Node', name: nodeName } },
    });
    const bound = await getObject(['pod', pod, '-n', namespace]);
    expect(bound.spec?.nodeName).toBe(nodeName);
  });
});
