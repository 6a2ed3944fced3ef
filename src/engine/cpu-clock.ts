/**
 * The clock of the work meter's time backstop, in milliseconds: CPU time rather than wall time,
 * so that time the evaluating thread spends preempted (a busy node, a CPU-throttled pod), or
 * waiting on I/O, does not count against a rule. What each platform offers:
 *
 * - `process.threadCpuUsage()` (Node 23.9 and later): the evaluating thread's own CPU time;
 * - `process.cpuUsage()` (Node 20, the project's runtime): the CPU time of the whole process, every
 *   thread together (garbage-collector helpers, the dry-run worker, another request's thread), so
 *   it runs faster than the thread's own time when other threads are busy: an over-estimate, which
 *   the backstop's margin absorbs (docs/hostile-input.md);
 * - `performance.now()` elsewhere (a browser running the playground): wall time.
 *
 * Work units decide every outcome; this clock only feeds the backstop that catches a bug in the
 * units (a path that forgot to charge), set far above what the unit budgets allow.
 */
export type CpuClockKind = 'thread' | 'process' | 'wall';

interface CpuUsage {
  readonly user: number;
  readonly system: number;
}

interface ProcessLike {
  readonly threadCpuUsage?: () => CpuUsage;
  readonly cpuUsage?: () => CpuUsage;
}

/** Which clock `cpuClock` uses on this platform. */
export function cpuClockKind(proc: ProcessLike | null = processOf()): CpuClockKind {
  if (typeof proc?.threadCpuUsage === 'function') return 'thread';
  if (typeof proc?.cpuUsage === 'function') return 'process';
  return 'wall';
}

/** A millisecond clock of CPU time (see above); `proc` is injected by tests (null: none). */
export function cpuClock(proc: ProcessLike | null = processOf()): () => number {
  const kind = cpuClockKind(proc);
  if (kind === 'wall' || proc === null) return () => performance.now();
  const usage = kind === 'thread' ? proc.threadCpuUsage : proc.cpuUsage;
  if (usage === undefined) return () => performance.now();
  return () => {
    const used = usage.call(proc);
    return (used.user + used.system) / 1000;
  };
}

function processOf(): ProcessLike | null {
  const value: unknown = (globalThis as { process?: unknown }).process;
  return typeof value === 'object' && value !== null ? value : null;
}
