import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiRequest, type ApiCredentials } from './api-client.js';
import { writeClientKubeconfig, type ControlPlanePki } from './pki.js';
import { logTail, spawnLogged, type ManagedProcess } from './processes.js';

/**
 * The kube-controller-manager controllers the harness runs: what workloads, namespaces and service
 * accounts need. Left out on purpose: node-lifecycle (no kubelet sends heartbeats, so it would mark
 * every Node NotReady and taint it), node-ipam, persistent volumes, certificate signing, quotas
 * and autoscaling.
 */
export const CONTROLLER_MANAGER_CONTROLLERS: readonly string[] = [
  'serviceaccount-token',
  'serviceaccount',
  'root-ca-cert-publisher',
  'namespace',
  'garbagecollector',
  'deployment',
  'replicaset',
  'statefulset',
  'daemonset',
  'job',
  'cronjob',
  'podgc',
  'clusterrole-aggregation',
];

export interface ControllerArgsInput {
  readonly dir: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  readonly pki: ControlPlanePki;
  /** Run besides {@link CONTROLLER_MANAGER_CONTROLLERS} (a real node needs the endpoint ones). */
  readonly extraControllers?: readonly string[];
}

/**
 * kube-controller-manager as kubeadm runs it (each controller under its own service account, the
 * token controller signing with the API server's service-account key, the serving CA published
 * as `kube-root-ca.crt`), minus leader election, with a higher client rate limit so tests do not
 * wait on it. Controllers react to watch events, so no sync period needs shortening.
 */
export function kubeControllerManagerArgs(input: ControllerArgsInput): string[] {
  return [
    `--kubeconfig=${input.kubeconfigPath}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${String(input.port)}`,
    `--cert-dir=${join(input.dir, 'kube-controller-manager-certs')}`,
    '--leader-elect=false',
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${input.pki.serviceAccountPrivateKeyFile}`,
    `--root-ca-file=${input.pki.servingCaFile}`,
    `--controllers=${[...CONTROLLER_MANAGER_CONTROLLERS, ...(input.extraControllers ?? [])].join(',')}`,
    '--kube-api-qps=100',
    '--kube-api-burst=200',
    '--v=1',
  ];
}

/** kube-scheduler with its default profile, without leader election. */
export function kubeSchedulerArgs(input: ControllerArgsInput): string[] {
  return [
    `--kubeconfig=${input.kubeconfigPath}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${String(input.port)}`,
    `--cert-dir=${join(input.dir, 'kube-scheduler-certs')}`,
    '--leader-elect=false',
    '--v=1',
  ];
}

export interface SpawnControllersInput {
  readonly binaries: { readonly kubeControllerManager: string; readonly kubeScheduler: string };
  /** The control plane's temp dir: kubeconfigs, serving certificates and logs go there. */
  readonly dir: string;
  readonly server: string;
  readonly pki: ControlPlanePki;
  readonly controllerManagerPort: number;
  readonly schedulerPort: number;
  readonly detached: boolean;
  readonly extraControllers?: readonly string[];
}

/**
 * Starts kube-controller-manager and kube-scheduler, each with its own client certificate
 * (`system:kube-controller-manager`, `system:kube-scheduler`: the users the API server's
 * bootstrap RBAC policy grants their permissions to).
 */
export function spawnControllers(input: SpawnControllersInput): ManagedProcess[] {
  const argsInput = (name: string, port: number): ControllerArgsInput => ({
    dir: input.dir,
    port,
    pki: input.pki,
    ...(input.extraControllers === undefined ? {} : { extraControllers: input.extraControllers }),
    kubeconfigPath: writeClientKubeconfig(
      join(input.dir, `${name}.kubeconfig`),
      input.server,
      input.pki,
      { user: `system:${name}` },
    ),
  });
  return [
    spawnLogged(
      'kube-controller-manager',
      input.binaries.kubeControllerManager,
      kubeControllerManagerArgs(argsInput('kube-controller-manager', input.controllerManagerPort)),
      join(input.dir, 'kube-controller-manager.log'),
      { detached: input.detached },
    ),
    spawnLogged(
      'kube-scheduler',
      input.binaries.kubeScheduler,
      kubeSchedulerArgs(argsInput('kube-scheduler', input.schedulerPort)),
      join(input.dir, 'kube-scheduler.log'),
      { detached: input.detached },
    ),
  ];
}

/** GET on a component's own HTTPS port (self-signed certificate); resolves the status or error. */
function probe(url: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const request = httpsGet(url, { rejectUnauthorized: false, timeout: 5_000 }, (response) => {
      response.resume();
      resolve(String(response.statusCode));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => {
      resolve(error.message);
    });
  });
}

export interface ControllerReadiness {
  readonly api: ApiCredentials;
  readonly controllerManagerPort: number;
  readonly schedulerPort: number;
  /** Checked for early exits while waiting. */
  readonly processes: readonly ManagedProcess[];
  readonly timeoutMs: number;
}

/**
 * Waits until kube-controller-manager answers /healthz, kube-scheduler answers /readyz (its
 * informers have synced), and the controllers have done their first work: the `default`
 * ServiceAccount and the `kube-root-ca.crt` ConfigMap exist in the `default` namespace.
 */
export async function waitForControllers(readiness: ControllerReadiness): Promise<void> {
  const deadline = Date.now() + readiness.timeoutMs;
  const checks: readonly (readonly [string, () => Promise<string>])[] = [
    [
      'kube-controller-manager /healthz',
      () => probe(`https://127.0.0.1:${String(readiness.controllerManagerPort)}/healthz`),
    ],
    [
      'kube-scheduler /readyz',
      () => probe(`https://127.0.0.1:${String(readiness.schedulerPort)}/readyz`),
    ],
    [
      'ServiceAccount default/default',
      async () =>
        String(
          (
            await apiRequest(
              readiness.api,
              'GET',
              '/api/v1/namespaces/default/serviceaccounts/default',
            )
          ).status,
        ),
    ],
    [
      'ConfigMap default/kube-root-ca.crt',
      async () =>
        String(
          (
            await apiRequest(
              readiness.api,
              'GET',
              '/api/v1/namespaces/default/configmaps/kube-root-ca.crt',
            )
          ).status,
        ),
    ],
  ];
  for (const [what, check] of checks) {
    for (;;) {
      const dead = readiness.processes.find((proc) => proc.hasExited());
      if (dead !== undefined) {
        throw new Error(`${dead.name} exited during startup:\n${logTail(dead.logPath)}`);
      }
      let status: string;
      try {
        status = await check();
      } catch (error: unknown) {
        status = error instanceof Error ? error.message : String(error);
      }
      if (status === '200') break;
      if (Date.now() > deadline) {
        const logs = readiness.processes.map(
          (proc) => `--- ${proc.name}:\n${logTail(proc.logPath)}`,
        );
        throw new Error(
          `controllers not ready after ${String(readiness.timeoutMs)} ms: ${what} answered ${status}\n` +
            logs.join('\n'),
        );
      }
      await sleep(200);
    }
  }
}
