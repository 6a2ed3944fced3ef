import { describe, expect, it } from 'vitest';
import {
  floorMemoryLines,
  processMemory,
  type FloorMemoryResult,
  type ProcessMemory,
} from '../../../bench/lib/floor-memory.js';
import type { MemorySnapshot, TrafficResult } from '../../../bench/lib/operator-traffic.js';

const STATUS = [
  'Name:\tnode',
  'VmRSS:\t  131072 kB',
  'RssAnon:\t   81920 kB',
  'RssFile:\t   49152 kB',
];

const SMAPS = [
  '00400000-00800000 r-xp 00000000 08:01 123 /usr/bin/node',
  'Rss:               40960 kB',
  '01000000-03000000 rw-p 00000000 00:00 0                                  [heap]',
  'Rss:               20480 kB',
  '7f0000000000-7f0001000000 rw-p 00000000 00:00 0 ',
  'Rss:               10240 kB',
  '7f0002000000-7f0002800000 rw-p 00000000 00:00 0                          [heap]',
  'Rss:                1024 kB',
];

describe('processMemory', () => {
  it('reads VmRSS, RssAnon, RssFile and the [heap] mappings of the given pid', () => {
    const read = (path: string): string => {
      if (path === '/proc/42/status') return STATUS.join('\n');
      if (path === '/proc/42/smaps') return SMAPS.join('\n');
      throw new Error(`unexpected read of ${path}`);
    };
    expect(processMemory(42, read)).toEqual({
      rssMb: 128,
      rssAnonMb: 80,
      rssFileMb: 48,
      mallocHeapMb: 21,
    });
  });

  it('gives NaN, not zero, for a process whose /proc cannot be read', () => {
    const m = processMemory(42, () => '');
    expect(Number.isNaN(m.rssMb)).toBe(true);
    expect(Number.isNaN(m.rssAnonMb)).toBe(true);
    expect(m.mallocHeapMb).toBe(0);
  });

  it.runIf(process.platform === 'linux')('reads a live process (this one)', () => {
    const m = processMemory(process.pid);
    expect(m.rssMb).toBeGreaterThan(10);
    expect(m.rssAnonMb + m.rssFileMb).toBeGreaterThan(m.rssMb * 0.9);
  });
});

function memory(rssMb: number): ProcessMemory {
  return { rssMb, rssAnonMb: rssMb - 50, rssFileMb: 50, mallocHeapMb: 10 };
}

function snapshot(rssMb: number): MemorySnapshot {
  return {
    rssMb,
    heapTotalMb: 40,
    heapUsedMb: 28,
    externalMb: 5,
    arrayBuffersMb: 1,
    rssAnonMb: rssMb - 54,
    rssFileMb: 54,
    rssShmemMb: 0,
    peakRssMb: rssMb,
    anonHugePagesMb: 0,
    spacesMb: {},
    mappingsMb: [],
  };
}

describe('floorMemoryLines', () => {
  const floor: FloorMemoryResult = {
    rows: [
      {
        object: 'pod-2kb',
        requests: 1000,
        errors: 0,
        non200: 0,
        requestsPerSecond: 200,
        p99Ms: 1,
      },
    ],
    atReady: memory(60),
    afterTraffic: memory(143),
    afterIdle: memory(125),
  };

  it('prints the floor at each moment and the operator beyond it at the same moments', () => {
    const operator: TrafficResult = {
      durationMs: 5000,
      rows: [],
      beforeTraffic: snapshot(116),
      afterTraffic: snapshot(184),
      afterIdle: snapshot(170),
      afterGc: snapshot(169),
    };
    const lines = floorMemoryLines(floor, operator);
    expect(lines).toContain('  pod-2kb: 200 req/s, 1000 requests');
    expect(lines).toContain('  RSS at ready 60 MiB (anon 10, of which malloc heap 10; file 50)');
    expect(lines.at(-1)).toBe(
      "operator's RSS beyond the floor: before traffic +56 MiB, right after it +41 MiB, after idle +45 MiB",
    );
  });

  it('prints the floor alone when the operator sent no traffic report', () => {
    const lines = floorMemoryLines(floor);
    expect(lines.some((l) => l.includes('beyond the floor'))).toBe(false);
    expect(lines.at(-1)).toBe(
      '  after 5 s idle 125 MiB (anon 75, of which malloc heap 10; file 50)',
    );
  });
});
