import { getHeapStatistics } from 'node:v8';
import type { HeapCeiling } from '../../engine/work-limits.js';

/** Share of the thread's old-generation limit at which a dry run is stopped by its meter. */
export const HEAP_CEILING_SHARE = 0.85;

/**
 * The heap ceiling of a dry-run worker thread whose V8 old generation is capped at `heapMb`. The
 * work meter looks at it every few thousand units and before building one large value, and stops
 * the dry run with WORK_LIMIT while the heap is still below V8's own limit: reaching that limit
 * is meant to stop only the thread, but Node 24 sometimes aborts the whole process instead
 * ("FATAL ERROR: Reached heap limit"). The heap in use counts garbage not yet collected, so the
 * ceiling can be reached a little early by a dry run whose live data is close to it; the V8 limit
 * stays as the backstop for memory the meter does not see.
 *
 * `usedBytes` is injected for tests; it defaults to V8's used heap size (about 0.25 µs a call).
 */
export function heapCeiling(
  heapMb: number,
  usedBytes: () => number = () => getHeapStatistics().used_heap_size,
): HeapCeiling {
  const mb = Math.floor(heapMb * HEAP_CEILING_SHARE);
  const bytes = mb * 1024 * 1024;
  return {
    mb,
    reached: (extraBytes: number): boolean => usedBytes() + extraBytes > bytes,
  };
}
