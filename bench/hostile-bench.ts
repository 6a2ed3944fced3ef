/**
 * `npm run bench:hostile`: does hostile input stall the webhook for everyone else? (issue 12)
 *
 * The compiled CLI (`node dist/src/cli/main.js serve`) runs pinned to CPU 0 with a copy of the
 * committed 1,000-rule set plus the rules of a hostile tenant (namespace `hostile`, see
 * lib/hostile-rules.ts) in a temporary rules directory. The native load generator (bench/loadgen,
 * pinned to CPU 1, like `bench:http`) sends the normal traffic, the 10 KB Deployment of team-a
 * as an AdmissionReview, in an open loop at 500 req/s, in three phases:
 *
 * 1. baseline: nothing hostile;
 * 2. hostile requests: this process (also on CPU 1) sends the hostile requests of
 *    lib/hostile-inputs.ts at a steady few per second (HTTPS, one connection each, 5 s timeout)
 *    and holds a few slow-loris connections open;
 * 3. hostile rule files: rule files are rewritten, cut half-way, added, and an alias bomb and an
 *    invalid 4,000-term select are dropped into the rules directory (serve reloads on change).
 *
 * It reports the normal traffic's latency per phase (target: p99 < 10 ms, no failed or non-200
 * answer), what the hostile requests got back, the server's RSS and, when /metrics has it, the
 * event-loop lag histogram. Every phase is bounded by time and count; loopback only; the server
 * is stopped (killed if it does not stop) and the temporary directory removed at the end.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { DEFAULT_WEBHOOK_LIMITS } from '../src/webhook/dependencies.js';
import { objectPath, ruleSetDir } from './lib/fixtures.js';
import { CLUSTER_NAMESPACE } from './lib/fixture-rules.js';
import {
  runStream,
  slowLoris,
  type LorisOutcome,
  type StreamResult,
} from './lib/hostile-client.js';
import { hostileKinds, type HostileKind } from './lib/hostile-inputs.js';
import {
  report,
  type PhaseResult,
  type RuleEventResult,
  type SteadyState,
} from './lib/hostile-report.js';
import {
  HOSTILE_RULES_FILE,
  HOSTILE_TEMPLATES,
  hostileRuleEvents,
  hostileRulesYaml,
} from './lib/hostile-rules.js';
import { readTrace, summarize } from './lib/latency-trace.js';
import { buildLoadGenerator, type LoadReport, type LoadSpec } from './lib/load-spec.js';
import { awaitLine, rssMb, spawnPinned, TASKSET } from './lib/processes.js';
import { watchServerLog } from './lib/server-log.js';
import {
  histogramDelta,
  LAG_METRIC,
  parseHistogram,
  scrapeMetrics,
  waitResponsive,
  type Histogram,
} from './lib/server-metrics.js';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const RULES = 1000;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

const NORMAL_RATE = 500;
const BASELINE_MS = 10_000;
const REQUESTS_MS = 30_000;
const RULE_FILES_MS = 20_000;
/**
 * Hostile requests per second (BENCH_HOSTILE_RATE, default 4, at most 50), every request on a new
 * connection, each bounded by the timeout.
 */
const HOSTILE_RATE = Math.min(
  50,
  Math.max(0.1, Number(process.env.BENCH_HOSTILE_RATE ?? '4') || 4),
);
const HOSTILE_TIMEOUT_MS = 5000;
const HOSTILE_MAX_IN_FLIGHT = 8;
/** Slow-loris connections held during the hostile-requests phase. */
const LORIS: readonly LorisOutcome['kind'][] = [
  'slow headers',
  'slow headers',
  'slow headers',
  'slow headers',
  'slow body',
  'slow body',
];
/** Hostile activity starts this long after the generator (its connection warm-up) and ends early. */
const SETTLE_MS = 500;
const P99_TARGET_MS = 10;
/** Longest wait, after a phase, for the server to answer /healthz promptly again. */
const RECOVERY_MS = 60_000;

/** Runs the Go generator; resolves with its report or the reason it gave none. */
async function normalLoad(
  generator: string,
  port: number,
  durationMs: number,
  mode: 'open' | 'closed',
  tracePath?: string,
): Promise<{ report?: LoadReport; failure?: string }> {
  const spec: LoadSpec = {
    port,
    path: '/dragnet-webhook',
    method: 'POST',
    bodyFile: objectPath('deployment-10kb', true),
    mode,
    ...(mode === 'open' ? { rate: NORMAL_RATE, concurrency: 64 } : { concurrency: 32 }),
    durationMs,
    maxRequests: mode === 'open' ? Math.ceil((NORMAL_RATE * durationMs) / 1000) : 100_000,
  };
  const env: Record<string, string> = tracePath === undefined ? {} : { LOADGEN_TRACE: tracePath };
  const child = spawnPinned(generator, [JSON.stringify(spec)], LOAD_CPU, 'inherit', env);
  try {
    return { report: await awaitLine(child, (line) => JSON.parse(line) as LoadReport) };
  } catch (err) {
    return { failure: err instanceof Error ? err.message : String(err) };
  }
}

/** Samples the server's RSS every 250 ms until stopped; returns the peak. */
function rssSampler(pid: number | undefined): { stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now > peak) peak = now;
  }, 250);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}

async function lagHistogram(port: number): Promise<{ lag?: Histogram; bytes?: number }> {
  const scrape = await scrapeMetrics(port, 10_000);
  if (scrape === undefined) return {};
  const lag = parseHistogram(scrape.text, LAG_METRIC);
  return { bytes: scrape.bytes, ...(lag === undefined ? {} : { lag }) };
}

function alive(server: ChildProcess): boolean {
  return server.exitCode === null && server.signalCode === null;
}

/** SIGTERM, then SIGKILL if the server has not exited within `graceMs`. */
async function stopWithin(server: ChildProcess, graceMs: number): Promise<string> {
  if (!alive(server)) return `had exited (${String(server.exitCode ?? server.signalCode)})`;
  const exited = new Promise<string>((resolve) =>
    server.once('exit', (code, signal) => {
      resolve(String(code ?? signal));
    }),
  );
  server.kill('SIGTERM');
  const first = await Promise.race([exited, sleep(graceMs).then(() => undefined)]);
  if (first !== undefined) return `stopped (${first})`;
  server.kill('SIGKILL');
  return `killed after ${String(graceMs)} ms (${await exited})`;
}

/**
 * The kinds named by BENCH_HOSTILE_KINDS (comma-separated parts of their names, any case; for
 * diagnosis: which kinds cost the normal traffic its p99), or all of them.
 */
function selectKinds(all: HostileKind[]): HostileKind[] {
  const parts = (process.env.BENCH_HOSTILE_KINDS ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  if (parts.length === 0) return all;
  return all.filter((kind) => parts.some((part) => kind.name.toLowerCase().includes(part)));
}

/** Pins this process (the hostile client) to the generator's CPU, leaving CPU 0 to the server. */
function pinSelf(): void {
  if (TASKSET === undefined) return;
  try {
    execFileSync(TASKSET, ['-cp', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
  } catch {
    // Not pinned: the numbers are noisier, nothing else changes.
  }
}

async function main(): Promise<void> {
  pinSelf();
  const generator = buildLoadGenerator();
  const bodyLimit = DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes;
  const kinds = selectKinds(hostileKinds(bodyLimit, Object.keys(HOSTILE_TEMPLATES)));
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-hostile-'));
  cpSync(ruleSetDir(RULES), dir, { recursive: true });
  writeFileSync(join(dir, HOSTILE_RULES_FILE), hostileRulesYaml());

  const t0 = performance.now();
  const server = spawnPinned(
    process.execPath,
    [
      // Extra Node flags for the server, e.g. BENCH_SERVER_NODE_ARGS=--trace-gc (diagnosis only).
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
      'dist/src/cli/main.js',
      'serve',
      ...['--rules', dir, '--host', '127.0.0.1', '--port', '0', '--health-port', '0'],
      ...['--cluster-namespace', CLUSTER_NAMESPACE, '--log-level', LOG_LEVEL],
      // Extra serve flags, e.g. BENCH_SERVE_ARGS='--helper-thread-nice 0' (comparisons only).
      ...(process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
    ],
    SERVER_CPU,
    'inherit',
  );
  const log = watchServerLog(server);
  const phases: PhaseResult[] = [];
  let stream: StreamResult | undefined;
  let loris: LorisOutcome[] = [];
  const ruleEvents: RuleEventResult[] = [];
  let readyMs = Number.NaN;
  let idleRssMb = Number.NaN;
  let metricsBytes: { before?: number; after?: number } = {};
  let steadyWindow: { startMs: number; fromMs: number; toMs: number } | undefined;
  let steady: SteadyState | undefined;
  // Not in the rules directory, which the server watches.
  const traceDir = mkdtempSync(join(tmpdir(), 'kubemod-hostile-trace-'));
  const normalTrace = join(traceDir, 'normal-during-hostile.trace');
  let stopped: string;
  try {
    const port = await log.port;
    const healthPort = await log.healthPort;
    readyMs = performance.now() - t0;
    await normalLoad(generator, port, 3000, 'closed'); // warm-up, not reported
    idleRssMb = rssMb(server.pid);
    let previous = await lagHistogram(healthPort);
    metricsBytes = { ...(previous.bytes === undefined ? {} : { before: previous.bytes }) };

    const phase = async (
      name: string,
      activity: string,
      durationMs: number,
      hostile: () => Promise<void>,
      tracePath?: string,
    ): Promise<void> => {
      if (!alive(server)) {
        phases.push({
          name,
          activity,
          failure: 'server not running',
          rssAfterMb: NaN,
          peakRssMb: NaN,
        });
        return;
      }
      const sampler = rssSampler(server.pid);
      const load = normalLoad(generator, port, durationMs, 'open', tracePath);
      await Promise.all([load, sleep(SETTLE_MS).then(hostile)]);
      const result = await load;
      // Work the hostile input left queued must not spill into the next phase.
      const quietAfterMs = alive(server) ? await waitResponsive(port, RECOVERY_MS, 150) : undefined;
      const peakRssMb = sampler.stop();
      const scraped = await lagHistogram(healthPort);
      if (scraped.bytes !== undefined) metricsBytes = { ...metricsBytes, after: scraped.bytes };
      const lag = scraped.lag === undefined ? undefined : histogramDelta(previous.lag, scraped.lag);
      if (scraped.lag !== undefined) previous = scraped;
      phases.push({
        name,
        activity,
        ...result,
        rssAfterMb: rssMb(server.pid),
        peakRssMb,
        ...(lag === undefined ? {} : { lag }),
        ...(quietAfterMs === undefined ? {} : { quietAfterMs }),
      });
    };

    await phase('baseline', 'none', BASELINE_MS, () => Promise.resolve());
    const hostileMs = REQUESTS_MS - 2 * SETTLE_MS;
    await phase(
      'hostile requests',
      `${String(HOSTILE_RATE)} hostile req/s over ${String(kinds.length)} kinds + ${String(LORIS.length)} slow-loris connections`,
      REQUESTS_MS,
      async () => {
        const lorisRuns = Promise.all(LORIS.map((kind) => slowLoris(port, kind, hostileMs)));
        // The first round sends every kind once: one-time costs (the dry-run worker thread's
        // start, the first run of each code path) fall into it.
        const startMs = Date.now();
        const firstRoundEndMs = startMs + (kinds.length / HOSTILE_RATE) * 1000;
        stream = await runStream({
          port,
          kinds,
          ratePerSecond: HOSTILE_RATE,
          durationMs: hostileMs,
          timeoutMs: HOSTILE_TIMEOUT_MS,
          maxInFlight: HOSTILE_MAX_IN_FLIGHT,
        });
        steadyWindow = { startMs, fromMs: firstRoundEndMs, toMs: Date.now() };
        loris = await lorisRuns;
        const trace = process.env.BENCH_HOSTILE_TRACE;
        if (trace !== undefined && trace !== '') {
          writeFileSync(trace, stream.outcomes.map((o) => JSON.stringify(o)).join('\n') + '\n');
        }
      },
      normalTrace,
    );
    if (steadyWindow !== undefined && existsSync(normalTrace)) {
      const { startMs, fromMs, toMs } = steadyWindow;
      steady = {
        fromS: (fromMs - startMs + SETTLE_MS) / 1000,
        toS: (toMs - startMs + SETTLE_MS) / 1000,
        ...summarize(readTrace(normalTrace), fromMs, toMs, P99_TARGET_MS),
      };
    }
    const events = hostileRuleEvents();
    await phase(
      'hostile rule files',
      `${String(events.length)} rule-file changes (${events.map((e) => e.name).join(', ')})`,
      RULE_FILES_MS,
      async () => {
        const start = performance.now();
        for (const event of events) {
          const wait = start + event.atMs - SETTLE_MS - performance.now();
          if (wait > 0) await sleep(wait);
          const at = performance.now();
          ruleEvents.push({ event, at, phaseS: (at - start + SETTLE_MS) / 1000 });
          event.apply(dir);
        }
      },
    );
  } catch (err) {
    process.stderr.write(`bench:hostile: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    const wasAlive = alive(server);
    const finalRss = rssMb(server.pid);
    stopped = `${wasAlive ? `running at the end (RSS ${finalRss.toFixed(0)} MB), ` : 'NOT running at the end, '}${await stopWithin(server, 15_000)}`;
    rmSync(dir, { recursive: true, force: true });
    rmSync(traceDir, { recursive: true, force: true });
  }

  const out = report({
    phases,
    kinds,
    stream,
    loris,
    ruleEvents,
    logEvents: log.events,
    readyMs,
    idleRssMb,
    metricsBytes,
    ...(steady === undefined ? {} : { steady }),
    stopped,
    serverSurvived: stopped.startsWith('running'),
    settings: {
      rules: RULES,
      normalRate: NORMAL_RATE,
      hostileRate: HOSTILE_RATE,
      hostileTimeoutMs: HOSTILE_TIMEOUT_MS,
      hostileMaxInFlight: HOSTILE_MAX_IN_FLIGHT,
      p99TargetMs: P99_TARGET_MS,
      recoveryMs: RECOVERY_MS,
      logLevel: LOG_LEVEL,
    },
  });
  process.stdout.write(`${out.text}\n`);
  if (!out.correct) process.exitCode = 1;
}

await main();
