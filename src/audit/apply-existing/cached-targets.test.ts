import { describe, expect, it } from 'vitest';
import { createCachedTargets } from './cached-targets.js';
import { CONFIGMAPS, DEPLOYMENTS } from '../run/fake-audit-api.test-support.js';
import type { TargetResource } from '../../kube/target-resources.js';

describe('createCachedTargets', () => {
  it('sweeps once per TTL, shares a sweep under way, and sweeps again after an error or invalidate', async () => {
    let time = 0;
    let sweeps = 0;
    let fail = false;
    let answer: readonly TargetResource[] = [DEPLOYMENTS];
    const cache = createCachedTargets({
      ttlMs: 60_000,
      now: () => time,
      load: () => {
        sweeps++;
        return fail ? Promise.reject(new Error('discovery down')) : Promise.resolve(answer);
      },
    });
    const [first, second] = await Promise.all([cache.get(), cache.get()]);
    expect(first).toEqual([DEPLOYMENTS]);
    expect(second).toBe(first);
    time = 59_999;
    await cache.get();
    expect(sweeps).toBe(1);

    time = 60_000;
    answer = [DEPLOYMENTS, CONFIGMAPS];
    fail = true;
    await expect(cache.get()).rejects.toThrow(/discovery down/);
    fail = false;
    expect(await cache.get()).toEqual([DEPLOYMENTS, CONFIGMAPS]);
    expect(sweeps).toBe(3);

    answer = [CONFIGMAPS];
    cache.invalidate();
    expect(await cache.get()).toEqual([CONFIGMAPS]);
    expect(await cache.get()).toEqual([CONFIGMAPS]);
    expect(sweeps).toBe(4);
  });
});
