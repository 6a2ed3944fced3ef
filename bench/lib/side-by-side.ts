/**
 * Issue 38's side-by-side measurement: the floor server (bench/floor-server.ts) and `serve` with
 * 10 and 1,000 rules, all started at once and pinned to the server core, loaded in turn (floor,
 * then each `serve`, per object, `reps` times), so that every server sees the same machine within
 * seconds of the others. Each phase also records the server's CPU time (utime + stime of every
 * thread, from /proc) per request answered: on a machine shared with other work, req/s follows
 * the share of the core the scheduler grants, CPU per request much less so.
 *
 * Before the repetitions every server is warmed up on every object in windows (`warmUp`), and the
 * CPU per request of each window is kept: a fresh `serve` needs many seconds of saturating load
 * before V8 has optimised its request path (the optimising compiler runs on the same core, at the
 * helper threads' lower priority), and a measurement taken inside that time reports the cold
 * server, not the steady one.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { wireBodyPath, type ObjectName } from './fixtures.js';
import type { LoadReport, LoadSpec } from './load-spec.js';

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

/** One server's warm-up on one object: CPU µs per request of each window, in order. */
export interface WarmUpCurve {
  readonly object: ObjectName;
  readonly server: string;
  readonly windowMs: number;
  readonly cpuUs: number[];
}

export interface SideBySideResult {
  readonly rows: SideBySideRow[];
  /** The rounds with every server loaded at once (`together`); empty when none were asked. */
  readonly together: SideBySideRow[];
  readonly warmUp: WarmUpCurve[];
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
  /** Warm-up before the repetitions: `windows` windows of `windowMs` per server and object. */
  readonly warmUp: { readonly windows: number; readonly windowMs: number };
  /**
   * After the repetitions, `reps` rounds per object of `durationMs` in which every server is
   * loaded at the same time (one load generator each). The servers then share the core at the
   * same moment, so the VM's drift cannot favour one of them: their CPU per request compares
   * within a few percent where phases taken in turn vary by tens. The price is that they also
   * share the core's caches, which costs the larger process more.
   */
  readonly together?: { readonly reps: number; readonly durationMs: number };
  readonly load: (spec: LoadSpec) => Promise<LoadReport>;
}

/** CPU µs per request of one closed-loop phase on `server`, and its load report. */
async function measured(
  options: SideBySideOptions,
  server: BenchServer,
  spec: LoadSpec,
): Promise<{ report: LoadReport; cpuUs: number }> {
  const before = cpuSeconds(server.process.pid);
  const report = await options.load(spec);
  const cpu = cpuSeconds(server.process.pid) - before;
  return { report, cpuUs: (cpu * 1e6) / Math.max(1, report.requests) };
}

/**
 * Warms every server up on every object (servers in turn, objects in order) and runs the
 * interleaved phases; one row per object and server, and the warm-up curves.
 */
export async function sideBySide(options: SideBySideOptions): Promise<SideBySideResult> {
  const rows = new Map<string, SideBySideRow>();
  const warmUp: WarmUpCurve[] = [];
  // Each body is written once for the whole run, not once per phase.
  const bodies = new Map(options.objects.map((object) => [object, wireBodyPath(object)]));
  const spec = (server: BenchServer, object: ObjectName, durationMs: number): LoadSpec => ({
    port: server.port,
    path: '/dragnet-webhook',
    method: 'POST',
    bodyFile: bodies.get(object) ?? wireBodyPath(object),
    mode: 'closed',
    concurrency: 32,
    durationMs,
    maxRequests: 200_000,
  });
  const { windows, windowMs } = options.warmUp;
  for (const server of options.servers) {
    for (const object of options.objects) {
      const cpuUs: number[] = [];
      for (let w = 0; w < windows; w++) {
        cpuUs.push((await measured(options, server, spec(server, object, windowMs))).cpuUs);
      }
      warmUp.push({ object, server: server.label, windowMs, cpuUs });
    }
  }
  for (let rep = 0; rep < options.reps; rep++) {
    for (const object of options.objects) {
      for (const server of options.servers) {
        await options.load(spec(server, object, Math.round(options.durationMs / 5)));
        const { report, cpuUs } = await measured(
          options,
          server,
          spec(server, object, options.durationMs),
        );
        addRep(rows, object, server.label, report, cpuUs);
      }
    }
  }
  const together = new Map<string, SideBySideRow>();
  for (let rep = 0; rep < (options.together?.reps ?? 0); rep++) {
    for (const object of options.objects) {
      const durationMs = options.together?.durationMs ?? options.durationMs;
      const before = options.servers.map((server) => cpuSeconds(server.process.pid));
      const reports = await Promise.all(
        options.servers.map((server) => options.load(spec(server, object, durationMs))),
      );
      options.servers.forEach((server, i) => {
        const report = reports[i];
        if (report === undefined) return;
        const cpu = cpuSeconds(server.process.pid) - (before[i] ?? Number.NaN);
        addRep(together, object, server.label, report, (cpu * 1e6) / Math.max(1, report.requests));
      });
    }
  }
  return { rows: [...rows.values()], together: [...together.values()], warmUp };
}

/** Appends one repetition's figures to the row of `object` and `server`. */
function addRep(
  rows: Map<string, SideBySideRow>,
  object: ObjectName,
  server: string,
  report: LoadReport,
  cpuUs: number,
): void {
  const key = `${object} ${server}`;
  const row = rows.get(key) ?? { object, server, rps: [], cpuUs: [], errors: 0 };
  row.rps.push(report.requestsPerSecond);
  row.cpuUs.push(cpuUs);
  rows.set(key, { ...row, errors: row.errors + report.errors + report.non200 });
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** Per repetition, `pick(ours, floor's)`; the floor's phase ran seconds before ours. */
function perRep(
  ours: readonly number[],
  floors: readonly number[],
  pick: (ours: number, floor: number) => number,
): number[] {
  return ours.map((value, i) => pick(value, floors[i] ?? Number.NaN));
}

/**
 * The Markdown table: per object and server, the median req/s and CPU µs per request over the
 * repetitions (with their range), and the share of the floor's, taken per repetition against the
 * floor's phase of the same repetition (req/s: ours ÷ floor's; CPU: the floor's µs ÷ ours, i.e.
 * the throughput share one saturated core would give), median and range over the repetitions.
 * Shares are taken per repetition because this VM's speed drifts by up to a factor of two over
 * tens of seconds: adjacent phases see the same machine, phases a minute apart may not.
 */
export function formatSideBySide(rows: readonly SideBySideRow[], floorLabel: string): string {
  const lines = [
    '| object | server | req/s (median; range) | share of floor (median; range) | CPU µs/request (median; range) | CPU share of floor (median; range) | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const range = (values: readonly number[], digits: number, unit = ''): string =>
    `${median(values).toFixed(digits)}${unit} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}${unit})`;
  const percent = (shares: readonly number[]): string =>
    range(
      shares.map((share) => 100 * share),
      0,
      ' %',
    );
  for (const row of rows) {
    const floor = rows.find((r) => r.object === row.object && r.server === floorLabel);
    const rpsShares = perRep(row.rps, floor?.rps ?? [], (ours, f) => ours / f);
    const cpuShares = perRep(row.cpuUs, floor?.cpuUs ?? [], (ours, f) => f / ours);
    lines.push(
      `| ${row.object} | ${row.server} | ${range(row.rps, 0)} | ${percent(rpsShares)} | ${range(row.cpuUs, 0)} | ${percent(cpuShares)} | ${String(row.errors)} |`,
    );
  }
  return lines.join('\n');
}

/** The warm-up curves as a Markdown table: CPU µs per request of each window, by object and server. */
export function formatWarmUp(curves: readonly WarmUpCurve[]): string {
  const windows = Math.max(0, ...curves.map((curve) => curve.cpuUs.length));
  const windowMs = curves[0]?.windowMs ?? 0;
  const heads = Array.from(
    { length: windows },
    (_, w) => `${String(((w + 1) * windowMs) / 1000)} s`,
  );
  return [
    `| object | server | ${heads.join(' | ')} |`,
    `| --- | --- |${' ---: |'.repeat(windows)}`,
    ...curves.map(
      (curve) =>
        `| ${curve.object} | ${curve.server} | ${curve.cpuUs.map((us) => us.toFixed(0)).join(' | ')} |`,
    ),
  ].join('\n');
}
