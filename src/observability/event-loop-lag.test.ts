import { describe, expect, it } from 'vitest';
import { REAL_LAG_TIMERS, startEventLoopLagSampler, type LagTimers } from './event-loop-lag.js';
import { createMetrics } from './metrics.js';

/** A clock and a one-slot timer under the test's control. */
function fakeTimers(): LagTimers & {
  advance(ms: number): void;
  fire(): void;
  armed(): number;
} {
  let now = 1000;
  let pending: { callback: () => void; ms: number } | undefined;
  let scheduled = 0;
  return {
    now: () => now,
    schedule(callback, ms) {
      scheduled++;
      const entry = { callback, ms };
      pending = entry;
      return {
        cancel: () => {
          if (pending === entry) pending = undefined;
        },
      };
    },
    advance(ms) {
      now += ms;
    },
    fire() {
      const entry = pending;
      pending = undefined;
      entry?.callback();
    },
    armed: () => (pending === undefined ? 0 : scheduled),
  };
}

describe('startEventLoopLagSampler', () => {
  it('records how late each timer ran, in seconds, and re-arms until stopped', () => {
    const timers = fakeTimers();
    const samples: number[] = [];
    const sampler = startEventLoopLagSampler({
      observe: (s) => samples.push(s),
      intervalMs: 50,
      timers,
    });
    expect(timers.armed()).toBe(1);
    timers.advance(50); // on time
    timers.fire();
    timers.advance(50 + 1500); // the loop was held for 1.5 s
    timers.fire();
    timers.advance(40); // early (coarse timers): never negative
    timers.fire();
    expect(samples).toEqual([0, 1.5, 0]);
    expect(timers.armed()).toBe(4);
    sampler.stop();
    expect(timers.armed()).toBe(0);
    timers.fire();
    expect(samples).toHaveLength(3);
    sampler.stop(); // idempotent
  });

  it('feeds kubemod_event_loop_lag_seconds with buckets from 1 ms to 10 s', async () => {
    const metrics = createMetrics();
    const timers = fakeTimers();
    const sampler = startEventLoopLagSampler({
      observe: (s) => {
        metrics.observeEventLoopLag(s);
      },
      intervalMs: 10,
      timers,
    });
    timers.advance(10 + 3);
    timers.fire();
    timers.advance(10 + 12_000);
    timers.fire();
    sampler.stop();
    const text = await metrics.render();
    expect(text).toContain('# TYPE kubemod_event_loop_lag_seconds histogram');
    expect(text).toContain('kubemod_event_loop_lag_seconds_bucket{le="0.001"} 0');
    expect(text).toContain('kubemod_event_loop_lag_seconds_bucket{le="0.005"} 1');
    expect(text).toContain('kubemod_event_loop_lag_seconds_bucket{le="10"} 1');
    expect(text).toContain('kubemod_event_loop_lag_seconds_bucket{le="+Inf"} 2');
    expect(text).toContain('kubemod_event_loop_lag_seconds_count 2');
  });

  it('runs on real, unref’d timers and measures a blocked loop', async () => {
    const samples: number[] = [];
    const sampler = startEventLoopLagSampler({
      observe: (s) => samples.push(s),
      intervalMs: 5,
      timers: REAL_LAG_TIMERS,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // hold the event loop
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    sampler.stop();
    expect(samples.length).toBeGreaterThan(1);
    expect(Math.max(...samples)).toBeGreaterThan(0.04);
  });
});
