/**
 * A small HTTPS load generator, run as its own process (so its CPU use does not compete with the
 * server's event loop in-process). Loopback only; bounded by request count and time.
 *
 *   node --import tsx bench/lib/load-generator.ts '<json LoadSpec>'
 *
 * Prints one JSON LoadReport line on stdout.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

export interface LoadSpec {
  readonly port: number;
  readonly path: string;
  readonly method: 'POST' | 'PUT';
  /** File whose content is sent as the body of every request. */
  readonly bodyFile: string;
  /** closed: `concurrency` requests always in flight; open: `rate` requests per second regardless of answers. */
  readonly mode: 'closed' | 'open';
  readonly concurrency?: number;
  readonly rate?: number;
  readonly durationMs: number;
  readonly maxRequests: number;
}

export interface LoadReport {
  readonly requests: number;
  readonly errors: number;
  readonly non200: number;
  readonly elapsedMs: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const LOOPBACK = '127.0.0.1';

export async function runLoad(spec: LoadSpec): Promise<LoadReport> {
  const body = readFileSync(spec.bodyFile);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: spec.concurrency ?? 32,
    rejectUnauthorized: false,
  });
  const latencies: number[] = [];
  let errors = 0;
  let non200 = 0;
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + spec.durationMs;

  /** One request; latency is measured from `scheduledAt` (open loop: no coordinated omission). */
  const fire = (scheduledAt: number): Promise<void> =>
    new Promise((resolve) => {
      started++;
      const req = request(
        {
          host: LOOPBACK,
          port: spec.port,
          path: spec.path,
          method: spec.method,
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) non200++;
            latencies.push(performance.now() - scheduledAt);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });

  if (spec.mode === 'closed') {
    const worker = async (): Promise<void> => {
      while (performance.now() < deadline && started < spec.maxRequests)
        await fire(performance.now());
    };
    await Promise.all(Array.from({ length: spec.concurrency ?? 16 }, worker));
  } else {
    const rate = spec.rate ?? 100;
    const inflight = new Set<Promise<void>>();
    while (performance.now() < deadline && started < spec.maxRequests) {
      const now = performance.now();
      const due = Math.min(Math.floor(((now - t0) / 1000) * rate), spec.maxRequests);
      while (started < due) {
        const scheduledAt = t0 + (started / rate) * 1000;
        const p = fire(scheduledAt);
        inflight.add(p);
        void p.then(() => inflight.delete(p));
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
  }
  const elapsedMs = performance.now() - t0;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ??
    Number.NaN;
  return {
    requests: latencies.length,
    errors,
    non200,
    elapsedMs,
    requestsPerSecond: (latencies.length / elapsedMs) * 1000,
    p50Ms: pct(50),
    p90Ms: pct(90),
    p99Ms: pct(99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
  };
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('load-generator.ts') || entry.endsWith('load-generator.js')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
  runLoad(spec).then(
    (report) => {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
