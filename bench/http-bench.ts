/**
 * `npm run bench:http`: end-to-end HTTPS benchmark of `kubemod-ts serve` on loopback, as shipped:
 * the compiled CLI (`node dist/src/cli/main.js`, built by the npm script) runs as a child process
 * pinned to CPU 0 with taskset when available, with a committed rule set of bench/fixtures/rules;
 * load comes from the native generator bench/loadgen (Go, built by scripts/build-loadgen.sh),
 * pinned to CPU 1, sending the committed AdmissionReview bodies of bench/fixtures/objects.
 *
 * First, side by side (issue 38): the floor (bench/floor-server.ts: read, JSON.parse, answer
 * `allowed`) and `serve` with 10 and 1,000 rules, all pinned to the server core, each warmed up on
 * every object first (BENCH_WARMUP_WINDOWS windows of BENCH_WARMUP_WINDOW_MS, default 6 × 2000;
 * the CPU per request of each window is reported as a curve), then loaded in turn per object (Pod,
 * 10 KB and 100 KB Deployment, sent compact as an API server sends them), BENCH_REPS times
 * (default 5), BENCH_PHASE_MS each (default 3000); then BENCH_TOGETHER_REPS rounds (default 5)
 * per object with every server loaded at the same time. BENCH_BASELINE=<checkout> adds that
 * checkout's serve with 1,000 rules (before and after in one run). Ours is reported as a share of the floor
 * of the same repetition, in req/s and CPU per request. Then the floor's and the 1,000-rule
 * server's open loop at 500 req/s, and a server with 10,000 rules (startup time, RSS
 * before any traffic and after a short load). Every phase is bounded by duration and request count.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { environment } from './lib/measure.js';
import { wireBodyPath, ruleSetDir, type ObjectName } from './lib/fixtures.js';
import { CLUSTER_NAMESPACE } from './lib/fixture-rules.js';
import { buildLoadGenerator, type LoadReport, type LoadSpec } from './lib/load-spec.js';
import { awaitLine, listeningPort, rssMb, spawnPinned, stop, TASKSET } from './lib/processes.js';
import { atLeast, below, formatTargets } from './lib/targets.js';
import {
  formatSideBySide,
  formatWarmUp,
  sideBySide,
  type BenchServer,
} from './lib/side-by-side.js';

const SERVER_CPU = 0;
const LOAD_CPU = 1;

interface Row {
  readonly name: string;
  readonly report: LoadReport;
}

interface ServerRun {
  readonly rules: number;
  readonly readyMs: number;
  readonly rssMb: number;
  /** RSS before any request: the lowest of the samples taken over `idleMs` after startup. */
  readonly idleRssMb: number;
  readonly rows: Row[];
}

const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

async function load(generator: string, spec: LoadSpec): Promise<LoadReport> {
  const child = spawnPinned(generator, [JSON.stringify(spec)], LOAD_CPU, 'inherit');
  return awaitLine(child, (line) => JSON.parse(line) as LoadReport);
}

type Phase = { name: string; object: ObjectName } & Pick<
  LoadSpec,
  'mode' | 'concurrency' | 'rate' | 'durationMs' | 'maxRequests'
>;

/** Starts `serve` with a rule set (or the floor server), pinned to the server core. */
async function startServer(
  label: string,
  rules: number | 'floor',
  checkout = '.',
  nodeArgs: readonly string[] = [],
): Promise<BenchServer & { readyMs: number }> {
  const t0 = performance.now();
  const args =
    rules === 'floor'
      ? ['dist/bench/floor-server.js']
      : [
          join(checkout, 'dist/src/cli/main.js'),
          'serve',
          ...['--rules', ruleSetDir(rules), '--host', '127.0.0.1', '--port', '0'],
          ...['--cluster-namespace', CLUSTER_NAMESPACE, '--log-level', LOG_LEVEL],
          // Extra serve flags, e.g. BENCH_SERVE_ARGS='--helper-thread-nice 0' (comparisons only).
          ...(process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
        ];
  const child = spawnPinned(process.execPath, [...nodeArgs, ...args], SERVER_CPU, 'inherit');
  try {
    // JSON logs (one line per applied patch at info) are read and dropped.
    const port = await awaitLine(child, listeningPort);
    return { label, process: child, port, readyMs: performance.now() - t0 };
  } catch (err) {
    await stop(child);
    throw err;
  }
}

async function withServer(
  generator: string,
  rules: number,
  phases: readonly Phase[],
  idleMs: number,
): Promise<ServerRun> {
  const server = await startServer(`serve, ${String(rules)} rules`, rules);
  try {
    return await runPhases(generator, server, rules, phases, idleMs);
  } finally {
    await stop(server.process);
  }
}

async function runPhases(
  generator: string,
  server: BenchServer & { readyMs: number },
  rules: number,
  phases: readonly Phase[],
  idleMs: number,
): Promise<ServerRun> {
  const pid = server.process.pid;
  // Before any request: the lowest RSS over `idleMs` (V8's memory reducer returns what loading
  // the rules left behind some seconds after start).
  let idle = rssMb(pid);
  for (let waited = 0; waited < idleMs; waited += 1000) {
    await sleep(1000);
    idle = Math.min(idle, rssMb(pid));
  }
  const rows: Row[] = [];
  for (const phase of phases) {
    const { name, object, ...rest } = phase;
    const report = await load(generator, {
      port: server.port,
      path: '/dragnet-webhook',
      method: 'POST',
      bodyFile: wireBodyPath(object),
      ...rest,
    });
    if (!name.startsWith('warm-up')) rows.push({ name, report });
  }
  return { rules, readyMs: server.readyMs, rssMb: rssMb(pid), idleRssMb: idle, rows };
}

function closed(object: ObjectName, durationMs: number): Phase {
  return {
    name: `${object}, closed loop, 32 concurrent`,
    object,
    mode: 'closed',
    concurrency: 32,
    durationMs,
    maxRequests: 100_000,
  };
}

function summary(r: LoadReport): string {
  const f = (n: number): string => n.toFixed(2);
  return `${String(r.requests)} requests, ${String(r.errors + r.non200)} errors, p50 ${f(r.p50Ms)} ms, p90 ${f(r.p90Ms)} ms, p99 ${f(r.p99Ms)} ms, max ${f(r.maxMs)} ms`;
}

function row(rules: number, { name, report: r }: Row): string {
  const f = (n: number): string => n.toFixed(2);
  return `| ${rules.toLocaleString('en-US')} | ${name} | ${String(r.requests)} | ${String(r.errors + r.non200)} | ${r.requestsPerSecond.toFixed(0)} | ${f(r.p50Ms)} | ${f(r.p90Ms)} | ${f(r.p99Ms)} | ${f(r.maxMs)} |`;
}

async function main(): Promise<void> {
  const warmUp: Phase = { ...closed('deployment-10kb', 3000), name: 'warm-up' };
  const open500: Phase = {
    name: 'deployment-10kb, open loop, 500 req/s offered',
    object: 'deployment-10kb',
    mode: 'open',
    rate: 500,
    concurrency: 64,
    durationMs: 10_000,
    maxRequests: 5000,
  };
  const generator = buildLoadGenerator();
  const reps = Number(process.env.BENCH_REPS ?? 5);
  const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 3000);
  const warmUpWindows = Number(process.env.BENCH_WARMUP_WINDOWS ?? 6);
  const warmUpWindowMs = Number(process.env.BENCH_WARMUP_WINDOW_MS ?? 2000);
  const togetherReps = Number(process.env.BENCH_TOGETHER_REPS ?? 5);
  const floor = await startServer('floor (bare Node)', 'floor');
  const serve10 = await startServer('serve, 10 rules', 10);
  const serve1k = await startServer('serve, 1,000 rules', 1000);
  // BENCH_BASELINE: another checkout (built with `npx tsc -p tsconfig.build.json`) whose serve
  // joins the side-by-side phases with 1,000 rules: before and after in one run.
  const baselineDir = process.env.BENCH_BASELINE;
  const baseline =
    baselineDir === undefined
      ? []
      : [await startServer('serve before (BENCH_BASELINE), 1,000 rules', 1000, baselineDir)];
  // BENCH_SEMI_SPACE_MB: also serve with 1,000 rules under node --max-semi-space-size (memory).
  const semi = process.env.BENCH_SEMI_SPACE_MB;
  const semiSpace =
    semi === undefined
      ? []
      : [
          await startServer(`serve, 1,000 rules, --max-semi-space-size=${semi}`, 1000, '.', [
            `--max-semi-space-size=${semi}`,
          ]),
        ];
  const servers = [floor, serve10, serve1k, ...baseline, ...semiSpace];
  let side: string;
  let togetherTable: string;
  let warmUpTable: string;
  let floorOpenLine: string;
  let idleRss: string;
  let main1k: ServerRun;
  let small: ServerRun;
  try {
    // RSS of the 1,000-rule server before traffic: the lowest over 10 s after startup.
    const idle1k = await runPhases(generator, serve1k, 1000, [], 10_000);
    idleRss = servers
      .map((server) => `${server.label}: ${rssMb(server.process.pid).toFixed(0)} MB`)
      .join('; ');
    const result = await sideBySide({
      servers,
      objects: ['pod-2kb', 'deployment-10kb', 'deployment-100kb'],
      reps,
      durationMs: phaseMs,
      warmUp: { windows: warmUpWindows, windowMs: warmUpWindowMs },
      together: { reps: togetherReps, durationMs: phaseMs },
      load: (spec) => load(generator, spec),
    });
    side = formatSideBySide(result.rows, floor.label);
    togetherTable = formatSideBySide(result.together, floor.label);
    warmUpTable = formatWarmUp(result.warmUp);
    idleRss += `\n\nRSS after the side-by-side load: ${servers.map((server) => `${server.label}: ${rssMb(server.process.pid).toFixed(0)} MB`).join('; ')}`;
    // The floor's open loop at 500 req/s in the same run: what this machine's own stalls do to p99.
    const floorOpen = await runPhases(generator, floor, 0, [open500], 0);
    floorOpenLine =
      floorOpen.rows.map((r) => `floor (bare Node), ${r.name}: ${summary(r.report)}`)[0] ?? '';
    const after = await runPhases(
      generator,
      serve1k,
      1000,
      [
        warmUp,
        closed('deployment-10kb', 8000),
        open500,
        { ...closed('pod-2kb', 2000), name: 'warm-up pod' },
        closed('pod-2kb', 8000),
        closed('service-2kb', 5000),
        closed('deployment-100kb', 5000),
      ],
      0,
    );
    main1k = { ...after, idleRssMb: idle1k.idleRssMb };
    small = await runPhases(generator, serve10, 10, [closed('deployment-10kb', 5000)], 0);
  } finally {
    for (const server of servers) await stop(server.process);
  }
  const big = await withServer(
    generator,
    10_000,
    [warmUp, closed('deployment-10kb', 5000)],
    45_000,
  );
  const runs = [main1k, big, small];

  const find = (name: string): LoadReport | undefined =>
    main1k.rows.find((r) => r.name === name)?.report;
  const open = find(open500.name);
  const pod = find(closed('pod-2kb', 0).name);
  const pinned =
    TASKSET === undefined
      ? 'not pinned (no taskset)'
      : 'server pinned to CPU 0, load generator (Go) to CPU 1 (taskset)';
  const out = [
    `HTTP benchmarks — ${environment()}; ${pinned}; log level ${LOG_LEVEL}.`,
    '',
    `Side by side with the floor (closed loop, 32 concurrent, ${String(reps)} interleaved runs of ${String(phaseMs)} ms per server and object):`,
    '',
    side,
    '',
    `Warm-up before those runs (each server in turn, objects in order; CPU µs per request of each ${String(warmUpWindowMs)} ms window):`,
    '',
    warmUpTable,
    '',
    `Every server loaded at the same time (one load generator each, ${String(togetherReps)} rounds of ${String(phaseMs)} ms per object): the drift of the VM cannot favour any of them, but they share the core's caches too. req/s is each one's part of a shared core; compare CPU per request:`,
    '',
    togetherTable,
    '',
    `RSS 10 s after startup, before traffic: ${idleRss}`,
    '',
    'kubemod-ts serve, AdmissionReview v1 CREATE in team-a, loopback HTTPS keep-alive:',
    '',
    '| rules | scenario | requests | errors | req/s | p50 ms | p90 ms | p99 ms | max ms |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.flatMap((run) => run.rows.map((r) => row(run.rules, r))),
    '',
    floorOpenLine,
    '',
    'Server process (startup = spawn until listening: Node start, loading and compiling the rules):',
    '',
    '| rules | startup ms | RSS before traffic MB (lowest over 45 s; 1,000 rules: 10 s) | RSS after the load MB |',
    '| ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r) =>
        `| ${r.rules.toLocaleString('en-US')} | ${r.readyMs.toFixed(0)} | ${r.rules === 10 ? '–' : r.idleRssMb.toFixed(0)} | ${r.rssMb.toFixed(0)} |`,
    ),
    '',
    'Targets:',
    '',
    formatTargets([
      below('HTTP p99 at 500 req/s, 1,000 rules (10 KB Deployment)', open?.p99Ms ?? NaN, 5, 'ms'),
      atLeast(
        'HTTP throughput, one core, 2 KB Pod, 1,000 rules',
        pod?.requestsPerSecond ?? NaN,
        3000,
        'req/s',
      ),
      below('server RSS with 10,000 rules loaded, no traffic yet', big.idleRssMb, 150, 'MB'),
      below('server RSS with 10,000 rules loaded, after the load', big.rssMb, 150, 'MB'),
      below('server startup with 10,000 rules', big.readyMs / 1000, 3, 's'),
    ]),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const failed = runs.some((run) => run.rows.some((r) => r.report.errors + r.report.non200 > 0));
  if (failed) process.exitCode = 1;
}

await main();
