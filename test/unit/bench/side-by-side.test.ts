import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  formatSideBySide,
  formatWarmUp,
  sideBySide,
  type BenchServer,
} from '../../../bench/lib/side-by-side.js';
import type { LoadReport, LoadSpec } from '../../../bench/lib/load-spec.js';

describe('sideBySide together rounds', () => {
  it('loads every server at once, one round per object and repetition', async () => {
    // Stand-ins: this process as every server's process (its CPU is read from /proc), ports 1–3.
    const servers: BenchServer[] = [1, 2, 3].map((port) => ({
      label: `s${String(port)}`,
      process: { pid: process.pid } as ChildProcess,
      port,
    }));
    let inFlight = 0;
    const peaks: number[] = [];
    const load = async (spec: LoadSpec): Promise<LoadReport> => {
      inFlight += 1;
      peaks.push(inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      const requests = 100 * spec.port;
      const report = { requests, errors: 0, non200: 0, elapsedMs: spec.durationMs };
      return { ...report, requestsPerSecond: requests, p50Ms: 1, p90Ms: 1, p99Ms: 1, maxMs: 1 };
    };
    const result = await sideBySide({
      servers,
      objects: ['pod-2kb', 'deployment-10kb'],
      reps: 0,
      durationMs: 10,
      warmUp: { windows: 0, windowMs: 10 },
      together: { reps: 2, durationMs: 10 },
      load,
    });
    // Each round starts all three loads before any ends.
    expect(Math.max(...peaks)).toBe(3);
    expect(result.rows).toEqual([]);
    expect(result.together.map((row) => [row.object, row.server, row.rps])).toEqual([
      ['pod-2kb', 's1', [100, 100]],
      ['pod-2kb', 's2', [200, 200]],
      ['pod-2kb', 's3', [300, 300]],
      ['deployment-10kb', 's1', [100, 100]],
      ['deployment-10kb', 's2', [200, 200]],
      ['deployment-10kb', 's3', [300, 300]],
    ]);
    for (const row of result.together) expect(row.cpuUs.every(Number.isFinite)).toBe(true);
  });
});

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
