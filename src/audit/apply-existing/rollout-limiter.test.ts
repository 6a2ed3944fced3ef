import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.js';
import { CONFIGMAPS, DEPLOYMENTS, FakeAuditApi } from '../run/fake-audit-api.test-support.js';
import { RolloutLimiter, rolloutDone, startsRollout } from './rollout-limiter.js';
import type { TargetResource } from '../../kube/target-resources.js';
import { VirtualClock } from './virtual-clock.test-support.js';

const STATEFULSETS: TargetResource = {
  ...DEPLOYMENTS,
  resource: 'statefulsets',
  kind: 'StatefulSet',
};
const DAEMONSETS: TargetResource = { ...DEPLOYMENTS, resource: 'daemonsets', kind: 'DaemonSet' };
const REPLICASETS: TargetResource = { ...DEPLOYMENTS, resource: 'replicasets', kind: 'ReplicaSet' };

function workload(image: string, spec: JsonObject = {}): JsonObject {
  return {
    metadata: { name: 'w', namespace: 'shop' },
    spec: { ...spec, template: { spec: { containers: [{ name: 'c', image }] } } },
  };
}

describe('startsRollout', () => {
  it.each([
    ['a Deployment whose pod template changes', DEPLOYMENTS, workload('a'), workload('b'), true],
    ['a StatefulSet whose pod template changes', STATEFULSETS, workload('a'), workload('b'), true],
    ['a DaemonSet whose pod template changes', DAEMONSETS, workload('a'), workload('b'), true],
    [
      'a Deployment whose template is unchanged',
      DEPLOYMENTS,
      workload('a'),
      workload('a', { replicas: 3 }),
      false,
    ],
    [
      'a ReplicaSet (running Pods are not replaced)',
      REPLICASETS,
      workload('a'),
      workload('b'),
      false,
    ],
    ['a ConfigMap', CONFIGMAPS, { data: { a: '1' } }, { data: { a: '2' } }, false],
    ['a paused Deployment', DEPLOYMENTS, workload('a'), workload('b', { paused: true }), false],
    [
      'a StatefulSet updated OnDelete',
      STATEFULSETS,
      workload('a'),
      workload('b', { updateStrategy: { type: 'OnDelete' } }),
      false,
    ],
  ])('%s: %s', (_name, target, before, after, expected) => {
    expect(startsRollout(target, before, after)).toBe(expected);
  });
});

describe('rolloutDone', () => {
  const at = (spec: JsonObject, status: JsonObject): JsonObject => ({
    metadata: { generation: 4 },
    spec,
    status,
  });
  it.each([
    [
      'Deployment',
      at(
        { replicas: 2 },
        { observedGeneration: 4, replicas: 2, updatedReplicas: 2, readyReplicas: 2 },
      ),
      true,
    ],
    [
      'Deployment',
      at(
        { replicas: 2 },
        { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2 },
      ),
      false,
    ],
    [
      'Deployment',
      at(
        { replicas: 2 },
        { observedGeneration: 4, replicas: 3, updatedReplicas: 2, readyReplicas: 2 },
      ),
      false,
    ],
    [
      'Deployment',
      at({}, { observedGeneration: 4, replicas: 1, updatedReplicas: 1, readyReplicas: 0 }),
      false,
    ],
    ['Deployment', at({ replicas: 0 }, { observedGeneration: 4 }), true],
    [
      'StatefulSet',
      at({ replicas: 3 }, { observedGeneration: 4, updatedReplicas: 3, readyReplicas: 3 }),
      true,
    ],
    [
      'StatefulSet',
      at({ replicas: 3 }, { observedGeneration: 4, updatedReplicas: 1, readyReplicas: 3 }),
      false,
    ],
    [
      'DaemonSet',
      at(
        {},
        {
          observedGeneration: 4,
          desiredNumberScheduled: 5,
          updatedNumberScheduled: 5,
          numberReady: 5,
        },
      ),
      true,
    ],
    [
      'DaemonSet',
      at(
        {},
        {
          observedGeneration: 4,
          desiredNumberScheduled: 5,
          updatedNumberScheduled: 5,
          numberReady: 4,
        },
      ),
      false,
    ],
  ])('%s %j: %s', (kind, object, expected) => {
    expect(rolloutDone(kind, object)).toBe(expected);
  });
});

describe('RolloutLimiter', () => {
  function setup(): { api: FakeAuditApi; clock: VirtualClock; limiter: RolloutLimiter } {
    const api = new FakeAuditApi();
    const clock = new VirtualClock();
    const limiter = new RolloutLimiter({
      now: clock.now,
      delay: clock.delay,
      api,
      maxPerNamespace: 1,
      timeoutMs: 60_000,
      pollMs: 1_000,
    });
    return { api, clock, limiter };
  }
  const named = (name: string, namespace = 'shop', spec: JsonObject = {}): JsonObject => ({
    metadata: { name, namespace, generation: 2 },
    spec: { replicas: 1, ...spec },
  });

  it('holds a second rollout of a namespace until the first is done, other namespaces not', async () => {
    const { api, clock, limiter } = setup();
    const signal = new AbortController().signal;
    api.add(DEPLOYMENTS, named('one'));
    const releaseOne = await limiter.acquire(DEPLOYMENTS, named('one'), signal);
    releaseOne(named('one'));
    let second: number | undefined;
    void limiter.acquire(DEPLOYMENTS, named('two'), signal).then(() => (second = clock.now()));
    const elsewhere = await limiter.acquire(DEPLOYMENTS, named('x', 'other'), signal);
    elsewhere(undefined);
    await clock.advance(5_000);
    expect(second).toBeUndefined();
    api.touch(DEPLOYMENTS, 'shop', 'one', (o) => {
      o.status = { observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1 };
    });
    await clock.advance(1_000);
    expect(second).toBe(6_000);
    expect(limiter.count('shop')).toBe(1);
  });

  it('stops counting a rollout at its deadline (no kubelet: Pods never get ready), or when the write failed', async () => {
    const { api, clock, limiter } = setup();
    const signal = new AbortController().signal;
    const one = named('one', 'shop', { progressDeadlineSeconds: 20 });
    api.add(DEPLOYMENTS, one);
    (await limiter.acquire(DEPLOYMENTS, one, signal))(one);
    let second: number | undefined;
    void limiter.acquire(DEPLOYMENTS, named('two'), signal).then((release) => {
      second = clock.now();
      release(undefined);
    });
    await clock.until(() => second !== undefined, 120_000, 1_000);
    // The Deployment's 20 s progress deadline is shorter than the 60 s bound.
    expect(second).toBe(20_000);
    expect(limiter.count('shop')).toBe(0);
  });
});
