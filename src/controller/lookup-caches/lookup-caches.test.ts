import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../observability/logger.js';
import type { KubeObject } from '../../kube/informer.js';
import { scriptedSources } from './lookup-caches.test-support.js';
import { compactForLookup, LAST_APPLIED_ANNOTATION } from './compact-object.js';
import { createLookupCaches, type LookupCaches } from './lookup-caches.js';
import { parseLookupKinds, type LookupKind } from './lookup-kinds.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function cm(namespace: string, name: string, data: Record<string, string> = {}): KubeObject {
  return {
    metadata: {
      name,
      namespace,
      resourceVersion: '1',
      managedFields: [{ manager: 'kubectl' }],
      annotations: { [LAST_APPLIED_ANNOTATION]: '{"big":"copy"}', keep: 'me' },
    },
    data,
  };
}

async function started(
  spec: string,
  objects: Record<string, KubeObject[]>,
  forbidden: string[] = [],
): Promise<{ caches: LookupCaches; finish: (kind: string) => void }> {
  const sources = scriptedSources(objects);
  const caches = createLookupCaches({
    client: undefined as never,
    kinds: parseLookupKinds(spec),
    logger: createSilentLogger(),
    delay: () => Promise.resolve(),
    listWatch: sources.listWatch,
    mayWatch: (kind) => Promise.resolve(!forbidden.includes(kind.kind)),
  });
  await caches.start();
  return { caches, finish: sources.finish };
}

describe('compactForLookup', () => {
  it('drops managedFields and the last-applied copy, sets apiVersion and kind, freezes', () => {
    const [kind] = parseLookupKinds('ConfigMap');
    const out = compactForLookup(kind as LookupKind)(cm('a', 'x', { k: 'v' }));
    expect(out).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'a', resourceVersion: '1', annotations: { keep: 'me' } },
      data: { k: 'v' },
    });
    expect(Object.isFrozen(out.data)).toBe(true);
  });

  it('keeps only metadata for a metadata-only kind', () => {
    const [kind] = parseLookupKinds('ReplicaSet:metadata');
    const rs = { ...cm('a', 'rs'), kind: 'PartialObjectMetadata', spec: { replicas: 3 } };
    const out = compactForLookup(kind as LookupKind)(rs);
    expect(Object.keys(out)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(out.kind).toBe('ReplicaSet');
    expect(out.apiVersion).toBe('apps/v1');
  });
});

describe('createLookupCaches', () => {
  it('is not synced until every permitted kind has listed; forbidden kinds do not hold it', async () => {
    const { caches, finish } = await started(
      'ConfigMap,Deployment,Secret',
      { ConfigMap: [cm('a', 'x')] },
      ['Secret'],
    );
    expect(caches.synced()).toBe(false);
    expect(caches.read('v1', 'ConfigMap', 'a', 'x').state).toBe('syncing');
    finish('ConfigMap');
    await tick();
    expect(caches.synced()).toBe(false);
    finish('Deployment');
    await caches.waitForSync();
    expect(caches.synced()).toBe(true);
    expect(caches.sizes()).toEqual({ ConfigMap: 1, Deployment: 0 });
    expect(caches.read('v1', 'Secret', 'a', 'x').state).toBe('forbidden');
  });

  it('reads by apiVersion, kind, namespace and name', async () => {
    const { caches, finish } = await started('ConfigMap,Deployment', {
      ConfigMap: [cm('a', 'x', { k: 'v' })],
    });
    finish('ConfigMap');
    finish('Deployment');
    await caches.waitForSync();
    const hit = caches.read('v1', 'ConfigMap', 'a', 'x');
    expect(hit.state === 'ready' && hit.object?.data).toEqual({ k: 'v' });
    const miss = caches.read('v1', 'ConfigMap', 'b', 'x');
    expect(miss.state === 'ready' && miss.object).toBeUndefined();
    expect(caches.read('v1', 'Service', 'a', 'x').state).toBe('not-cached');
    expect(caches.read('apps/v1beta1', 'Deployment', 'a', 'x')).toEqual({
      state: 'other-version',
      cachedAs: 'apps/v1',
    });
    expect(caches.read('extensions/v1', 'Deployment', 'a', 'x').state).toBe('not-cached');
  });

  it('with no kinds is synced at once', async () => {
    const { caches } = await started('', {});
    await caches.waitForSync();
    expect(caches.synced()).toBe(true);
  });
});
