import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../observability/logger.js';
import { KubeApiError, type KubeClient, type KubeRequest } from './kube-client.js';
import { createNodeRefBinder, nodeRefPatch, stripNamespace } from './node-refs.js';

describe('node refs', () => {
  it('patches the pod with a guarded JSON patch, and ignores pods that did not opt in', async () => {
    const requests: KubeRequest[] = [];
    const state: { fail?: KubeApiError } = {};
    const client: KubeClient = {
      request: (req) => {
        requests.push(req);
        return state.fail === undefined ? Promise.resolve({}) : Promise.reject(state.fail);
      },
      list: () => Promise.reject(new Error('not used')),
      watch: () => ({ stop: () => undefined, done: Promise.resolve() }),
    };
    const binder = createNodeRefBinder(client, createSilentLogger());
    await binder.bind('a', 'p', 'n1');
    expect(requests[0]).toMatchObject({
      method: 'PATCH',
      path: '/api/v1/namespaces/a/pods/p',
      contentType: 'application/json-patch+json',
      body: nodeRefPatch('n1'),
    });
    expect(nodeRefPatch('n1')).toEqual([
      { op: 'test', path: '/metadata/annotations/ref.kubemod.io~1inject-node-ref', value: 'true' },
      { op: 'add', path: '/metadata/annotations/ref.kubemod.io~1nodename', value: 'n1' },
    ]);
    state.fail = new KubeApiError(422, 'test failed');
    await expect(binder.bind('a', 'p', 'n1')).resolves.toBeUndefined();
  });

  it('strips managedFields and last-applied-configuration from namespace manifests', () => {
    const ns = {
      kind: 'Namespace',
      metadata: {
        name: 'x',
        labels: { color: 'blue' },
        managedFields: [{ manager: 'kubectl' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
      },
    };
    expect(stripNamespace(ns)).toEqual({
      kind: 'Namespace',
      metadata: { name: 'x', labels: { color: 'blue' }, annotations: { keep: 'me' } },
    });
    expect(ns.metadata.managedFields).toHaveLength(1);
  });
});
