import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { HEAP_CEILING_SHARE, heapCeiling } from '../../../src/webhook/http/heap-ceiling.js';

describe('heapCeiling', () => {
  it('is 85 % of the thread heap limit, counting the bytes about to be built', () => {
    let used = 0;
    const ceiling = heapCeiling(64, () => used);
    expect(HEAP_CEILING_SHARE).toBe(0.85);
    expect(ceiling.mb).toBe(54);
    const bytes = 54 * 1024 * 1024;
    used = bytes;
    expect(ceiling.reached(0)).toBe(false);
    expect(ceiling.reached(1)).toBe(true);
    used = bytes + 1;
    expect(ceiling.reached(0)).toBe(true);
  });

  it("reads V8's heap in use by default", () => {
    const inUse = getHeapStatistics().used_heap_size;
    expect(heapCeiling(1).reached(0)).toBe(inUse > 0); // 0 MB ceiling: any heap is past it
    expect(heapCeiling(1_000_000).reached(0)).toBe(false);
  });
});
