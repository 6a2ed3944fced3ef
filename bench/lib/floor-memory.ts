/**
 * Issue 38, item 3, judged against the runtime: the floor server (bench/floor-server.ts: a bare
 * Node HTTPS server that reads, JSON.parses and answers each AdmissionReview) run with the same
 * Node binary and NODE_OPTIONS as the operator, given the same admission traffic, and its RSS read
 * from /proc at the same moments (at ready, right after the traffic, after the same idle time).
 * What the operator holds beyond these figures is ours; what the floor itself holds is Node's.
 * The floor cannot be asked for a GC from outside, so it has no "after GC" figure.
 */
import { dirname, join } from 'node:path';
import { awaitLine, listeningPort, spawnPinned, stop } from './processes.js';
import {
  IDLE_AFTER_TRAFFIC_MS,
  mb,
  procFieldMb,
  readProc,
  residentMappings,
  sendTrafficRows,
  type TrafficPlan,
  type TrafficResult,
  type TrafficRow,
} from './operator-traffic.js';

/** Resident memory of another process, in MiB (NaN where /proc cannot be read). */
export interface ProcessMemory {
  readonly rssMb: number;
  readonly rssAnonMb: number;
  readonly rssFileMb: number;
  /** The brk heap of malloc's main arena. */
  readonly mallocHeapMb: number;
}

export interface FloorMemoryResult {
  readonly rows: readonly TrafficRow[];
  readonly atReady: ProcessMemory;
  readonly afterTraffic: ProcessMemory;
  readonly afterIdle: ProcessMemory;
}

/** Reads `pid`'s memory from /proc (`read` is injected for tests). */
export function processMemory(
  pid: number,
  read: (path: string) => string = readProc,
): ProcessMemory {
  const status = read(`/proc/${String(pid)}/status`);
  const mappings = residentMappings(read(`/proc/${String(pid)}/smaps`), Number.POSITIVE_INFINITY);
  const heap = mappings.find((m) => m.name === '[heap]');
  return {
    rssMb: procFieldMb(status, 'VmRSS'),
    rssAnonMb: procFieldMb(status, 'RssAnon'),
    rssFileMb: procFieldMb(status, 'RssFile'),
    mallocHeapMb: heap?.rssMb ?? 0,
  };
}

/** The floor server's command line: compiled beside this build, or its source through tsx. */
function floorArgs(): string[] {
  const script = join(dirname(import.meta.filename), '..', 'floor-server');
  return import.meta.filename.endsWith('.ts')
    ? ['--import', 'tsx', `${script}.ts`]
    : [`${script}.js`];
}

/** Runs the floor server with `nodeOptions`, sends it `plan`'s traffic, reads its memory. */
export async function measureFloorMemory(
  plan: TrafficPlan,
  nodeOptions: string,
): Promise<FloorMemoryResult> {
  const child = spawnPinned(process.execPath, floorArgs(), undefined, 'inherit', {
    NODE_OPTIONS: nodeOptions,
  });
  try {
    const port = await awaitLine(child, listeningPort);
    const pid = child.pid;
    if (pid === undefined) throw new Error('the floor server has no pid');
    const atReady = processMemory(pid);
    const rows = await sendTrafficRows(port, '/', plan);
    const afterTraffic = processMemory(pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_TRAFFIC_MS));
    const afterIdle = processMemory(pid);
    return { rows, atReady, afterTraffic, afterIdle };
  } finally {
    await stop(child);
  }
}

function memoryText(m: ProcessMemory): string {
  return `${mb(m.rssMb)} MiB (anon ${mb(m.rssAnonMb)}, of which malloc heap ${mb(m.mallocHeapMb)}; file ${mb(m.rssFileMb)})`;
}

/** The lines operator-load.ts prints for the floor, and the operator's RSS beyond it. */
export function floorMemoryLines(floor: FloorMemoryResult, operator?: TrafficResult): string[] {
  const lines = [
    'floor server (bench/floor-server.ts), same Node, NODE_OPTIONS and traffic:',
    ...floor.rows.map(
      (r) =>
        `  ${r.object}: ${r.requestsPerSecond.toFixed(0)} req/s, ${String(r.requests)} requests`,
    ),
    `  RSS at ready ${memoryText(floor.atReady)}`,
    `  right after the traffic ${memoryText(floor.afterTraffic)}`,
    `  after ${String(IDLE_AFTER_TRAFFIC_MS / 1000)} s idle ${memoryText(floor.afterIdle)}`,
  ];
  if (operator !== undefined) {
    const beyond = (ours: number, floorMb: number): string => mb(ours - floorMb);
    lines.push(
      `operator's RSS beyond the floor: before traffic +${beyond(operator.beforeTraffic.rssMb, floor.atReady.rssMb)} MiB, ` +
        `right after it +${beyond(operator.afterTraffic.rssMb, floor.afterTraffic.rssMb)} MiB, ` +
        `after idle +${beyond(operator.afterIdle.rssMb, floor.afterIdle.rssMb)} MiB`,
    );
  }
  return lines;
}
