import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../observability/logger.js';
import type { JsonObject } from '../engine/json.js';
import { KubeApiError, type KubeClient, type KubeRequest } from '../kube/kube-client.js';
import { createNodeRefBinder, nodeRefPatch, stripNamespace } from './node-refs.js';

describe('node refs', () => {
  /** A client whose GETs answer `pods` one after another (the last one repeats). */
  function fakeClient(pods: (JsonObject | KubeApiError)[]): {
    client: KubeClient;
    requests: KubeRequest[];
  } {
    const requests: KubeRequest[] = [];
    let gets = 0;
    const client: KubeClient = {
      request: (req) => {
        requests.push(req);
        if (req.method !== 'GET') return Promise.resolve({});
        const answer = pods[Math.min(gets, pods.length - 1)];
        gets += 1;
        return answer instanceof KubeApiError || answer === undefined
          ? Promise.reject(answer ?? new Error('no answer'))
          : Promise.resolve(answer);
      },
      list: () => Promise.reject(new Error('not used')),
      watch: () => ({ stop: () => undefined, done: Promise.resolve() }),
    };
    return { client, requests };
  }

  const timing = { delaysMs: [0, 10, 20], sleep: () => Promise.resolve(), maxInFlight: 4 };

  function livePod(optIn: boolean, nodeName?: string): JsonObject {
    return {
      metadata: { annotations: optIn ? { 'ref.kubemod.io/inject-node-ref': 'true' } : {} },
      spec: nodeName === undefined ? {} : { nodeName },
    };
  }

  it('patches the pod with a patch that tests the opt-in and the bound node', async () => {
    const { client, requests } = fakeClient([livePod(true, 'n1')]);
    await createNodeRefBinder(client, createSilentLogger(), timing).bind('a', 'p', 'n1');
    expect(requests.map((r) => r.method)).toEqual(['GET', 'PATCH']);
    expect(requests[1]).toMatchObject({
      method: 'PATCH',
      path: '/api/v1/namespaces/a/pods/p',
      contentType: 'application/json-patch+json',
      body: nodeRefPatch('n1'),
    });
    expect(nodeRefPatch('n1')).toEqual([
      { op: 'test', path: '/metadata/annotations/ref.kubemod.io~1inject-node-ref', value: 'true' },
      { op: 'test', path: '/spec/nodeName', value: 'n1' },
      { op: 'add', path: '/metadata/annotations/ref.kubemod.io~1nodename', value: 'n1' },
    ]);
  });

  it('waits for the binding to be stored, then annotates', async () => {
    const { client, requests } = fakeClient([livePod(true), livePod(true), livePod(true, 'n1')]);
    await createNodeRefBinder(client, createSilentLogger(), timing).bind('a', 'p', 'n1');
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'PATCH']);
  });

  it.each([
    ['the pod did not opt in', [livePod(false, 'n1')], ['GET']],
    ['the pod is bound to another node (forged review)', [livePod(true, 'n2')], ['GET']],
    ['the pod is never bound (forged review)', [livePod(true)], ['GET', 'GET', 'GET']],
    ['the pod is gone', [new KubeApiError(404, 'not found')], ['GET']],
  ])('writes nothing when %s', async (_case, pods, methods) => {
    const { client, requests } = fakeClient(pods);
    await createNodeRefBinder(client, createSilentLogger(), timing).bind('a', 'p', 'n1');
    expect(requests.map((r) => r.method)).toEqual(methods);
  });

  it('keeps names from a review inside the pod path', async () => {
    const { client, requests } = fakeClient([livePod(false)]);
    await createNodeRefBinder(client, createSilentLogger(), timing).bind('a', '../../x', 'n1');
    expect(requests[0]?.path).toBe('/api/v1/namespaces/a/pods/..%2F..%2Fx');
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
