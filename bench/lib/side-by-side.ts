/**
 * Issue 38's side-by-side measurement: the floor server (bench/floor-server.ts) and `serve` with
 * 10 and 1,000 rules, all started at once and pinned to the server core, loaded in turn (floor,
 * then each `serve`, per object, `reps` times), so that every server sees the same machine within
 * seconds of the others. Each phase also records the server's CPU time (utime + stime of every
 * thread, from /proc) per request answered: on a machine shared with other work, req/s follows
 * the share of the core the scheduler grants, CPU per request much less so.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { objectPath, type ObjectName } from './fixtures.js';
import type { LoadReport, LoadSpec } from './load-spec.js';
import { percentile } from './measure.js';

/** A server under test: its label, its process and the port it listens on. */
export interface BenchServer {
  readonly label: string;
  readonly process: ChildProcess;
  readonly port: number;
}

export interface SideBySideRow {
  readonly object: ObjectName;
  readonly server: string;
  /** req/s of every repetition, in order. */
  readonly rps: number[];
  /** Server CPU µs per request of every repetition. */
  readonly cpuUs: number[];
  readonly errors: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) a process has used; NaN where /proc is absent. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export interface SideBySideOptions {
  readonly servers: readonly BenchServer[];
  readonly objects: readonly ObjectName[];
  readonly reps: number;
  /** Milliseconds of closed-loop load per phase (after a warm-up of a fifth of it). */
  readonly durationMs: number;
  readonly load: (spec: LoadSpec) => Promise<LoadReport>;
}

/** Runs the interleaved phases; one row per object and server. */
export async function sideBySide(options: SideBySideOptions): Promise<SideBySideRow[]> {
  const rows = new Map<string, SideBySideRow>();
  const spec = (server: BenchServer, object: ObjectName, durationMs: number): LoadSpec => ({
    port: server.port,
    path: '/dragnet-webhook',
    method: 'POST',
    bodyFile: objectPath(object, true),
    mode: 'closed',
    concurrency: 32,
    durationMs,
    maxRequests: 200_000,
  });
  for (let rep = 0; rep < options.reps; rep++) {
    for (const object of options.objects) {
      for (const server of options.servers) {
        await options.load(spec(server, object, Math.round(options.durationMs / 5)));
        const before = cpuSeconds(server.process.pid);
        const report = await options.load(spec(server, object, options.durationMs));
        const cpu = cpuSeconds(server.process.pid) - before;
        const key = `${object} ${server.label}`;
        const row = rows.get(key) ?? {
          object,
          server: server.label,
          rps: [],
          cpuUs: [],
          errors: 0,
        };
        row.rps.push(report.requestsPerSecond);
        row.cpuUs.push((cpu * 1e6) / Math.max(1, report.requests));
        rows.set(key, { ...row, errors: row.errors + report.errors + report.non200 });
      }
    }
  }
  return [...rows.values()];
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/**
 * The Markdown table: per object and server, the median req/s and CPU µs per request over the
 * repetitions (with their range), and the share of the floor's (req/s: ours ÷ floor's; CPU: the
 * floor's µs ÷ ours, i.e. the throughput share one saturated core would give).
 */
export function formatSideBySide(rows: readonly SideBySideRow[], floorLabel: string): string {
  const lines = [
    '| object | server | req/s (median; range) | share of floor | CPU µs/request (median; range) | CPU share of floor | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const range = (values: readonly number[], digits: number): string =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
  for (const row of rows) {
    const floor = rows.find((r) => r.object === row.object && r.server === floorLabel);
    const rpsShare = floor === undefined ? Number.NaN : median(row.rps) / median(floor.rps);
    const cpuShare = floor === undefined ? Number.NaN : median(floor.cpuUs) / median(row.cpuUs);
    lines.push(
      `| ${row.object} | ${row.server} | ${range(row.rps, 0)} | ${(100 * rpsShare).toFixed(0)} % | ${range(row.cpuUs, 0)} | ${(100 * cpuShare).toFixed(0)} % | ${String(row.errors)} |`,
    );
  }
  return lines.join('\n');
}
