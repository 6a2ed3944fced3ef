/**
 * The per-request trace the Go load generator writes when LOADGEN_TRACE names a file (one line per
 * answered request: send time in Unix milliseconds, latency in milliseconds, status), and the
 * latency figures of a slice of it. bench:hostile uses it to tell one-time costs (the first time
 * each hostile kind arrives) from what every further hostile request costs the normal traffic.
 */
import { readFileSync } from 'node:fs';

export interface TracedRequest {
  readonly sentAtMs: number;
  readonly latencyMs: number;
  readonly status: number;
}

export interface LatencySummary {
  readonly count: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  /** Requests slower than the `overMs` asked for. */
  readonly over: number;
}

/** Parses a trace; lines that are not three numbers are skipped. */
export function parseTrace(text: string): TracedRequest[] {
  const requests: TracedRequest[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 3) continue;
    const [sentAtMs, latencyMs, status] = fields.map(Number);
    if (sentAtMs === undefined || latencyMs === undefined || status === undefined) continue;
    if (![sentAtMs, latencyMs, status].every(Number.isFinite)) continue;
    requests.push({ sentAtMs, latencyMs, status });
  }
  return requests;
}

export function readTrace(path: string): TracedRequest[] {
  return parseTrace(readFileSync(path, 'utf8'));
}

/** Nearest-rank quantile of ascending `sorted`, as the Go generator computes its own. */
export function nearestRank(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Latency figures of the requests sent in [fromMs, toMs). */
export function summarize(
  requests: readonly TracedRequest[],
  fromMs: number,
  toMs: number,
  overMs: number,
): LatencySummary {
  const latencies = requests
    .filter((r) => r.sentAtMs >= fromMs && r.sentAtMs < toMs)
    .map((r) => r.latencyMs)
    .sort((a, b) => a - b);
  return {
    count: latencies.length,
    p99Ms: nearestRank(latencies, 0.99),
    p999Ms: nearestRank(latencies, 0.999),
    maxMs: latencies.at(-1) ?? Number.NaN,
    over: latencies.filter((ms) => ms > overMs).length,
  };
}
