import { describe, expect, it } from 'vitest';
import { formatSideBySide, formatWarmUp } from '../../../bench/lib/side-by-side.js';

describe('formatSideBySide', () => {
  it('takes each share against the floor of the same repetition, then the median', () => {
    // The machine halves its speed in the second repetition: both servers slow down together.
    const table = formatSideBySide(
      [
        {
          object: 'pod-2kb',
          server: 'floor',
          rps: [1000, 500, 1000],
          cpuUs: [50, 100, 50],
          errors: 0,
        },
        {
          object: 'pod-2kb',
          server: 'ours',
          rps: [600, 300, 400],
          cpuUs: [80, 160, 125],
          errors: 2,
        },
      ],
      'floor',
    );
    const ours = table.split('\n').find((line) => line.includes('| ours |'));
    // Per repetition 60 %, 60 %, 40 % of the floor's req/s; 62.5 %, 62.5 %, 40 % of its CPU.
    expect(ours).toBe(
      '| pod-2kb | ours | 400 (300–600) | 60 % (40–60 %) | 125 (80–160) | 63 % (40–63 %) | 2 |',
    );
  });

  it('gives the mean of the two middle values for an even number of repetitions', () => {
    const table = formatSideBySide(
      [
        { object: 'pod-2kb', server: 'floor', rps: [100, 100], cpuUs: [10, 10], errors: 0 },
        { object: 'pod-2kb', server: 'ours', rps: [40, 60], cpuUs: [20, 40], errors: 0 },
      ],
      'floor',
    );
    expect(table).toContain('| pod-2kb | ours | 50 (40–60) | 50 % (40–60 %) | 30 (20–40) |');
  });
});

describe('formatWarmUp', () => {
  it('prints one column per window, labelled by its end', () => {
    const table = formatWarmUp([
      { object: 'pod-2kb', server: 'ours', windowMs: 2000, cpuUs: [700.4, 180.6] },
    ]);
    expect(table.split('\n')).toEqual([
      '| object | server | 2 s | 4 s |',
      '| --- | --- | ---: | ---: |',
      '| pod-2kb | ours | 700 | 181 |',
    ]);
  });
});
