import { apiCall, type ApiCredentials } from './api-client.js';

/** A Node the harness registers in place of a kubelet, so the scheduler has somewhere to bind. */
export interface HarnessNode {
  readonly name: string;
  /** Added to the well-known labels (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Capacity and allocatable CPU. Defaults to "8". */
  readonly cpu?: string;
  /** Capacity and allocatable memory. Defaults to "32Gi". */
  readonly memory?: string;
  /** How many Pods fit. Defaults to 110 (the kubelet's default). */
  readonly pods?: number;
}

export const REGION_LABEL = 'topology.kubernetes.io/region';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The Nodes of a harness with controllers: two zones of one region. */
export const DEFAULT_NODES: readonly HarnessNode[] = [
  { name: 'kubemod-node-a', labels: { [REGION_LABEL]: 'kubemod-1', [ZONE_LABEL]: 'kubemod-1a' } },
  { name: 'kubemod-node-b', labels: { [REGION_LABEL]: 'kubemod-1', [ZONE_LABEL]: 'kubemod-1b' } },
];

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

/** RFC 3339 without fractional seconds, as Kubernetes writes timestamps. */
function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The Node as a kubelet would register it: labels, capacity, and a Ready status. */
export function nodeManifest(node: HarnessNode): object {
  const resources = {
    cpu: node.cpu ?? '8',
    memory: node.memory ?? '32Gi',
    pods: String(node.pods ?? 110),
    'ephemeral-storage': '100Gi',
  };
  const now = timestamp();
  const condition = (type: string, status: string, reason: string, message: string): object => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...node.labels,
      },
    },
    spec: {},
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'no kubelet runs here'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'no kubelet runs here'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'no kubelet runs here'),
        condition('Ready', 'True', 'KubeletReady', 'registered by the kubemod-ts test harness'),
      ],
      // Loopback only: whatever the API server might try to reach on a node (logs, exec) stays
      // on this machine and is refused (port 0).
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '',
        osImage: 'kubemod-ts harness (no kubelet)',
        containerRuntimeVersion: '',
        kubeletVersion: '',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/**
 * Registers each Node with a Ready status, then removes the `node.kubernetes.io/not-ready` taint
 * that the TaintNodesByCondition admission plugin puts on every new Node (the node lifecycle
 * controller would lift it once the kubelet reports Ready; it does not run here, so nothing marks
 * the Nodes NotReady for missing heartbeats either).
 */
export async function registerNodes(
  api: ApiCredentials,
  nodes: readonly HarnessNode[],
): Promise<string[]> {
  const names: string[] = [];
  for (const node of nodes) {
    await apiCall(api, 'POST', '/api/v1/nodes', nodeManifest(node));
    const stored = (await apiCall(api, 'GET', `/api/v1/nodes/${node.name}`)) as {
      spec?: { taints?: { key: string }[] };
    };
    const taints = (stored.spec?.taints ?? []).filter((taint) => taint.key !== NOT_READY_TAINT);
    await apiCall(api, 'PATCH', `/api/v1/nodes/${node.name}`, { spec: { taints } });
    names.push(node.name);
  }
  return names;
}
