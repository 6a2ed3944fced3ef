import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Kubernetes version of the harness's control plane (kube-apiserver, kube-controller-manager,
 * kube-scheduler), e.g. `v1.35.4`; unset: the newest supported.
 */
export const KUBERNETES_VERSION_ENV = 'KUBEMOD_K8S_VERSION';
/** The real node's kubelet and kube-proxy version; unset: the control plane's. */
export const NODE_KUBERNETES_VERSION_ENV = 'KUBEMOD_NODE_K8S_VERSION';

/** Which wrapper modules (test/cluster/kubernetes/<version>/) the harness builds and runs. */
export interface KubernetesVersions {
  readonly controlPlane: string;
  readonly node: string;
}

const RELEASE = /^v1\.(\d+)\.(\d+)$/;

/** Orders release versions (`v1.<minor>.<patch>`) oldest first; anything else sorts last. */
export function compareKubernetesVersions(a: string, b: string): number {
  const pa = RELEASE.exec(a);
  const pb = RELEASE.exec(b);
  if (pa === null || pb === null) return (pa === null ? 1 : 0) - (pb === null ? 1 : 0);
  return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]);
}

/** The versions with a wrapper module under `modulesRoot` (test/cluster/kubernetes), oldest first. */
export function availableKubernetesVersions(modulesRoot: string): string[] {
  return readdirSync(modulesRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && RELEASE.test(entry.name))
    .map((entry) => entry.name)
    .sort(compareKubernetesVersions);
}

/** The wrapper module directory of `version`. */
export function kubernetesModuleDir(modulesRoot: string, version: string): string {
  return join(modulesRoot, version);
}

function pick(
  available: readonly string[],
  variable: string,
  requested: string | undefined,
  fallback: string,
): string {
  if (requested === undefined || requested === '') return fallback;
  if (available.includes(requested)) return requested;
  throw new Error(
    `${variable}=${requested}: no wrapper module test/cluster/kubernetes/${requested}/ ` +
      `(supported: ${available.join(', ')}; scripts/new-kubernetes-module.sh adds one)`,
  );
}

/**
 * The control plane's version: `$KUBEMOD_K8S_VERSION`, else the newest available; the node's:
 * `$KUBEMOD_NODE_K8S_VERSION`, else the control plane's. A kubelet newer than the API server is
 * refused (the version skew policy allows it up to three minors older, never newer).
 */
export function chooseKubernetesVersions(
  available: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): KubernetesVersions {
  const newest = available.at(-1);
  if (newest === undefined)
    throw new Error('no Kubernetes wrapper module in test/cluster/kubernetes');
  const controlPlane = pick(available, KUBERNETES_VERSION_ENV, env[KUBERNETES_VERSION_ENV], newest);
  const node = pick(
    available,
    NODE_KUBERNETES_VERSION_ENV,
    env[NODE_KUBERNETES_VERSION_ENV],
    controlPlane,
  );
  const minor = (v: string): number => Number(RELEASE.exec(v)?.[1]);
  if (minor(node) > minor(controlPlane) || minor(controlPlane) - minor(node) > 3) {
    throw new Error(
      `${NODE_KUBERNETES_VERSION_ENV}=${node} with ${KUBERNETES_VERSION_ENV}=${controlPlane}: ` +
        'the kubelet must be the API server minor or up to three minors older (version skew policy)',
    );
  }
  return { controlPlane, node };
}

/** The environment the build scripts read, set from an explicit choice (never inherited). */
export function kubernetesVersionsEnv(versions: KubernetesVersions): Record<string, string> {
  return {
    [KUBERNETES_VERSION_ENV]: versions.controlPlane,
    [NODE_KUBERNETES_VERSION_ENV]: versions.node,
  };
}
