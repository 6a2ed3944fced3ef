/**
 * `npm run bench:http`: end-to-end HTTPS benchmark of `kubemod-ts serve` on loopback. The server
 * runs as a child process (pinned to CPU 0 with taskset when available) with a committed rule set
 * of bench/fixtures/rules; load comes from another child (bench/lib/load-generator.ts, pinned to
 * CPU 1) sending the committed AdmissionReview bodies of bench/fixtures/objects.
 *
 * Servers: 1,000 rules (closed loop at 32 concurrent per object, open loop at 500 req/s), then
 * 10,000 rules and 10 rules (startup time and RSS after a short load). Every phase is bounded by
 * duration and request count.
 */
import { environment } from './lib/measure.js';
import { objectPath, ruleSetDir, type ObjectName } from './lib/fixtures.js';
import type { LoadReport, LoadSpec } from './lib/load-generator.js';
import { firstLine, rssMb, spawnNode, stop, TASKSET } from './lib/processes.js';
import { atLeast, below, formatTargets } from './lib/targets.js';

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
  readonly rows: Row[];
}

async function load(spec: LoadSpec): Promise<LoadReport> {
  const child = spawnNode(
    ['bench/lib/load-generator.ts', JSON.stringify(spec)],
    LOAD_CPU,
    'inherit',
  );
  return JSON.parse(await firstLine(child)) as LoadReport;
}

type Phase = { name: string; object: ObjectName } & Pick<
  LoadSpec,
  'mode' | 'concurrency' | 'rate' | 'durationMs' | 'maxRequests'
>;

async function withServer(rules: number, phases: readonly Phase[]): Promise<ServerRun> {
  const t0 = performance.now();
  const server = spawnNode(['bench/lib/serve-child.ts', ruleSetDir(rules)], SERVER_CPU, 'pipe');
  server.stderr?.resume(); // JSON logs (one line per applied patch at info): drained, not kept
  try {
    const { port } = JSON.parse(await firstLine(server)) as { port: number };
    const readyMs = performance.now() - t0;
    const rows: Row[] = [];
    for (const phase of phases) {
      const { name, object, ...rest } = phase;
      const report = await load({
        port,
        path: '/dragnet-webhook',
        method: 'POST',
        bodyFile: objectPath(object, true),
        ...rest,
      });
      if (!name.startsWith('warm-up')) rows.push({ name, report });
    }
    return { rules, readyMs, rssMb: rssMb(server.pid), rows };
  } finally {
    await stop(server);
  }
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
  const main1k = await withServer(1000, [
    warmUp,
    closed('deployment-10kb', 8000),
    open500,
    { ...closed('pod-2kb', 2000), name: 'warm-up pod' },
    closed('pod-2kb', 8000),
    closed('service-2kb', 5000),
    closed('deployment-100kb', 5000),
  ]);
  const big = await withServer(10_000, [warmUp, closed('deployment-10kb', 5000)]);
  const small = await withServer(10, [warmUp, closed('deployment-10kb', 5000)]);
  const runs = [main1k, big, small];

  const find = (name: string): LoadReport | undefined =>
    main1k.rows.find((r) => r.name === name)?.report;
  const open = find(open500.name);
  const pod = find(closed('pod-2kb', 0).name);
  const pinned =
    TASKSET === undefined
      ? 'not pinned (no taskset)'
      : 'server pinned to CPU 0, load generator to CPU 1 (taskset)';
  const out = [
    `HTTP benchmarks — ${environment()}; ${pinned}; log level ${process.env.BENCH_LOG_LEVEL ?? 'info'}.`,
    '',
    'kubemod-ts serve, AdmissionReview v1 CREATE in team-a, loopback HTTPS keep-alive:',
    '',
    '| rules | scenario | requests | errors | req/s | p50 ms | p90 ms | p99 ms | max ms |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.flatMap((run) => run.rows.map((r) => row(run.rules, r))),
    '',
    'Server process (startup = spawn until listening, incl. Node + tsx start and loading the rules):',
    '',
    '| rules | startup ms | RSS after load MB |',
    '| ---: | ---: | ---: |',
    ...runs.map(
      (r) =>
        `| ${r.rules.toLocaleString('en-US')} | ${r.readyMs.toFixed(0)} | ${r.rssMb.toFixed(0)} |`,
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
      below('server RSS with 10,000 rules loaded, after load', big.rssMb, 150, 'MB'),
      below('server startup with 10,000 rules (incl. Node + tsx)', big.readyMs / 1000, 3, 's'),
    ]),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const failed = runs.some((run) => run.rows.some((r) => r.report.errors + r.report.non200 > 0));
  if (failed) process.exitCode = 1;
}

await main();
