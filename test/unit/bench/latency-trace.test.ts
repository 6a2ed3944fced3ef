import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nearestRank, parseTrace, summarize } from '../../../bench/lib/latency-trace.js';

describe('the load generator trace', () => {
  it('parses the lines the Go generator writes and skips anything else', () => {
    const text = '1700000000000.125 0.812 200\n\ngarbage\n1700000000002.000 12.5 200\n1 2\n';
    expect(parseTrace(text)).toEqual([
      { sentAtMs: 1700000000000.125, latencyMs: 0.812, status: 200 },
      { sentAtMs: 1700000000002, latencyMs: 12.5, status: 200 },
    ]);
  });

  it('computes nearest-rank quantiles as the generator does', () => {
    const sorted = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(nearestRank(sorted, 0.99)).toBe(990);
    expect(nearestRank(sorted, 0.999)).toBe(999);
    expect(nearestRank([5], 0.99)).toBe(5);
    expect(nearestRank([], 0.99)).toBeNaN();
  });

  it('summarizes only the requests sent inside the window', () => {
    const requests = [
      { sentAtMs: 0, latencyMs: 500, status: 200 },
      ...Array.from({ length: 200 }, (_, i) => ({ sentAtMs: 100 + i, latencyMs: 1, status: 200 })),
      { sentAtMs: 250, latencyMs: 20, status: 200 },
      { sentAtMs: 400, latencyMs: 900, status: 200 },
    ];
    expect(summarize(requests, 100, 400, 10)).toEqual({
      count: 201,
      p99Ms: 1,
      p999Ms: 20,
      maxMs: 20,
      over: 1,
    });
  });

  it('never reports a quantile outside the latencies it was given', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (latencies, q) => {
          const sorted = [...latencies].sort((a, b) => a - b);
          const value = nearestRank(sorted, q);
          expect(latencies).toContain(value);
          expect(sorted.filter((l) => l < value).length).toBeLessThanOrEqual(q * sorted.length);
        },
      ),
    );
  });
});
