/**
 * Admission traffic for operator-load.ts (`--traffic-ms N`): once the operator in the child
 * process has written its statuses, the native load generator (a separate process) sends the
 * compact wire bodies of the HTTP benchmark to the operator's own webhook, one object after the
 * other, and the child's memory is read after the traffic, after 5 s idle (no forced GC: what the
 * kubelet sees) and after `gc()`, with a breakdown of where the resident memory is.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { wireBodyPath, type ObjectName } from './fixtures.js';
import { buildLoadGenerator, type LoadReport, type LoadSpec } from './load-spec.js';

/** The objects sent, in this order: the HTTP benchmark's Pod and Deployments. */
export const TRAFFIC_OBJECTS = ['pod-2kb', 'deployment-10kb', 'deployment-100kb'] as const;

/** How long the operator is left idle after the traffic before its RSS is read again. */
export const IDLE_AFTER_TRAFFIC_MS = 5000;

const MIB = 2 ** 20;

/** What the child needs to send traffic, prepared by the parent (no build or file writing in the measured process). */
export interface TrafficPlan {
  readonly generator: string;
  readonly durationMs: number;
  readonly bodies: readonly { readonly object: ObjectName; readonly bodyFile: string }[];
}

export interface TrafficRow {
  readonly object: ObjectName;
  readonly requests: number;
  readonly errors: number;
  readonly non200: number;
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
}

/** Where the resident memory of the process is at one moment, in MiB. */
export interface MemorySnapshot {
  readonly rssMb: number;
  readonly heapTotalMb: number;
  readonly heapUsedMb: number;
  readonly externalMb: number;
  readonly arrayBuffersMb: number;
  /** From /proc/self/status (NaN where it cannot be read): anonymous, file-backed, shared. */
  readonly rssAnonMb: number;
  readonly rssFileMb: number;
  readonly rssShmemMb: number;
  /** Peak RSS of the process so far (VmHWM). */
  readonly peakRssMb: number;
  /** Anonymous memory in transparent huge pages (/proc/self/smaps_rollup). */
  readonly anonHugePagesMb: number;
  /** Physical size of each V8 heap space. */
  readonly spacesMb: Readonly<Record<string, number>>;
  /**
   * The largest resident mappings of /proc/self/smaps, summed by name (a file, `[heap]` for the
   * brk heap of malloc's main arena, `[anon]` for unnamed anonymous mappings: V8's heap, other
   * malloc arenas, thread stacks), largest first.
   */
  readonly mappingsMb: readonly { readonly name: string; readonly rssMb: number }[];
}

export interface TrafficResult {
  readonly durationMs: number;
  readonly rows: readonly TrafficRow[];
  /** Before the first request (after the statuses and a GC). */
  readonly beforeTraffic: MemorySnapshot;
  readonly afterTraffic: MemorySnapshot;
  readonly afterIdle: MemorySnapshot;
  readonly afterGc: MemorySnapshot;
}

/** Builds the load generator and writes the wire bodies (in the parent process). */
export function prepareTraffic(durationMs: number): TrafficPlan {
  return {
    generator: buildLoadGenerator(),
    durationMs,
    bodies: TRAFFIC_OBJECTS.map((object) => ({ object, bodyFile: wireBodyPath(object) })),
  };
}

/** A `kB` field of a /proc file, in MiB; NaN when absent. */
export function procFieldMb(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
}

/** A /proc file's text; empty when it cannot be read. */
export function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Resident memory by mapping name from a /proc/<pid>/smaps text, the `top` largest. */
export function residentMappings(smaps: string, top: number): { name: string; rssMb: number }[] {
  const byName = new Map<string, number>();
  let name = '';
  for (const line of smaps.split('\n')) {
    // A mapping's header: address range, perms, offset, device, inode, then the optional name.
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header !== null) {
      name = header[1] === undefined || header[1] === '' ? '[anon]' : header[1];
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss?.[1] !== undefined) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...byName]
    .map(([n, rssMb]) => ({ name: n, rssMb }))
    .sort((a, b) => b.rssMb - a.rssMb)
    .slice(0, top);
}

/** The memory of this process now (no GC forced). */
export function memorySnapshot(): MemorySnapshot {
  const usage = process.memoryUsage();
  const status = readProc('/proc/self/status');
  const rollup = readProc('/proc/self/smaps_rollup');
  return {
    rssMb: usage.rss / MIB,
    heapTotalMb: usage.heapTotal / MIB,
    heapUsedMb: usage.heapUsed / MIB,
    externalMb: usage.external / MIB,
    arrayBuffersMb: usage.arrayBuffers / MIB,
    rssAnonMb: procFieldMb(status, 'RssAnon'),
    rssFileMb: procFieldMb(status, 'RssFile'),
    rssShmemMb: procFieldMb(status, 'RssShmem'),
    peakRssMb: procFieldMb(status, 'VmHWM'),
    anonHugePagesMb: procFieldMb(rollup, 'AnonHugePages'),
    spacesMb: Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size / MIB]),
    ),
    mappingsMb: residentMappings(readProc('/proc/self/smaps'), 6),
  };
}

/** Runs the load generator once; rejects on a non-zero exit or output that is no report. */
function runLoadGenerator(generator: string, spec: LoadSpec): Promise<LoadReport> {
  return new Promise<LoadReport>((resolve, reject) => {
    const proc = spawn(generator, [JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`load generator exited ${String(code)}`));
        return;
      }
      try {
        resolve(JSON.parse(text.trim().split('\n').pop() ?? '') as LoadReport);
      } catch {
        reject(new Error(`load generator printed no report: ${JSON.stringify(text)}`));
      }
    });
  });
}

/**
 * Sends `plan`'s traffic to `path` on the local HTTPS server at `port` (closed loop, 32
 * connections, each object `plan.durationMs` in turn). Throws when a request failed or was
 * answered with anything but 200, or when an object got no request through.
 */
export async function sendTrafficRows(
  port: number,
  path: string,
  plan: TrafficPlan,
): Promise<TrafficRow[]> {
  const rows: TrafficRow[] = [];
  for (const { object, bodyFile } of plan.bodies) {
    const report = await runLoadGenerator(plan.generator, {
      port,
      path,
      method: 'POST',
      bodyFile,
      mode: 'closed',
      concurrency: 32,
      durationMs: plan.durationMs,
      maxRequests: 1_000_000,
    });
    rows.push({
      object,
      requests: report.requests,
      errors: report.errors,
      non200: report.non200,
      requestsPerSecond: report.requestsPerSecond,
      p99Ms: report.p99Ms,
    });
  }
  const failed = rows.filter((r) => r.errors > 0 || r.non200 > 0 || r.requests === 0);
  if (failed.length > 0) {
    throw new Error(`admission traffic failed: ${JSON.stringify(failed)}`);
  }
  return rows;
}

/**
 * Sends `plan`'s traffic to the webhook of `webhookUrl` (see sendTrafficRows) and reads this
 * process's memory before and after it.
 */
export async function sendTraffic(webhookUrl: string, plan: TrafficPlan): Promise<TrafficResult> {
  const port = Number(new URL(webhookUrl).port);
  const beforeTraffic = memorySnapshot();
  const rows = await sendTrafficRows(port, '/dragnet-webhook', plan);
  const afterTraffic = memorySnapshot();
  await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_TRAFFIC_MS));
  const afterIdle = memorySnapshot();
  globalThis.gc?.();
  const afterGc = memorySnapshot();
  return { durationMs: plan.durationMs, rows, beforeTraffic, afterTraffic, afterIdle, afterGc };
}

export function mb(n: number): string {
  return Number.isNaN(n) ? '?' : n.toFixed(0);
}

function breakdown(label: string, m: MemorySnapshot): string {
  const spaces = Object.entries(m.spacesMb)
    .filter(([, size]) => size >= 0.5)
    .map(([name, size]) => `${name.replace(/_space$/, '')} ${mb(size)}`)
    .join(', ');
  const mappings = m.mappingsMb.map((x) => `${x.name} ${x.rssMb.toFixed(1)}`).join(', ');
  return (
    `  ${label}: RSS ${mb(m.rssMb)} MiB = anon ${mb(m.rssAnonMb)} (THP ${mb(m.anonHugePagesMb)}) + file ${mb(m.rssFileMb)} + shmem ${mb(m.rssShmemMb)}; ` +
    `V8 heap total ${mb(m.heapTotalMb)} used ${mb(m.heapUsedMb)} [${spaces}]; external ${mb(m.externalMb)} (array buffers ${mb(m.arrayBuffersMb)}); peak RSS ${mb(m.peakRssMb)}; ` +
    `largest mappings: ${mappings}`
  );
}

/** The lines report() of operator-load.ts prints for the traffic. */
export function trafficLines(t: TrafficResult): string[] {
  return [
    `admission traffic to the operator's webhook (closed loop, 32 connections, ${String(t.durationMs)} ms per object):`,
    ...t.rows.map(
      (r) =>
        `  ${r.object}: ${r.requestsPerSecond.toFixed(0)} req/s, ${String(r.requests)} requests, ${String(r.errors)} errors, ${String(r.non200)} non-200, p99 ${r.p99Ms.toFixed(1)} ms`,
    ),
    `RSS right after the traffic ${mb(t.afterTraffic.rssMb)} MiB; after ${String(IDLE_AFTER_TRAFFIC_MS / 1000)} s idle (no GC) ${mb(t.afterIdle.rssMb)} MiB; after GC ${mb(t.afterGc.rssMb)} MiB (heap used ${mb(t.afterGc.heapUsedMb)} MiB)`,
    breakdown('before traffic', t.beforeTraffic),
    breakdown('after traffic', t.afterTraffic),
    breakdown('after idle', t.afterIdle),
    breakdown('after GC', t.afterGc),
  ];
}
