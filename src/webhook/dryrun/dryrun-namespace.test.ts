import { describe, expect, it } from 'vitest';
import type { ExplainDocument } from '../../engine/explain/index.js';
import type { JsonObject, JsonPatchOperation } from '../../engine/json.js';
import { DEFAULT_CLUSTER_NAMESPACE } from '../../engine/rule.js';
import { runDryRunJob } from './dryrun-job.js';
import { prepareDryRun } from './dryrun-prepare.js';

// Issue 39: PUT /v1/dryrun (and the playground, which runs this same job in the page) decides
// the namespace of a manifest as kubectl does (src/engine/request-namespace.ts).

const rule = (name: string, namespace: string): JsonObject => ({
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: { name, namespace },
  spec: {
    type: 'Patch',
    match: [{ select: '$.kind' }],
    patch: [{ op: 'add', path: `/metadata/labels/${name}`, value: '"{{ .Namespace }}"' }],
  },
});
const RULES = [rule('in-default', 'default'), rule('cluster-wide', 'kubemod-system')];
const deps = { clusterNamespace: DEFAULT_CLUSTER_NAMESPACE, limits: { template: {}, work: {} } };

const object = (apiVersion: string, kind: string, namespace?: string): JsonObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', labels: {}, ...(namespace === undefined ? {} : { namespace }) },
});
const TENANT_CRD: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'tenants.example.com' },
  spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'Tenant', plural: 'tenants' } },
};

interface Answer {
  patch: JsonPatchOperation[];
  explain: ExplainDocument;
}

async function dryRun(body: JsonObject): Promise<Answer> {
  const bytes = new TextEncoder().encode(JSON.stringify({ modRules: RULES, ...body }));
  const outcome = await runDryRunJob(bytes, { explain: true }, deps, () => ({}));
  if (!outcome.ok) throw new Error('the dry run failed');
  return JSON.parse(outcome.json) as Answer;
}

describe('PUT /v1/dryrun: the namespace of a manifest', () => {
  it.each<[string, JsonObject, string | undefined, string | undefined]>([
    [
      'a Pod without one is in default',
      { resourceManifest: object('v1', 'Pod') },
      'default',
      'evaluated in namespace default, where kubectl would create it',
    ],
    [
      'a Pod with one keeps it',
      { resourceManifest: object('v1', 'Pod', 'shop') },
      'shop',
      undefined,
    ],
    [
      'the body’s namespace replaces the manifest’s',
      { resourceManifest: object('v1', 'Pod', 'shop'), namespace: 'default' },
      'default',
      'its metadata.namespace shop is replaced',
    ],
    ['a Node has none', { resourceManifest: object('v1', 'Node', 'shop') }, undefined, undefined],
    [
      'an unknown kind is assumed namespaced',
      { resourceManifest: object('example.com/v1', 'Tenant') },
      'default',
      'assumed namespaced',
    ],
    [
      'its CRD in cluster makes it cluster-scoped',
      { resourceManifest: object('example.com/v1', 'Tenant'), cluster: [TENANT_CRD] },
      undefined,
      undefined,
    ],
    [
      'an empty namespace asks for a cluster-scoped request',
      { resourceManifest: object('example.com/v1', 'Tenant'), namespace: '' },
      undefined,
      'an empty namespace was given',
    ],
  ])('%s', async (_what, body, namespace, reason) => {
    const answer = await dryRun(body);
    expect(answer.explain.request.namespace).toBe(namespace ?? null);
    const labels = answer.patch.map((op): [string, unknown] => [
      op.path,
      'value' in op ? op.value : undefined,
    ]);
    expect(labels).toEqual(
      namespace === 'default'
        ? [['/metadata/labels/in-default', 'default']]
        : namespace === undefined
          ? [['/metadata/labels/cluster-wide', '']]
          : [],
    );
    if (reason === undefined) {
      expect(answer.explain.request.namespaceReason).toBeUndefined();
      expect(answer.explain.children[0]?.label).not.toMatch(/^namespace: /);
    } else {
      expect(answer.explain.request.namespaceReason).toContain(reason);
      expect(answer.explain.children[0]?.label).toBe(
        `namespace: ${answer.explain.request.namespaceReason ?? ''}`,
      );
    }
  });

  it('fills the namespace into the resource and its old object, as the API server does', () => {
    const prepared = prepareDryRun(
      {
        modRules: RULES,
        operation: 'UPDATE',
        resourceManifest: object('v1', 'Pod'),
        oldResourceManifest: object('v1', 'Pod'),
      },
      deps,
    );
    const [item] = prepared.items;
    expect(item?.namespace).toBe('default');
    expect(item?.resource.object.metadata).toMatchObject({ namespace: 'default' });
    expect(item?.resource.oldObject?.metadata).toMatchObject({ namespace: 'default' });
  });
});
