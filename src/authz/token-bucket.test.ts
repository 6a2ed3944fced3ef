import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';
import { VirtualClock } from '../audit/apply-existing/virtual-clock.test-support.js';

describe('TokenBucket', () => {
  it('paces takers to the rate, in the order they asked, after a burst', async () => {
    const clock = new VirtualClock(1_000);
    const bucket = new TokenBucket({
      now: clock.now,
      delay: clock.delay,
      ratePerSecond: 4,
      burst: 2,
    });
    const signal = new AbortController().signal;
    const taken: [string, number][] = [];
    for (const who of ['a', 'b', 'c', 'd', 'e'])
      void bucket.take(signal).then(() => taken.push([who, clock.now()]));
    await clock.advance(2_000);
    expect(taken).toEqual([
      ['a', 1_000],
      ['b', 1_000],
      ['c', 1_250],
      ['d', 1_500],
      ['e', 1_750],
    ]);
    // A quiet spell refills at most `burst` tokens.
    await clock.advance(10_000);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 250]);
  });

  it('rejects a rate or burst that could never hand out a token', () => {
    const clock = new VirtualClock();
    expect(
      () => new TokenBucket({ now: clock.now, delay: clock.delay, ratePerSecond: 0, burst: 1 }),
    ).toThrow(/ratePerSecond/);
    expect(
      () => new TokenBucket({ now: clock.now, delay: clock.delay, ratePerSecond: 1, burst: 0 }),
    ).toThrow(/burst/);
  });
});
