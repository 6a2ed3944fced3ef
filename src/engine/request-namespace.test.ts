import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import {
  resolveRequestNamespace,
  withRequestNamespace,
  type NamespaceBasis,
  type NamespaceInputs,
} from './request-namespace.js';

function manifest(apiVersion: string, kind: string, namespace?: string): JsonObject {
  return {
    apiVersion,
    kind,
    metadata: { name: 'x', ...(namespace === undefined ? {} : { namespace }) },
  };
}

const crds: NamespaceInputs['scopeOf'] = (group, kind) =>
  group === 'example.com' && kind === 'Tenant'
    ? 'Cluster'
    : group === 'example.com' && kind === 'Widget'
      ? 'Namespaced'
      : undefined;

describe('resolveRequestNamespace: kubectl’s rule, one place for every offline path', () => {
  it.each<[string, JsonObject, NamespaceInputs, string | undefined, NamespaceBasis, boolean]>([
    [
      'a Pod without a namespace lands in default',
      manifest('v1', 'Pod'),
      {},
      'default',
      'default',
      true,
    ],
    [
      '… or in the current namespace when one is set',
      manifest('v1', 'Pod'),
      { current: 'dev' },
      'dev',
      'default',
      true,
    ],
    ['a Pod keeps its own namespace', manifest('v1', 'Pod', 'shop'), {}, 'shop', 'manifest', false],
    ['a given namespace wins', manifest('v1', 'Pod'), { given: 'shop' }, 'shop', 'given', false],
    [
      'a given namespace replaces the manifest’s',
      manifest('v1', 'Pod', 'a'),
      { given: 'b' },
      'b',
      'given',
      true,
    ],
    [
      'the same namespace given is nothing assumed',
      manifest('v1', 'Pod', 'a'),
      { given: 'a' },
      'a',
      'given',
      false,
    ],
    [
      'an empty namespace given asks for cluster scope',
      manifest('example.com/v1', 'Thing'),
      { given: '' },
      undefined,
      'given-cluster-scoped',
      true,
    ],
    ['a Node never has one', manifest('v1', 'Node'), {}, undefined, 'cluster-scoped', false],
    [
      '… not even a given one',
      manifest('v1', 'Node'),
      { given: 'shop' },
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      '… nor its own (the API server clears it)',
      manifest('v1', 'Namespace', 'x'),
      {},
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      'a ClusterRole (rbac group)',
      manifest('rbac.authorization.k8s.io/v1', 'ClusterRole'),
      {},
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      'a StorageClass (storage group)',
      manifest('storage.k8s.io/v1', 'StorageClass'),
      {},
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      'the project’s ExternalDataProvider',
      manifest('api.kubemod.io/v1beta1', 'ExternalDataProvider'),
      {},
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      'the project’s ModRule is namespaced',
      manifest('api.kubemod.io/v1beta1', 'ModRule'),
      {},
      'default',
      'default',
      true,
    ],
    [
      'a Deployment (apps) is namespaced',
      manifest('apps/v1', 'Deployment'),
      {},
      'default',
      'default',
      true,
    ],
    [
      'a CRD reusing a built-in kind name in its group is namespaced',
      manifest('example.com/v1', 'Node'),
      {},
      'default',
      'default',
      true,
    ],
    [
      'an unknown custom kind is assumed namespaced',
      manifest('example.com/v1', 'Thing'),
      {},
      'default',
      'default',
      true,
    ],
    [
      'a CRD in the cluster state says Cluster',
      manifest('example.com/v1', 'Tenant'),
      { scopeOf: crds },
      undefined,
      'cluster-scoped',
      false,
    ],
    [
      'a CRD in the cluster state says Namespaced',
      manifest('example.com/v1', 'Widget', 'w'),
      { scopeOf: crds },
      'w',
      'manifest',
      false,
    ],
    [
      'an empty metadata.namespace is none',
      manifest('v1', 'ConfigMap', ''),
      {},
      'default',
      'default',
      true,
    ],
  ])('%s', (_title, object, inputs, namespace, basis, assumed) => {
    const decided = resolveRequestNamespace(object, inputs);
    expect(decided).toMatchObject({ namespace, basis, assumed });
    expect(decided.reason).not.toBe('');
  });

  it('says what it assumed, in words a user can act on', () => {
    expect(resolveRequestNamespace(manifest('v1', 'Pod')).reason).toBe(
      'no metadata.namespace: Pod (v1) is namespaced, so it is evaluated in namespace default, where kubectl would create it',
    );
    expect(resolveRequestNamespace(manifest('example.com/v1', 'Thing')).reason).toContain(
      'Thing (example.com/v1) is assumed namespaced (an unknown kind offline; give its CustomResourceDefinition in the cluster state, or an empty namespace, if it is cluster-scoped)',
    );
    expect(resolveRequestNamespace(manifest('v1', 'Pod', 'a'), { given: 'b' }).reason).toContain(
      'its metadata.namespace a is replaced',
    );
  });
});

describe('withRequestNamespace: the object as the API server hands it to the webhook', () => {
  it('fills a missing namespace in, without changing the input', () => {
    const pod = manifest('v1', 'Pod');
    expect(withRequestNamespace(pod, 'default')).toEqual(manifest('v1', 'Pod', 'default'));
    expect(pod).toEqual(manifest('v1', 'Pod'));
  });

  it('replaces a different one, removes one from a cluster-scoped object', () => {
    expect(withRequestNamespace(manifest('v1', 'Pod', 'a'), 'b')).toEqual(
      manifest('v1', 'Pod', 'b'),
    );
    expect(withRequestNamespace(manifest('v1', 'Node', 'a'), undefined)).toEqual(
      manifest('v1', 'Node'),
    );
  });

  it('returns the same object when nothing changes', () => {
    const pod = manifest('v1', 'Pod', 'a');
    expect(withRequestNamespace(pod, 'a')).toBe(pod);
    const node = manifest('v1', 'Node');
    expect(withRequestNamespace(node, undefined)).toBe(node);
    const bare: JsonObject = { kind: 'Pod' };
    expect(withRequestNamespace(bare, 'default')).toBe(bare);
  });
});
