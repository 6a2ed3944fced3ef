import { describe, expect, it } from 'vitest';
import type { ClusterView, PendingAsk } from '../engine/cluster/cluster-view.js';
import type { AskResolver } from '../engine/cluster/resolve-loop.js';
import { composeAskResolvers, composeClusterView, NO_OBJECT_CACHES } from './composite-view.js';

const asker = { namespace: 'ns', name: 'r' };
const key = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' };

function recorder(): AskResolver & { got: (readonly PendingAsk[])[]; left: number[] } {
  const r = {
    got: [] as (readonly PendingAsk[])[],
    left: [] as number[],
    resolve(asks: readonly PendingAsk[], timeLeftMs: number): Promise<void> {
      r.got.push(asks);
      r.left.push(timeLeftMs);
      return Promise.resolve();
    },
  };
  return r;
}

describe('composeClusterView', () => {
  const objects: ClusterView = {
    get: () => ({ kind: 'found', value: { kind: 'ConfigMap' } }),
    external: () => ({ kind: 'absent' }),
  };
  const external = { external: () => ({ kind: 'found', value: 'ext' }) as const };

  it('routes get to the object caches and external to the providers', () => {
    const view = composeClusterView(objects, external);
    expect(view.get(asker, key)).toEqual({ kind: 'found', value: { kind: 'ConfigMap' } });
    expect(view.external(asker, 'p', 'k')).toEqual({ kind: 'found', value: 'ext' });
  });

  it('answers unavailable, naming what is missing, for a source it lacks', () => {
    const view = composeClusterView(undefined, undefined);
    expect(view.get(asker, key)).toEqual({ kind: 'unavailable', reason: NO_OBJECT_CACHES });
    expect(view.external(asker, 'p', 'k').kind).toBe('unavailable');
  });
});

describe('composeAskResolvers', () => {
  it('hands each resolver its own asks, with the same time left', async () => {
    const objects = recorder();
    const external = recorder();
    const objectAsk: PendingAsk = { type: 'object', asker, key };
    const externalAsk: PendingAsk = { type: 'external', asker, provider: 'p', key: 'k' };
    await composeAskResolvers(objects, external).resolve([externalAsk, objectAsk], 400);
    expect(objects.got).toEqual([[objectAsk]]);
    expect(external.got).toEqual([[externalAsk]]);
    expect([...objects.left, ...external.left]).toEqual([400, 400]);
    await composeAskResolvers(objects, external).resolve([externalAsk], 300);
    expect(objects.got).toHaveLength(1);
    await expect(composeAskResolvers(undefined, undefined).resolve([objectAsk], 1)).resolves.toBe(
      undefined,
    );
  });
});
