/**
 * Reading `serve`'s /metrics in the HTTP benchmarks: its size, and the event-loop lag histogram
 * (`kubemod_event_loop_lag_seconds`) when the server has one. /metrics is on the plain-HTTP
 * health port (serve --health-port), /healthz on both ports.
 */
import { get as httpGet } from 'node:http';
import { get } from 'node:https';

export const LAG_METRIC = 'kubemod_event_loop_lag_seconds';

export interface MetricsScrape {
  readonly bytes: number;
  readonly ms: number;
  readonly text: string;
}

/**
 * GET `path` on loopback over HTTPS (or plain HTTP when `secure` is false); undefined unless the
 * server answers 200 within `timeoutMs`.
 */
export function httpsGet(
  port: number,
  path: string,
  timeoutMs: number,
  secure = true,
): Promise<MetricsScrape | undefined> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: MetricsScrape | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(value);
    };
    const req = (secure ? get : httpGet)(
      { host: '127.0.0.1', port, path, agent: false, rejectUnauthorized: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          finish(
            res.statusCode === 200
              ? { bytes: body.length, ms: performance.now() - t0, text: body.toString('utf8') }
              : undefined,
          );
        });
        res.on('error', () => {
          finish(undefined);
        });
      },
    );
    const timer = setTimeout(() => {
      finish(undefined);
    }, timeoutMs);
    req.on('error', () => {
      finish(undefined);
    });
  });
}

/**
 * GET /metrics from the health port; undefined when the server does not answer 200 within
 * `timeoutMs`.
 */
export function scrapeMetrics(
  healthPort: number,
  timeoutMs: number,
): Promise<MetricsScrape | undefined> {
  return httpsGet(healthPort, '/metrics', timeoutMs, false);
}

/**
 * Polls /healthz until it answers within `quickMs` twice in a row (the server has worked off
 * what it was stuck in) or `maxMs` pass; resolves with the time waited, or undefined at the bound.
 */
export async function waitResponsive(
  port: number,
  maxMs: number,
  quickMs = 100,
): Promise<number | undefined> {
  const t0 = performance.now();
  let quick = 0;
  while (performance.now() - t0 < maxMs) {
    const answer = await httpsGet(port, '/healthz', 2000);
    quick = answer !== undefined && answer.ms < quickMs ? quick + 1 : 0;
    if (quick >= 2) return performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

/** A Prometheus histogram: cumulative bucket counts by upper bound (seconds), sum and count. */
export interface Histogram {
  readonly buckets: ReadonlyMap<number, number>;
  readonly sum: number;
  readonly count: number;
}

/** The (label-less, or first-series) histogram `name` of a metrics text; undefined if absent. */
export function parseHistogram(text: string, name: string): Histogram | undefined {
  const buckets = new Map<number, number>();
  let sum: number | undefined;
  let count: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const rest = line.slice(name.length);
    if (rest.startsWith('_bucket')) {
      const le = /le="([^"]+)"/.exec(rest)?.[1];
      if (le === undefined) continue;
      const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
      if (!buckets.has(bound)) buckets.set(bound, value);
    } else if (rest.startsWith('_sum')) {
      sum ??= value;
    } else if (rest.startsWith('_count')) {
      count ??= value;
    }
  }
  if (count === undefined || buckets.size === 0) return undefined;
  return { buckets, sum: sum ?? Number.NaN, count };
}

/** What `after` observed since `before` (the same histogram scraped twice). */
export function histogramDelta(before: Histogram | undefined, after: Histogram): Histogram {
  const buckets = new Map<number, number>();
  for (const [bound, n] of after.buckets) buckets.set(bound, n - (before?.buckets.get(bound) ?? 0));
  return {
    buckets,
    sum: after.sum - (before?.sum ?? 0),
    count: after.count - (before?.count ?? 0),
  };
}

/** Upper bound (seconds) of the bucket holding quantile `q`; NaN when empty. */
export function histogramQuantile(h: Histogram, q: number): number {
  if (h.count <= 0) return Number.NaN;
  const target = q * h.count;
  const bounds = [...h.buckets.keys()].sort((a, b) => a - b);
  for (const bound of bounds) {
    if ((h.buckets.get(bound) ?? 0) >= target) return bound;
  }
  return Number.POSITIVE_INFINITY;
}

/** Lowest bucket bound that holds every observation: an upper bound of the largest one. */
export function histogramMaxBound(h: Histogram): number {
  return histogramQuantile(h, 1);
}

/** `n` seconds as ms text (`≤ 5 ms`, `> 10,000 ms`). */
export function formatBound(seconds: number, largest: number): string {
  if (Number.isNaN(seconds)) return '–';
  if (seconds === Number.POSITIVE_INFINITY)
    return `> ${(largest * 1000).toLocaleString('en-US')} ms`;
  return `≤ ${(seconds * 1000).toLocaleString('en-US')} ms`;
}

/** The largest finite bucket bound of a histogram, in seconds. */
export function largestBound(h: Histogram): number {
  return Math.max(...[...h.buckets.keys()].filter((b) => Number.isFinite(b)));
}
