import { join } from 'node:path';
import type { NodeAddresses } from './node-network.js';

// The configuration files of the real node's containerd, CNI, kubelet and kube-proxy: pure
// functions of the node's directory and addresses (test/unit/real-node-config.test.ts checks the
// settings this machine kind needs).

/** Where the node keeps its state: all under the control plane's temp dir. */
export interface NodePaths {
  readonly dir: string;
  readonly containerdRoot: string;
  readonly containerdState: string;
  readonly containerdSocket: string;
  readonly containerdConfig: string;
  /** `hosts.toml` per registry (containerd's `config_path`). */
  readonly registryHosts: string;
  readonly cniConfDir: string;
  readonly cniIpamDir: string;
  readonly kubeletRoot: string;
  readonly kubeletConfig: string;
  readonly kubeletKubeconfig: string;
  readonly podLogs: string;
  readonly kubeProxyConfig: string;
  readonly kubeProxyKubeconfig: string;
}

export function nodePaths(dir: string): NodePaths {
  return {
    dir,
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    containerdConfig: join(dir, 'containerd', 'config.toml'),
    registryHosts: join(dir, 'containerd', 'certs.d'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniIpamDir: join(dir, 'cni', 'ipam'),
    kubeletRoot: join(dir, 'kubelet'),
    kubeletConfig: join(dir, 'kubelet-config.json'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    podLogs: join(dir, 'pod-logs'),
    kubeProxyConfig: join(dir, 'kube-proxy-config.json'),
    kubeProxyKubeconfig: join(dir, 'kube-proxy.kubeconfig'),
  };
}

/** The sandbox image scripts/build-node.sh builds and the node imports (nothing is pulled). */
export const PAUSE_IMAGE = 'localhost/kubemod-ts/pause:harness';
/** Debian's containernetworking-plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';
export const BRIDGE_NAME = 'kubemod0';

/**
 * containerd (1.6 from Debian, config version 2) with the CRI plugin. root here lacks
 * CAP_SYS_RESOURCE, so `restrict_oom_score_adj` (else every sandbox fails with "can't get final
 * child's PID from pipe"); cgroup v1 with the cgroupfs driver; no registry but the ones in
 * `registryHosts` (a loopback mirror, when one is configured).
 */
export function containerdConfig(paths: NodePaths): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${JSON.stringify(paths.containerdRoot)}`,
    `state = ${JSON.stringify(paths.containerdState)}`,
    'disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",',
    '  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",',
    '  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]',
    '[grpc]',
    `  address = ${JSON.stringify(paths.containerdSocket)}`,
    '[debug]',
    '  level = "warn"',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${JSON.stringify(join(paths.containerdRoot, 'opt'))}`,
    `[${cri}]`,
    `  sandbox_image = ${JSON.stringify(PAUSE_IMAGE)}`,
    '  restrict_oom_score_adj = true',
    '  disable_apparmor = true',
    '  enable_selinux = false',
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    '  SystemdCgroup = false',
    `[${cri}.cni]`,
    `  bin_dir = ${JSON.stringify(CNI_BIN_DIR)}`,
    `  conf_dir = ${JSON.stringify(paths.cniConfDir)}`,
    `[${cri}.registry]`,
    `  config_path = ${JSON.stringify(paths.registryHosts)}`,
    '',
  ].join('\n');
}

/**
 * `hosts.toml` sending pulls of `registry` (e.g. ghcr.io) to `mirror` (http://127.0.0.1:<port>,
 * in the node's network namespace) and nowhere else: a bundle pinned to the release's image name
 * is pulled from the loopback registry unedited.
 */
export function registryMirrorHosts(registry: string, mirror: string): string {
  return [
    `server = ${JSON.stringify(mirror)}`,
    '',
    `[host.${JSON.stringify(mirror)}]`,
    '  capabilities = ["pull", "resolve"]',
    '  skip_verify = true',
    '',
  ].join('\n');
}

/** Bridge + host-local IPAM for the Pod range, portmap for hostPorts. */
export function cniConfig(addresses: NodeAddresses, paths: NodePaths): object {
  return {
    cniVersion: '0.4.0',
    name: 'kubemod',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE_NAME,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: addresses.podCidr }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: paths.cniIpamDir,
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
}

export interface KubeletConfigInput {
  readonly addresses: NodeAddresses;
  readonly paths: NodePaths;
  /** PEM file of the CA that signs client certificates (the API server's, for logs/exec). */
  readonly clientCaFile: string;
}

/**
 * KubeletConfiguration for cgroup v1 (`failCgroupV1: false`, cgroupfs driver) with every Pod
 * cgroup under the node's own `cgroupRoot`, no swap check, no cluster DNS (the operator reaches
 * the API server through KUBERNETES_SERVICE_HOST), pod logs in the node's dir and eviction
 * thresholds low enough that a busy disk does not evict the operator mid-test.
 */
export function kubeletConfig(input: KubeletConfigInput): object {
  const { addresses, paths } = input;
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: addresses.nodeIp,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${addresses.cgroupName}`,
    failCgroupV1: false,
    failSwapOn: false,
    protectKernelDefaults: false,
    podLogsDir: paths.podLogs,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: input.clientCaFile },
    },
    authorization: { mode: 'AlwaysAllow' },
    clusterDomain: 'cluster.local',
    resolvConf: '/etc/resolv.conf',
    serializeImagePulls: false,
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    nodeStatusReportFrequency: '10s',
    syncFrequency: '10s',
    fileCheckFrequency: '10s',
    rotateCertificates: false,
    serverTLSBootstrap: false,
    staticPodPath: '',
    volumePluginDir: join(paths.kubeletRoot, 'volume-plugins'),
  };
}

/**
 * KubeProxyConfiguration, iptables mode in the node's network namespace. Conntrack sysctls are
 * left alone (`maxPerCore: 0`, zero timeouts): they are not per namespace. Every Service packet
 * is masqueraded, so a Pod reaching a Service on its own bridge gets its replies back without
 * br_netfilter.
 */
export function kubeProxyConfig(
  addresses: NodeAddresses,
  kubeconfig: string,
  nodeName: string,
): object {
  return {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig },
    hostnameOverride: nodeName,
    bindAddress: addresses.nodeIp,
    clusterCIDR: addresses.podCidr,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    iptables: { masqueradeAll: true, syncPeriod: '5s', minSyncPeriod: '0s' },
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
  };
}
