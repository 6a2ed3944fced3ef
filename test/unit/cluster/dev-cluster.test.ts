import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isDevClusterRunning,
  stopDevCluster,
  writeDevClusterState,
  type DevClusterState,
} from '../../cluster/dev-cluster.js';

// Stand-ins for the control-plane processes: `sleep`, recorded with /bin/sleep as their binary
// (stopDevCluster only signals pids whose command line still names the recorded binary).

const SLEEP = '/bin/sleep';
let cacheHome: string;
let previousCacheHome: string | undefined;
const children: ChildProcess[] = [];

function sleeper(): number {
  const child = spawn(SLEEP, ['60'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('could not spawn sleep');
  return child.pid;
}

beforeEach(() => {
  previousCacheHome = process.env.XDG_CACHE_HOME;
  cacheHome = mkdtempSync(join(tmpdir(), 'kubemod-ts-devcluster-'));
  process.env.XDG_CACHE_HOME = cacheHome;
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  if (previousCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = previousCacheHome;
  rmSync(cacheHome, { recursive: true, force: true });
});

function state(withControllers: boolean): DevClusterState {
  const dir = join(cacheHome, 'cluster');
  mkdirSync(dir);
  return {
    kubeconfigPath: join(dir, 'kubeconfig'),
    server: 'https://127.0.0.1:1',
    dir,
    pids: {
      etcd: sleeper(),
      kubeApiserver: sleeper(),
      ...(withControllers ? { kubeControllerManager: sleeper(), kubeScheduler: sleeper() } : {}),
    },
    binaries: {
      etcd: SLEEP,
      kubeApiserver: SLEEP,
      ...(withControllers ? { kubeControllerManager: SLEEP, kubeScheduler: SLEEP } : {}),
    },
    startedAt: new Date().toISOString(),
  };
}

describe.runIf(process.platform === 'linux')('stopDevCluster', () => {
  it('stops the scheduler and the controller-manager before the API server and etcd', async () => {
    const running = state(true);
    writeDevClusterState(running);
    expect(isDevClusterRunning(running)).toBe(true);
    const stopped = await stopDevCluster(running);
    expect(stopped.map((entry) => entry.split(' ')[0])).toEqual([
      'kube-scheduler',
      'kube-controller-manager',
      'kube-apiserver',
      'etcd',
    ]);
    expect(isDevClusterRunning(running)).toBe(false);
  });

  it('still stops a cluster recorded before the harness had controllers', async () => {
    const running = state(false);
    const stopped = await stopDevCluster(running);
    expect(stopped.map((entry) => entry.split(' ')[0])).toEqual(['kube-apiserver', 'etcd']);
  });
});
