import { getHeapStatistics } from 'node:v8';

export interface Measurement<T> {
  readonly value: T;
  /** Longest gap between two 5 ms heartbeats while the work ran: the event-loop stall. */
  readonly blockedMs: number;
  /** Wall time of the work. */
  readonly wallMs: number;
  /** Peak heap in use while the work ran minus the heap in use before, in MB. */
  readonly heapGrowthMb: number;
}

const HEARTBEAT_MS = 5;
const MB = 1024 * 1024;

/**
 * Runs `work` while a 5 ms heartbeat watches the event loop of this process. The webhook server
 * under test runs in this process, so any time it spends blocked shows up as a heartbeat gap.
 * Build hostile inputs before calling this and parse large answers after it returns: the
 * heartbeat counts the test's own synchronous work too.
 */
export async function measure<T>(work: () => Promise<T>): Promise<Measurement<T>> {
  const heapBefore = getHeapStatistics().used_heap_size;
  let heapPeak = heapBefore;
  let blockedMs = 0;
  const started = performance.now();
  let last = started;
  const beat = (): void => {
    const now = performance.now();
    blockedMs = Math.max(blockedMs, now - last);
    last = now;
    heapPeak = Math.max(heapPeak, getHeapStatistics().used_heap_size);
  };
  const timer = setInterval(beat, HEARTBEAT_MS);
  let value: T;
  try {
    value = await work();
  } finally {
    clearInterval(timer);
    beat();
  }
  return {
    value,
    blockedMs,
    wallMs: performance.now() - started,
    heapGrowthMb: (heapPeak - heapBefore) / MB,
  };
}
