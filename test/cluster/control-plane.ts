import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiCredentials } from './api-client.js';
import { resolveControlPlaneBinaries, type ControlPlaneBinaries } from './binaries.js';
import { spawnControllers, waitForControllers } from './controllers.js';
import { DEFAULT_NODES, registerNodes, type HarnessNode } from './nodes.js';
import { freeLoopbackPorts } from './ports.js';
import { kubeApiserverArgs, waitForReady, type ApiserverNetwork } from './apiserver.js';
import { writeAdminKubeconfig, writeControlPlanePki, type ControlPlanePki } from './pki.js';
import { killNow, spawnLogged, terminate, type ManagedProcess } from './processes.js';
import {
  CONTROL_PLANE_DIR_PREFIX,
  recordOwnerPids,
  removeStaleControlPlaneDirs,
} from './stale-dirs.js';

// Kept here too: callers import it from this module.
export { freeLoopbackPorts } from './ports.js';
export type { ApiserverNetwork } from './apiserver.js';

export interface ControlPlaneOptions {
  /** Defaults to {@link resolveControlPlaneBinaries}. */
  readonly binaries?: ControlPlaneBinaries;
  /** How long to wait for `/readyz`. Defaults to 120 s. */
  readonly readyTimeoutMs?: number;
  /** Directory the temp dir is created in. Defaults to `os.tmpdir()`. */
  readonly parentDir?: string;
  /**
   * Let the processes outlive this Node process (for `npm run cluster:up`): they get their own
   * session and no exit/signal handlers are installed, so `stop()` is the only way to end them.
   */
  readonly detached?: boolean;
  /**
   * Also run kube-controller-manager and kube-scheduler (with their own client certificates) and
   * register {@link nodes}, so Deployments make ReplicaSets, ReplicaSets make Pods, Pods get
   * scheduled, namespaces get deleted and every namespace gets its `default` ServiceAccount.
   * Pods never run: there is no kubelet. Defaults to false (etcd and kube-apiserver only).
   */
  readonly controllers?: boolean;
  /**
   * Nodes to register (Ready, with capacity and labels). Defaults to {@link DEFAULT_NODES} with
   * `controllers`, none without.
   */
  readonly nodes?: readonly HarnessNode[];
  /** Where the API server listens and what it serves, for a real node (real-node-cluster.ts). */
  readonly apiserverNetwork?: ApiserverNetwork;
}

export interface ControlPlanePids {
  readonly etcd: number;
  readonly kubeApiserver: number;
  /** Present with `controllers`. */
  readonly kubeControllerManager?: number;
  readonly kubeScheduler?: number;
}

export interface ControlPlane {
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  readonly caPem: string;
  /** The certificates and keys (a real node's kubelet gets a client certificate from it). */
  readonly pki: ControlPlanePki;
  /** Temp dir holding certificates, etcd data, logs and the kubeconfig. */
  readonly dir: string;
  readonly pids: ControlPlanePids;
  /** Milliseconds from spawning etcd until `/readyz` returned 200. */
  readonly startupMs: number;
  /**
   * With `controllers`: milliseconds from the API server's `/readyz` until the controllers and the
   * scheduler were ready (Nodes registered, `default` ServiceAccount created).
   */
  readonly controllersStartupMs?: number;
  /** Names of the registered Nodes (empty without `controllers` or `nodes`). */
  readonly nodes: readonly string[];
  /**
   * Stops the processes in reverse start order (SIGTERM, SIGKILL after a grace period) and
   * removes `dir`.
   */
  stop(): Promise<void>;
  /**
   * Kills kube-apiserver (SIGKILL, as a crash would), waits `downMs`, starts it again with the same
   * arguments on the same port and waits for `/readyz`. etcd (and the controllers, which
   * reconnect by themselves) keep running. For reconnect tests.
   */
  restartKubeApiserver(downMs?: number): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports, as controller-runtime's envtest does;
 * with `controllers`, also kube-controller-manager and kube-scheduler, and registers Nodes.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = options.binaries ?? (await resolveControlPlaneBinaries());
  const detached = options.detached ?? false;
  const controllers = options.controllers ?? false;
  const controllerBinaries = controllers ? requireControllerBinaries(binaries) : undefined;
  const parentDir = options.parentDir ?? tmpdir();
  removeStaleControlPlaneDirs(parentDir);
  const dir = mkdtempSync(join(parentDir, CONTROL_PLANE_DIR_PREFIX));
  const processes: ManagedProcess[] = [];
  const killAll = (): void => {
    for (const proc of [...processes].reverse()) {
      killNow(proc);
    }
  };
  const cleanupSync = (): void => {
    killAll();
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanupSync();
    removeHandlers();
    // Only re-raise when nobody else (e.g. vitest) handles the signal.
    if (process.listenerCount(signal) === 0) {
      process.kill(process.pid, signal);
    }
  };
  const removeHandlers = (): void => {
    process.off('exit', cleanupSync);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  if (!detached) {
    process.on('exit', cleanupSync);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  try {
    const [etcdClientPort, etcdPeerPort, apiPort, controllerManagerPort, schedulerPort] =
      await freeLoopbackPorts(5);
    if (
      etcdClientPort === undefined ||
      etcdPeerPort === undefined ||
      apiPort === undefined ||
      controllerManagerPort === undefined ||
      schedulerPort === undefined
    ) {
      throw new Error('could not reserve loopback ports');
    }
    const network = options.apiserverNetwork;
    const host = network?.bindAddress ?? '127.0.0.1';
    const pki = writeControlPlanePki(
      dir,
      network === undefined ? [] : [host, ...network.extraServingIps],
    );
    const server = `https://${host}:${String(apiPort)}`;
    const started = performance.now();

    const etcdClientUrl = `http://127.0.0.1:${String(etcdClientPort)}`;
    const etcdPeerUrl = `http://127.0.0.1:${String(etcdPeerPort)}`;
    processes.push(
      spawnLogged(
        'etcd',
        binaries.etcd,
        [
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdClientUrl}`,
          `--advertise-client-urls=${etcdClientUrl}`,
          `--listen-peer-urls=${etcdPeerUrl}`,
          `--initial-advertise-peer-urls=${etcdPeerUrl}`,
          `--initial-cluster=default=${etcdPeerUrl}`,
          '--unsafe-no-fsync=true',
          '--log-level=warn',
        ],
        join(dir, 'etcd.log'),
        { detached },
      ),
    );
    const spawnApiserver = (): ManagedProcess =>
      spawnLogged(
        'kube-apiserver',
        binaries.kubeApiserver,
        kubeApiserverArgs(dir, apiPort, etcdClientUrl, pki, controllers, network),
        join(dir, 'kube-apiserver.log'),
        { detached },
      );
    processes.push(spawnApiserver());
    recordOwnerPids(
      dir,
      processes.map((proc) => proc.pid),
    );
    await waitForReady(server, pki, processes, options.readyTimeoutMs ?? 120_000);
    const startupMs = Math.round(performance.now() - started);
    const kubeconfigPath = writeAdminKubeconfig(join(dir, 'kubeconfig'), server, pki);
    const api: ApiCredentials = {
      server,
      caPem: pki.servingCaPem,
      certPem: pki.admin.certPem,
      keyPem: pki.admin.keyPem,
    };
    const nodes = await registerNodes(api, options.nodes ?? (controllers ? DEFAULT_NODES : []));

    let controllersStartupMs: number | undefined;
    if (controllerBinaries !== undefined) {
      const controllersStarted = performance.now();
      processes.push(
        ...spawnControllers({
          binaries: controllerBinaries,
          dir,
          server,
          pki,
          controllerManagerPort,
          schedulerPort,
          detached,
          // Services of running Pods need endpoints (only a real node has running Pods).
          ...(network === undefined
            ? {}
            : { extraControllers: ['endpoint', 'endpointslice', 'endpointslicemirroring'] }),
        }),
      );
      recordOwnerPids(
        dir,
        processes.map((proc) => proc.pid),
      );
      await waitForControllers({
        api,
        controllerManagerPort,
        schedulerPort,
        processes,
        timeoutMs: options.readyTimeoutMs ?? 120_000,
      });
      controllersStartupMs = Math.round(performance.now() - controllersStarted);
    }

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopping ??= (async (): Promise<void> => {
        removeHandlers();
        for (const proc of [...processes].reverse()) {
          await terminate(proc);
        }
        await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      })();
      return stopping;
    };
    const pidOf = (name: string): number | undefined =>
      processes.find((proc) => proc.name === name)?.pid;
    const kubeControllerManager = pidOf('kube-controller-manager');
    const kubeScheduler = pidOf('kube-scheduler');
    const restartKubeApiserver = async (downMs = 0): Promise<void> => {
      const index = processes.findIndex((proc) => proc.name === 'kube-apiserver');
      const old = processes[index];
      if (old === undefined) throw new Error('kube-apiserver is not running');
      killNow(old);
      await old.exited;
      if (downMs > 0) await sleep(downMs);
      const next = spawnApiserver();
      processes[index] = next;
      recordOwnerPids(
        dir,
        processes.map((proc) => proc.pid),
      );
      await waitForReady(server, pki, processes, options.readyTimeoutMs ?? 120_000);
    };
    return {
      restartKubeApiserver,
      kubeconfigPath,
      server,
      caPem: pki.servingCaPem,
      pki,
      dir,
      pids: {
        etcd: pidOf('etcd') ?? -1,
        kubeApiserver: pidOf('kube-apiserver') ?? -1,
        ...(kubeControllerManager === undefined ? {} : { kubeControllerManager }),
        ...(kubeScheduler === undefined ? {} : { kubeScheduler }),
      },
      startupMs,
      ...(controllersStartupMs === undefined ? {} : { controllersStartupMs }),
      nodes,
      stop,
    };
  } catch (error: unknown) {
    removeHandlers();
    cleanupSync();
    throw error;
  }
}

function requireControllerBinaries(binaries: ControlPlaneBinaries): {
  kubeControllerManager: string;
  kubeScheduler: string;
} {
  const { kubeControllerManager, kubeScheduler } = binaries;
  if (kubeControllerManager === undefined || kubeScheduler === undefined) {
    throw new Error(
      `kube-controller-manager or kube-scheduler is missing in ${binaries.binDir}: ` +
        'build them with scripts/build-control-plane.sh (or start without controllers)',
    );
  }
  return { kubeControllerManager, kubeScheduler };
}
