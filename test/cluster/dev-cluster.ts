import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isPidAlive, terminatePid } from './processes.js';

/** What `npm run cluster:up` records so `npm run cluster:down` can find the processes again. */
export interface DevClusterState {
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly dir: string;
  readonly pids: { readonly etcd: number; readonly kubeApiserver: number };
  readonly binaries: { readonly etcd: string; readonly kubeApiserver: string };
  readonly startedAt: string;
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
  return (
    isRunning(state.pids.kubeApiserver, state.binaries.kubeApiserver) ||
    isRunning(state.pids.etcd, state.binaries.etcd)
  );
}

/** Stops kube-apiserver, then etcd, removes the temp dir and the state file. */
export async function stopDevCluster(state: DevClusterState): Promise<string[]> {
  const stopped: string[] = [];
  const targets = [
    ['kube-apiserver', state.pids.kubeApiserver, state.binaries.kubeApiserver],
    ['etcd', state.pids.etcd, state.binaries.etcd],
  ] as const;
  for (const [name, pid, binary] of targets) {
    if (isRunning(pid, binary) && (await terminatePid(pid))) {
      stopped.push(`${name} (pid ${String(pid)})`);
    }
  }
  rmSync(state.dir, { recursive: true, force: true });
  rmSync(devClusterStatePath(), { force: true });
  return stopped;
}
