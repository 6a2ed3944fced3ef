import type { TestProject } from 'vitest/node';
import { resolveControlPlaneBinaries, selectedKubernetesVersions } from '../cluster/binaries.js';
import { resolveNodeBinaries } from '../cluster/node-binaries.js';
import { startRealNodeCluster } from '../cluster/real-node-cluster.js';
import { startHarnessControl } from './harness-control.js';

/** What the real-node e2e tests need to reach into the node (see test/e2e/support/real-node.ts). */
export interface RealNodeInfo {
  readonly name: string;
  /** Pid of the process holding the node's mount and network namespaces (nsenter -t). */
  readonly holderPid: number;
  readonly hostIp: string;
  readonly podCidr: string;
  readonly serviceCidr: string;
  readonly cgroupName: string;
  readonly hostLink: string;
  readonly containerdSocket: string;
  /** containerd's `config_path`: one `<registry>/hosts.toml` per mirrored registry. */
  readonly registryHosts: string;
  readonly pids: {
    readonly containerd: number;
    readonly kubelet: number;
    readonly kubeProxy: number;
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    realNode: RealNodeInfo;
    /** Where a test asks this process to restart kube-apiserver (harness-control.ts). */
    harnessControl: string;
  }
}

/**
 * vitest globalSetup for the `e2e-node` project: a throwaway control plane with one real node
 * (test/cluster/real-node-cluster.ts: containerd, kubelet, kube-proxy), stopped afterwards. It
 * provides the same `kubeconfig`, `localControlPlane` and `harnessNodes` as test/e2e/global-setup.ts,
 * plus `realNode`. No external cluster: the tests reach into the node's namespaces.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const versions = selectedKubernetesVersions();
  const cluster = await startRealNodeCluster({
    binaries: await resolveControlPlaneBinaries(versions),
    nodeBinaries: await resolveNodeBinaries(versions),
  });
  const node = cluster.realNode;
  console.log(
    `[e2e-node] control plane ${versions.controlPlane} at ${cluster.server} in ` +
      `${String(cluster.startupMs)} ms; node ${node.name} (kubelet ${versions.node}) Ready ${String(node.startupMs)} ms after containerd started ` +
      `(Pods ${node.network.addresses.podCidr}, Services ${node.network.addresses.serviceCidr}; ` +
      `kubeconfig ${cluster.kubeconfigPath}; node logs ${node.paths.dir})`,
  );
  project.provide('kubeconfig', cluster.kubeconfigPath);
  project.provide('localControlPlane', true);
  project.provide('harnessNodes', [node.name]);
  project.provide('kubernetesVersions', versions);
  const { addresses, holder } = node.network;
  project.provide('realNode', {
    name: node.name,
    holderPid: holder.pid,
    hostIp: addresses.hostIp,
    podCidr: addresses.podCidr,
    serviceCidr: addresses.serviceCidr,
    cgroupName: addresses.cgroupName,
    hostLink: addresses.hostLink,
    containerdSocket: node.paths.containerdSocket,
    registryHosts: node.paths.registryHosts,
    pids: node.pids,
  });
  const control = await startHarnessControl({
    restartKubeApiserver: (downMs) => cluster.restartKubeApiserver(downMs),
  });
  project.provide('harnessControl', control.url);
  return async () => {
    await control.close();
    await cluster.stop();
  };
}
