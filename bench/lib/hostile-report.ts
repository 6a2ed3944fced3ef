/** The markdown report of `npm run bench:hostile` (bench/hostile-bench.ts). */
import { cpus, loadavg } from 'node:os';
import type { HostileKind } from './hostile-inputs.js';
import type { LorisOutcome, StreamResult } from './hostile-client.js';
import type { RuleEvent } from './hostile-rules.js';
import type { LatencySummary } from './latency-trace.js';
import type { LoadReport } from './load-spec.js';
import { environment } from './measure.js';
import { TASKSET } from './processes.js';
import type { LogEvent } from './server-log.js';
import {
  formatBound,
  histogramMaxBound,
  histogramQuantile,
  LAG_METRIC,
  largestBound,
  type Histogram,
} from './server-metrics.js';
import { below, formatTargets, type TargetResult } from './targets.js';

/** The bench's settings, printed with the results. */
export interface HostileSettings {
  readonly rules: number;
  readonly normalRate: number;
  readonly hostileRate: number;
  readonly hostileTimeoutMs: number;
  readonly hostileMaxInFlight: number;
  readonly p99TargetMs: number;
  readonly recoveryMs: number;
  readonly logLevel: string;
}

export interface PhaseResult {
  readonly name: string;
  readonly activity: string;
  readonly report?: LoadReport;
  /** Why the generator gave no report (the server was down, for instance). */
  readonly failure?: string;
  readonly rssAfterMb: number;
  readonly peakRssMb: number;
  readonly lag?: Histogram;
  /** How long after the load /healthz took to answer promptly again; undefined: not within the bound. */
  readonly quietAfterMs?: number;
}

export interface RuleEventResult {
  readonly event: RuleEvent;
  /** performance.now() when the change was written. */
  readonly at: number;
  /** Seconds since the start of the phase. */
  readonly phaseS: number;
}

/**
 * The normal traffic of the hostile-requests phase once every hostile kind has been sent once
 * (from the generator's per-request trace): what each further hostile request costs, without the
 * one-time costs of the first round.
 */
export interface SteadyState extends LatencySummary {
  /** Seconds into the phase where the window starts and ends. */
  readonly fromS: number;
  readonly toS: number;
}

export interface ReportInput {
  readonly phases: readonly PhaseResult[];
  readonly kinds: readonly HostileKind[];
  readonly stream: StreamResult | undefined;
  readonly loris: readonly LorisOutcome[];
  readonly ruleEvents: readonly RuleEventResult[];
  readonly logEvents: readonly LogEvent[];
  readonly readyMs: number;
  readonly idleRssMb: number;
  readonly metricsBytes: { before?: number; after?: number };
  readonly steady?: SteadyState;
  readonly stopped: string;
  readonly serverSurvived: boolean;
  readonly settings: HostileSettings;
}

const f2 = (n: number | undefined): string => (n === undefined ? '–' : n.toFixed(2));
const f0 = (n: number | undefined): string =>
  n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0);
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function phaseRow(p: PhaseResult, settings: HostileSettings): string {
  const r = p.report;
  const lag =
    p.lag === undefined
      ? '– | –'
      : `${formatBound(histogramQuantile(p.lag, 0.99), largestBound(p.lag))} | ${formatBound(histogramMaxBound(p.lag), largestBound(p.lag))}`;
  const quiet =
    p.quietAfterMs === undefined
      ? `not within ${String(settings.recoveryMs / 1000)}`
      : (p.quietAfterMs / 1000).toFixed(1);
  if (r === undefined) {
    return `| ${p.name} | ${cell(p.activity)} | no report: ${cell(p.failure ?? '?')} | | | | | | | | ${f0(p.rssAfterMb)} | ${f0(p.peakRssMb)} | ${lag} | ${quiet} |`;
  }
  return `| ${p.name} | ${cell(p.activity)} | ${String(r.requests)} | ${String(r.non200)} | ${String(r.errors)} | ${r.requestsPerSecond.toFixed(0)} | ${f2(r.p50Ms)} | ${f2(r.p90Ms)} | ${f2(r.p99Ms)} | ${f2(r.maxMs)} | ${f0(p.rssAfterMb)} | ${f0(p.peakRssMb)} | ${lag} | ${quiet} |`;
}

function hostileRows(kinds: readonly HostileKind[], stream: StreamResult | undefined): string[] {
  const outcomes = stream?.outcomes ?? [];
  return kinds.map((kind) => {
    const mine = outcomes.filter((o) => o.kind === kind.name);
    const statuses = new Map<string, number>();
    for (const o of mine) statuses.set(String(o.status), (statuses.get(String(o.status)) ?? 0) + 1);
    const seen = [...statuses].map(([s, n]) => `${s} ×${String(n)}`).join(', ');
    const maxMs = mine.length === 0 ? undefined : Math.max(...mine.map((o) => o.ms));
    const problems = [
      ...new Set(mine.flatMap((o) => (o.problem === undefined ? [] : [o.problem]))),
    ];
    return `| ${kind.name} | ${cell(kind.description)} | ${kind.expect.join('/')} | ${String(mine.length)} | ${seen || '–'} | ${f0(maxMs)} | ${cell(problems.join('; ').slice(0, 300)) || '–'} |`;
  });
}

function ruleEventRows(
  ruleEvents: readonly RuleEventResult[],
  logEvents: readonly LogEvent[],
): string[] {
  return ruleEvents.map(({ event, at, phaseS }, i) => {
    const next = ruleEvents[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    const loaded = logEvents.find((e) => e.kind === 'loaded' && e.at >= at && e.at < next);
    const errors = logEvents
      .filter((e) => e.kind !== 'loaded' && e.at >= at && e.at < next)
      .map((e) => e.text.slice(0, 160));
    return `| ${phaseS.toFixed(1)} | ${cell(event.description)} | ${loaded === undefined ? 'no reload logged' : `${(loaded.at - at).toFixed(0)} ms: ${loaded.text}`} | ${cell(errors.join('; ').slice(0, 400)) || '–'} |`;
  });
}

export function report(input: ReportInput): { text: string; correct: boolean } {
  const { phases, stream, settings } = input;
  const outcomes = stream?.outcomes ?? [];
  const fiveXx = outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500).length;
  const timeouts = outcomes.filter((o) => o.status === 'timeout').length;
  const normalFailed = phases.reduce(
    (n, p) => n + (p.report === undefined ? 1 : p.report.errors + p.report.non200),
    0,
  );
  const phase = (name: string): PhaseResult | undefined => phases.find((p) => p.name === name);
  const exact = (target: string, value: number, unit: string): TargetResult => ({
    target,
    limit: `0 ${unit}`,
    measured: `${String(value)} ${unit}`,
    pass: value === 0,
  });
  const targets: TargetResult[] = [
    below(
      'normal p99 during hostile requests',
      phase('hostile requests')?.report?.p99Ms ?? NaN,
      settings.p99TargetMs,
      'ms',
    ),
    below(
      'normal p99 during hostile rule files',
      phase('hostile rule files')?.report?.p99Ms ?? NaN,
      settings.p99TargetMs,
      'ms',
    ),
    exact(
      'normal requests failed or not 200 (any 5xx included), all phases',
      normalFailed,
      'requests',
    ),
    exact('hostile requests answered 5xx', fiveXx, 'requests'),
    exact(
      `hostile requests without an answer within ${String(settings.hostileTimeoutMs / 1000)} s`,
      timeouts,
      'requests',
    ),
    {
      target: 'server still running after everything',
      limit: 'yes',
      measured: input.serverSurvived ? 'yes' : 'no',
      pass: input.serverSurvived,
    },
  ];
  const pinned =
    TASKSET === undefined
      ? 'not pinned (no taskset)'
      : 'server pinned to CPU 0, load generator (Go) and hostile client to CPU 1 (taskset)';
  const lagNote = phases.some((p) => p.lag !== undefined)
    ? `event-loop lag from /metrics \`${LAG_METRIC}\` (bucket upper bounds, per phase)`
    : `no \`${LAG_METRIC}\` histogram in /metrics: lag columns empty`;
  const base = phase('baseline')?.report;
  const [load1 = NaN, load5 = NaN] = loadavg();
  const baselineNote =
    base !== undefined && base.p99Ms < settings.p99TargetMs && base.errors + base.non200 === 0
      ? []
      : [
          '',
          `NOTE: the baseline (no hostile input) itself misses p99 < ${String(settings.p99TargetMs)} ms or failed: this machine is too slow or too busy for the figures below to mean anything (load average ${load1.toFixed(1)} / ${load5.toFixed(1)} over 1 / 5 min at the end, ${String(cpus().length)} CPUs). Run it again on a quiet machine.`,
        ];
  const backstops = input.logEvents.filter((e) => e.kind === 'backstop');
  const lines = [
    `Hostile-input benchmark — ${environment()}; ${pinned}; log level ${settings.logLevel}; load average ${load1.toFixed(1)} / ${load5.toFixed(1)} (1 / 5 min) at the end.`,
    ...baselineNote,
    '',
    `kubemod-ts serve with ${settings.rules.toLocaleString('en-US')} rules + the hostile tenant's rules (namespace hostile), startup ${f0(input.readyMs)} ms. ` +
      `Normal traffic: the 10 KB Deployment of team-a, AdmissionReview v1 CREATE, Go open loop at ${String(settings.normalRate)} req/s, HTTPS keep-alive. ` +
      `Hostile client: ${String(settings.hostileRate)} req/s cycling over the kinds below, one connection per request, ${String(settings.hostileTimeoutMs / 1000)} s timeout, at most ${String(settings.hostileMaxInFlight)} in flight. ${lagNote}. ` +
      `"quiet after": time from the end of the phase's load until /healthz answered within 150 ms twice in a row (the next phase starts then).`,
    '',
    '| phase | hostile activity | requests | non-200 | failed | req/s | p50 ms | p90 ms | p99 ms | max ms | RSS after MB | peak RSS MB | loop lag p99 | loop lag max | quiet after s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...phases.map((p) => phaseRow(p, settings)),
    '',
    ...steadyLines(input.steady, settings),
    `Hostile requests (phase "hostile requests"; ${String(outcomes.length)} sent, ${String(stream?.skipped ?? 0)} skipped because ${String(settings.hostileMaxInFlight)} were in flight):`,
    '',
    '| kind | request | expected | sent | statuses seen | max answer ms | problems |',
    '| --- | --- | --- | ---: | --- | ---: | --- |',
    ...hostileRows(input.kinds, stream),
    '',
    'Slow-loris connections (one piece per second; the bench gives up at the end of the phase):',
    '',
    '| connection | open s | ended by | server sent |',
    '| --- | ---: | --- | --- |',
    ...input.loris.map(
      (l) =>
        `| ${l.kind} | ${(l.openMs / 1000).toFixed(1)} | ${l.endedBy} | ${cell(l.answer) || '–'} |`,
    ),
    '',
    'Rule files changed during phase "hostile rule files" (reload = first "ModRules loaded" log line after the change; debounce 200 ms):',
    '',
    '| at s | change | reload | errors logged |',
    '| ---: | --- | --- | --- |',
    ...ruleEventRows(input.ruleEvents, input.logEvents),
    '',
    `Stopped by the time backstop instead of work units (must be 0): ${String(backstops.length)}${backstops.length === 0 ? '' : ` — first: ${cell(backstops[0]?.text ?? '')}`}.`,
    '',
    `Server: RSS after warm-up ${f0(input.idleRssMb)} MB; /metrics ${f0(input.metricsBytes.before === undefined ? undefined : input.metricsBytes.before / 1024)} KB before, ${f0(input.metricsBytes.after === undefined ? undefined : input.metricsBytes.after / 1024)} KB after; ${input.stopped}.`,
    '',
    'Targets:',
    '',
    formatTargets(targets),
  ];
  const correct =
    normalFailed === 0 && fiveXx === 0 && input.serverSurvived && backstops.length === 0;
  return { text: lines.join('\n'), correct };
}

/** The steady-state paragraph (nothing when the trace was not read). */
function steadyLines(steady: SteadyState | undefined, settings: HostileSettings): string[] {
  if (steady === undefined) return [];
  return [
    `Normal traffic during hostile requests after the first round (every kind sent once; the round holds one-time costs such as the dry-run worker thread's start and the first run of each code path), ${steady.fromS.toFixed(1)}–${steady.toS.toFixed(1)} s into the phase: ${String(steady.count)} requests, p99 ${f2(steady.p99Ms)} ms, p99.9 ${f2(steady.p999Ms)} ms, max ${f2(steady.maxMs)} ms, ${String(steady.over)} over ${String(settings.p99TargetMs)} ms. Informational: the target is the whole phase's p99.`,
    '',
  ];
}
