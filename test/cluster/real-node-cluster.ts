import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
import { resolveNodeBinaries, type NodeBinaries } from './node-binaries.js';
import { createNodeNetwork } from './node-network.js';
import { REGION_LABEL, ZONE_LABEL } from './nodes.js';
import { startRealNode, type RealNode } from './real-node.js';

export const NODE_DIR_PREFIX = 'kubemod-ts-node-';

export interface RealNodeClusterOptions extends Omit<
  ControlPlaneOptions,
  'controllers' | 'nodes' | 'apiserverNetwork'
> {
  /** Defaults to {@link resolveNodeBinaries}. */
  readonly nodeBinaries?: NodeBinaries;
}

export interface RealNodeCluster extends ControlPlane {
  readonly realNode: RealNode;
}

/** Region and zone labels of the real node, like the first of the harness's registered Nodes. */
export const REAL_NODE_LABELS: Readonly<Record<string, string>> = {
  [REGION_LABEL]: 'kubemod-1',
  [ZONE_LABEL]: 'kubemod-1a',
};

/**
 * A control plane with controllers and one real node: containerd, kubelet and kube-proxy in
 * their own mount and network namespaces, joined to the host by a veth pair whose host end the
 * API server listens on. Pods run, Services route (also from the host: the Pod and Service ranges
 * are routed through the veth). `stop()` stops the node first, then the control plane, and leaves
 * no process, namespace, link, route, mount, cgroup or changed sysctl behind.
 */
export async function startRealNodeCluster(
  options: RealNodeClusterOptions = {},
): Promise<RealNodeCluster> {
  const binaries = options.nodeBinaries ?? (await resolveNodeBinaries());
  const detached = options.detached ?? false;
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), NODE_DIR_PREFIX));
  const removeDir = (): void => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  let network;
  try {
    network = await createNodeNetwork(dir, detached);
  } catch (error: unknown) {
    removeDir();
    throw error;
  }
  const { addresses } = network;
  let controlPlane: ControlPlane;
  try {
    controlPlane = await startControlPlane({
      ...options,
      controllers: true,
      nodes: [],
      apiserverNetwork: {
        bindAddress: addresses.hostIp,
        extraServingIps: [addresses.kubernetesServiceIp],
        serviceClusterIpRange: addresses.serviceCidr,
      },
    });
  } catch (error: unknown) {
    await network.close();
    removeDir();
    throw error;
  }
  let realNode: RealNode;
  try {
    realNode = await startRealNode({
      dir,
      network,
      api: {
        server: controlPlane.server,
        caPem: controlPlane.caPem,
        certPem: controlPlane.pki.admin.certPem,
        keyPem: controlPlane.pki.admin.keyPem,
      },
      pki: controlPlane.pki,
      binaries,
      detached,
      labels: REAL_NODE_LABELS,
      ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
    });
  } catch (error: unknown) {
    await controlPlane.stop();
    removeDir();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async (): Promise<void> => {
      try {
        await realNode.stop();
      } finally {
        await controlPlane.stop();
        removeDir();
      }
    })();
    return stopping;
  };
  return { ...controlPlane, nodes: [realNode.name], realNode, stop };
}
