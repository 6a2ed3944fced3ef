/**
 * The contract of the native load generator (bench/loadgen, Go): one JSON LoadSpec on its command
 * line, one JSON LoadReport line on stdout. Built by scripts/build-loadgen.sh.
 */
import { execFileSync } from 'node:child_process';

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

/** Builds the load generator (cached under ~/.cache/kubemod-ts/bin) and returns its path. */
export function buildLoadGenerator(): string {
  const out = execFileSync('bash', ['scripts/build-loadgen.sh'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const path = out.trim().split('\n').pop();
  if (path === undefined || path === '') throw new Error('build-loadgen.sh printed no path');
  return path;
}
