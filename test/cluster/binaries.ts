import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  availableKubernetesVersions,
  chooseKubernetesVersions,
  kubernetesVersionsEnv,
  type KubernetesVersions,
} from './kubernetes-versions.js';

/** Absolute paths of the control-plane executables. */
export interface ControlPlaneBinaries {
  readonly binDir: string;
  readonly kubeApiserver: string;
  readonly etcd: string;
  /** Absent when the bin directory predates them (an older `$KUBEMOD_CONTROL_PLANE_BIN`). */
  readonly kubeControllerManager?: string;
  readonly kubeScheduler?: string;
}

/**
 * Environment variable that points at a directory holding `kube-apiserver` and `etcd`, and for a
 * control plane with controllers also `kube-controller-manager` and `kube-scheduler`.
 */
export const CONTROL_PLANE_BIN_ENV = 'KUBEMOD_CONTROL_PLANE_BIN';

/** The repository, seen from test/cluster (sources) or dist/test/cluster (compiled benches). */
export function repoRoot(): string {
  const here = fileURLToPath(new URL('../../', import.meta.url));
  return basename(here) === 'dist' ? dirname(here.replace(/[\\/]$/, '')) : here;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** kube-apiserver and etcd must be in `binDir`; the controller binaries are taken if there. */
export function binariesIn(binDir: string): ControlPlaneBinaries {
  const kubeApiserver = join(binDir, 'kube-apiserver');
  const etcd = join(binDir, 'etcd');
  for (const file of [kubeApiserver, etcd]) {
    if (!isExecutable(file)) {
      throw new Error(`control-plane binary ${file} is missing or not executable`);
    }
  }
  const optional = (name: string): string | undefined => {
    const file = join(binDir, name);
    return isExecutable(file) ? file : undefined;
  };
  const kubeControllerManager = optional('kube-controller-manager');
  const kubeScheduler = optional('kube-scheduler');
  return {
    binDir,
    kubeApiserver,
    etcd,
    ...(kubeControllerManager === undefined ? {} : { kubeControllerManager }),
    ...(kubeScheduler === undefined ? {} : { kubeScheduler }),
  };
}

/**
 * The Kubernetes versions this process runs the harness at, from `$KUBEMOD_K8S_VERSION` and
 * `$KUBEMOD_NODE_K8S_VERSION` (test/cluster/kubernetes-versions.ts; default: the newest wrapper
 * module). The one place the harness reads them; the build scripts get them passed explicitly.
 */
export function selectedKubernetesVersions(): KubernetesVersions {
  const modulesRoot = join(repoRoot(), 'test', 'cluster', 'kubernetes');
  return chooseKubernetesVersions(availableKubernetesVersions(modulesRoot), process.env);
}

/**
 * Runs one of the harness's build scripts (scripts/build-*.sh) for `versions`; resolves the last
 * line of its stdout (the directory it built or found cached). Progress goes to our stderr.
 */
export function runBuildScript(name: string, versions: KubernetesVersions): Promise<string> {
  const script = join(repoRoot(), 'scripts', name);
  return new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...kubernetesVersionsEnv(versions) },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && last !== '') {
        resolve(last);
      } else {
        reject(new Error(`${script} failed with exit code ${String(code)}`));
      }
    });
  });
}

/**
 * Locates the control-plane binaries: `$KUBEMOD_CONTROL_PLANE_BIN` if set, otherwise the cache of
 * scripts/build-control-plane.sh for `versions.controlPlane`, which is run (a few milliseconds
 * when warm; a long Go build when cold, with its progress on our stderr).
 */
export async function resolveControlPlaneBinaries(
  versions: KubernetesVersions = selectedKubernetesVersions(),
): Promise<ControlPlaneBinaries> {
  const fromEnv = process.env[CONTROL_PLANE_BIN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return binariesIn(fromEnv);
  }
  return binariesIn(await runBuildScript('build-control-plane.sh', versions));
}
