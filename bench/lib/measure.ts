/** Tiny, dependency-free micro-benchmark helpers: per-call latencies, percentiles, environment. */
import os from 'node:os';

export interface Stats {
  readonly name: string;
  readonly iterations: number;
  readonly medianUs: number;
  readonly p99Us: number;
  readonly opsPerSec: number;
}

/**
 * Runs `fn` for a warm-up period, then times `samples` batches of `batch` calls each and reports the
 * per-call median and p99 of the batch averages (batching keeps timer overhead out of µs figures).
 */
export function measure(
  name: string,
  fn: () => unknown,
  options: { samples?: number; batch?: number; warmupMs?: number } = {},
): Stats {
  const samples = options.samples ?? 2000;
  const batch = options.batch ?? 10;
  const warmupEnd = performance.now() + (options.warmupMs ?? 300);
  while (performance.now() < warmupEnd) fn();
  const perCall: number[] = [];
  const started = process.hrtime.bigint();
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    perCall.push(Number(process.hrtime.bigint() - t0) / 1000 / batch);
  }
  const totalSec = Number(process.hrtime.bigint() - started) / 1e9;
  perCall.sort((a, b) => a - b);
  return {
    name,
    iterations: samples * batch,
    medianUs: percentile(perCall, 0.5),
    p99Us: percentile(perCall, 0.99),
    opsPerSec: (samples * batch) / totalSec,
  };
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function environment(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `Node ${process.version}, ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.arch()}`;
}

export function formatTable(rows: readonly Stats[]): string {
  const lines = ['| scenario | median µs | p99 µs | ops/s |', '| --- | ---: | ---: | ---: |'];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.medianUs.toFixed(2)} | ${r.p99Us.toFixed(2)} | ${Math.round(r.opsPerSec).toLocaleString('en-US')} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Times every call on its own with `process.hrtime.bigint()` (so p99 is a real per-call p99,
 * garbage-collection pauses included) after a warm-up, until `maxSamples` calls or `maxMs`.
 */
export function measurePerCall(
  name: string,
  fn: () => unknown,
  options: { maxSamples?: number; maxMs?: number; warmupMs?: number } = {},
): Stats {
  const maxSamples = options.maxSamples ?? 20_000;
  const warmupEnd = performance.now() + (options.warmupMs ?? 500);
  while (performance.now() < warmupEnd) fn();
  const perCall = new Float64Array(maxSamples);
  const deadline = process.hrtime.bigint() + BigInt(Math.round((options.maxMs ?? 3000) * 1e6));
  const started = process.hrtime.bigint();
  let n = 0;
  let t0 = started;
  while (n < maxSamples) {
    fn();
    const t1 = process.hrtime.bigint();
    perCall[n++] = Number(t1 - t0) / 1000;
    t0 = t1;
    if (t1 > deadline) break;
  }
  const totalSec = Number(t0 - started) / 1e9;
  const sorted = Array.from(perCall.subarray(0, n)).sort((a, b) => a - b);
  return {
    name,
    iterations: n,
    medianUs: percentile(sorted, 0.5),
    p99Us: percentile(sorted, 0.99),
    opsPerSec: n / totalSec,
  };
}
