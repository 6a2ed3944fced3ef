import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../observability/logger.js';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { LeaderElector } from './leader-election.js';

const LEASE =
  '/apis/coordination.k8s.io/v1/namespaces/kubemod-system/leases/kubemod-operator-leader';

function elector(kube: FakeKube, identity: string, clock: { now: number }): LeaderElector {
  return new LeaderElector({
    client: kube,
    logger: createSilentLogger(),
    namespace: 'kubemod-system',
    name: 'kubemod-operator-leader',
    identity,
    now: () => clock.now,
    delay: () => new Promise(() => undefined),
    leaseDurationMs: 15_000,
  });
}

describe('LeaderElector', () => {
  it('creates the Lease, renews it, and keeps a second candidate out until it expires', async () => {
    const kube = new FakeKube();
    const clock = { now: 1_000_000 };
    const a = elector(kube, 'a', clock);
    const b = elector(kube, 'b', clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.now += 5_000;
    expect(await a.tryAcquireOrRenew()).toBe(true);
    // b saw a new record at this time: it waits a full lease duration from now.
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.now += 14_000;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.now += 1_000;
    expect(await b.tryAcquireOrRenew()).toBe(true);
    const spec = kube.objects.get(LEASE)?.spec as {
      holderIdentity: string;
      leaseTransitions: number;
    };
    expect(spec.holderIdentity).toBe('b');
    expect(spec.leaseTransitions).toBe(1);
    // a is now out.
    expect(await a.tryAcquireOrRenew()).toBe(false);
  });

  it('loses a race on the resourceVersion instead of both winning', async () => {
    const kube = new FakeKube();
    const clock = { now: 0 };
    const a = elector(kube, 'a', clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    const b = elector(kube, 'b', clock);
    const c = elector(kube, 'c', clock);
    await b.tryAcquireOrRenew();
    await c.tryAcquireOrRenew();
    clock.now += 16_000;
    const results = await Promise.all([b.tryAcquireOrRenew(), c.tryAcquireOrRenew()]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('releases the Lease on stop so another replica takes over without waiting', async () => {
    const kube = new FakeKube();
    const clock = { now: 0 };
    let stopped = 0;
    const a = new LeaderElector({
      client: kube,
      logger: createSilentLogger(),
      namespace: 'kubemod-system',
      name: 'kubemod-operator-leader',
      identity: 'a',
      now: () => clock.now,
      delay: () => new Promise(() => undefined),
      onStoppedLeading: () => {
        stopped++;
      },
    });
    a.start();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.isLeader).toBe(true);
    await a.stop();
    expect(stopped).toBe(1);
    const b = elector(kube, 'b', clock);
    expect(await b.tryAcquireOrRenew()).toBe(true);
  });

  it('does not lead while the API server is unreachable', async () => {
    const kube = new FakeKube();
    kube.down = true;
    expect(await elector(kube, 'a', { now: 0 }).tryAcquireOrRenew()).toBe(false);
  });
});
