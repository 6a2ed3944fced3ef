import { describe, expect, it } from 'vitest';
import { DeferredKeys } from './deferred-keys.js';
import { VirtualClock } from './virtual-clock.test-support.js';

describe('DeferredKeys', () => {
  it('hands each key over at its time, in time order, behind a single timer', async () => {
    const clock = new VirtualClock();
    const lifetime = new AbortController();
    const due: [string, number][] = [];
    const deferred = new DeferredKeys(
      { now: clock.now, delay: clock.delay },
      lifetime.signal,
      (key) => due.push([key, clock.now()]),
    );
    for (let i = 0; i < 1_000; i++) deferred.add(`k${String(i)}`, 3_000);
    deferred.add('late', 5_000);
    deferred.add('early', 1_000);
    deferred.add('early', 4_000);
    expect(deferred.size).toBe(1_002);
    await clock.flush();
    expect(clock.pending).toBe(1);
    await clock.advance(2_999);
    expect(due).toEqual([['early', 1_000]]);
    await clock.advance(1);
    expect(due).toHaveLength(1_001);
    expect(due[1]).toEqual(['k0', 3_000]);
    expect(deferred.has('k0')).toBe(false);
    lifetime.abort();
    await clock.advance(10_000);
    expect(due.map(([key]) => key)).not.toContain('late');
  });
});
