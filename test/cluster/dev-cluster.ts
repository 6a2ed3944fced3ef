import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { releaseNode, type NodeRecord } from './node-network.js';
import { restoreSysctls, type SysctlSnapshot } from './node-sysctls.js';
import { isPidAlive, terminatePid } from './processes.js';

/** What `npm run cluster:up` records so `npm run cluster:down` can find the processes again. */
export interface DevClusterState {
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly dir: string;
  readonly pids: {
    readonly etcd: number;
    readonly kubeApiserver: number;
    readonly kubeControllerManager?: number;
    readonly kubeScheduler?: number;
  };
  readonly binaries: {
    readonly etcd: string;
    readonly kubeApiserver: string;
    readonly kubeControllerManager?: string;
    readonly kubeScheduler?: string;
  };
  /** Registered Nodes (absent in state files written before the harness had controllers). */
  readonly nodes?: readonly string[];
  /** With `cluster:up -- --real-node`: what the node holds on the host, to release it. */
  readonly realNode?: {
    readonly dir: string;
    readonly record: NodeRecord;
    readonly sysctls: SysctlSnapshot;
  };
  readonly startedAt: string;
}

type Component = readonly [name: string, pid: number, binary: string];

/** The recorded processes in stop order: scheduler, controller-manager, API server, etcd. */
function components(state: DevClusterState): Component[] {
  const { pids, binaries } = state;
  const optional = (name: string, pid?: number, binary?: string): Component[] =>
    pid === undefined || binary === undefined ? [] : [[name, pid, binary]];
  return [
    ...optional('kube-scheduler', pids.kubeScheduler, binaries.kubeScheduler),
    ...optional(
      'kube-controller-manager',
      pids.kubeControllerManager,
      binaries.kubeControllerManager,
    ),
    ['kube-apiserver', pids.kubeApiserver, binaries.kubeApiserver],
    ['etcd', pids.etcd, binaries.etcd],
  ];
}

export function devClusterStatePath(): string {
  const cacheHome = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(cacheHome, 'kubemod-ts', 'dev-cluster', 'state.json');
}

export function readDevClusterState(): DevClusterState | undefined {
  const path = devClusterStatePath();
  if (!existsSync(path)) {
    return undefined;
  }
  return JSON.parse(readFileSync(path, 'utf8')) as DevClusterState;
}

export function writeDevClusterState(state: DevClusterState): string {
  const path = devClusterStatePath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(state, null, 2) + '\n');
  return path;
}

/** True if `pid` is alive and still runs `binary` (guards against recycled pids). */
export function isRunning(pid: number, binary: string): boolean {
  if (pid <= 0 || !isPidAlive(pid)) {
    return false;
  }
  try {
    const argv0 = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return basename(argv0) === basename(binary);
  } catch {
    // No procfs (macOS): trust the pid.
    return process.platform !== 'linux';
  }
}

export function isDevClusterRunning(state: DevClusterState): boolean {
  return components(state).some(([, pid, binary]) => isRunning(pid, binary));
}

/**
 * Releases the real node (if recorded: its processes, namespaces, cgroups, sysctls), stops
 * kube-scheduler and kube-controller-manager (if recorded), kube-apiserver, then etcd, removes
 * the temp dir and the state file.
 */
export async function stopDevCluster(state: DevClusterState): Promise<string[]> {
  const stopped: string[] = [];
  if (state.realNode !== undefined) {
    await releaseNode(state.realNode.record);
    restoreSysctls(state.realNode.sysctls);
    rmSync(state.realNode.dir, { recursive: true, force: true });
    stopped.push(`the real node (${state.realNode.record.addresses?.cgroupName ?? 'unclaimed'})`);
  }
  for (const [name, pid, binary] of components(state)) {
    if (isRunning(pid, binary) && (await terminatePid(pid))) {
      stopped.push(`${name} (pid ${String(pid)})`);
    }
  }
  rmSync(state.dir, { recursive: true, force: true });
  rmSync(devClusterStatePath(), { force: true });
  return stopped;
}
