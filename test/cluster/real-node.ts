import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { apiCall, apiRequest, type ApiCredentials } from './api-client.js';
import type { NodeBinaries } from './node-binaries.js';
import { adoptProcess } from './node-cgroups.js';
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  nodePaths,
  type NodePaths,
} from './node-config.js';
import type { NodeNetwork } from './node-network.js';
import { readSysctls, restoreSysctls, type SysctlSnapshot } from './node-sysctls.js';
import { writeClientKubeconfig, type ControlPlanePki } from './pki.js';
import { logTail, spawnLogged, terminate, type ManagedProcess } from './processes.js';

const execFileAsync = promisify(execFile);

export const REAL_NODE_NAME = 'kubemod-real-node';

export interface RealNodeInput {
  /** The control plane's temp dir; the node's state goes to `<dir>/node`. */
  readonly dir: string;
  readonly network: NodeNetwork;
  /** The API server as the node reaches it (`https://<host end of the veth>:<port>`). */
  readonly api: ApiCredentials;
  readonly pki: ControlPlanePki;
  readonly binaries: NodeBinaries;
  readonly detached: boolean;
  readonly name?: string;
  /** Extra Node labels (e.g. a topology zone). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly readyTimeoutMs?: number;
}

export interface RealNode {
  readonly name: string;
  readonly paths: NodePaths;
  readonly network: NodeNetwork;
  readonly sysctls: SysctlSnapshot;
  readonly pids: {
    readonly containerd: number;
    readonly kubelet: number;
    readonly kubeProxy: number;
  };
  /** Milliseconds from spawning containerd until the Node was Ready and untainted. */
  readonly startupMs: number;
  /** Runs `ctr` against the node's containerd (namespace k8s.io). */
  ctr(args: readonly string[]): Promise<string>;
  /** Stops kube-proxy, the kubelet and containerd, kills what is left, restores the host. */
  stop(): Promise<void>;
}

/**
 * Starts containerd, the kubelet and kube-proxy inside the node's namespaces (see
 * node-network.ts), imports the pause image, and waits until the Node is Ready; then lifts the
 * `not-ready` taint (the harness runs no node lifecycle controller).
 */
export async function startRealNode(input: RealNodeInput): Promise<RealNode> {
  const name = input.name ?? REAL_NODE_NAME;
  const { addresses, holder } = input.network;
  const paths = nodePaths(join(input.dir, 'node'));
  const sysctls = readSysctls();
  for (const path of [paths.containerdRoot, paths.containerdState, paths.registryHosts]) {
    mkdirSync(path, { recursive: true });
  }
  for (const path of [paths.cniConfDir, paths.cniIpamDir, paths.kubeletRoot, paths.podLogs]) {
    mkdirSync(path, { recursive: true });
  }
  writeFileSync(paths.containerdConfig, containerdConfig(paths));
  writeFileSync(
    join(paths.cniConfDir, '10-kubemod.conflist'),
    JSON.stringify(cniConfig(addresses, paths), null, 2),
  );
  writeClientKubeconfig(paths.kubeletKubeconfig, input.api.server, input.pki, {
    user: `system:node:${name}`,
    groups: ['system:nodes'],
  });
  writeClientKubeconfig(paths.kubeProxyKubeconfig, input.api.server, input.pki, {
    user: 'system:kube-proxy',
  });
  const clientCaFile = join(paths.dir, 'client-ca.crt');
  writeFileSync(clientCaFile, input.pki.clientCa.certPem);
  writeFileSync(
    paths.kubeletConfig,
    JSON.stringify(kubeletConfig({ addresses, paths, clientCaFile }), null, 2),
  );
  writeFileSync(
    paths.kubeProxyConfig,
    JSON.stringify(kubeProxyConfig(addresses, paths.kubeProxyKubeconfig, name), null, 2),
  );

  const processes: ManagedProcess[] = [];
  const inNode = (procName: string, binary: string, args: readonly string[]): ManagedProcess => {
    const proc = spawnLogged(
      procName,
      'nsenter',
      ['--target', String(holder.pid), '--mount', '--net', '--', binary, ...args],
      join(paths.dir, `${procName}.log`),
      { detached: input.detached },
    );
    adoptProcess(addresses.cgroupName, proc.pid);
    processes.push(proc);
    return proc;
  };
  const ctr = async (args: readonly string[]): Promise<string> => {
    const { stdout } = await execFileAsync(
      input.binaries.ctr,
      ['--address', paths.containerdSocket, '--namespace', 'k8s.io', ...args],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    return stdout;
  };
  const stop = async (): Promise<void> => {
    for (const proc of [...processes].reverse()) await terminate(proc, 5_000);
    await input.network.close();
    restoreSysctls(sysctls);
  };

  const started = performance.now();
  try {
    const containerd = inNode('containerd', input.binaries.containerd, [
      '--config',
      paths.containerdConfig,
    ]);
    await waitUntil('containerd', processes, 30_000, async () => {
      if (!existsSync(paths.containerdSocket)) return false;
      await ctr(['version']);
      return true;
    });
    await ctr(['images', 'import', input.binaries.pauseArchive]);
    const labels = Object.entries(input.labels ?? {}).map(([k, v]) => `${k}=${v}`);
    const kubelet = inNode('kubelet', input.binaries.kubelet, [
      `--config=${paths.kubeletConfig}`,
      `--kubeconfig=${paths.kubeletKubeconfig}`,
      `--root-dir=${paths.kubeletRoot}`,
      `--hostname-override=${name}`,
      `--node-ip=${addresses.nodeIp}`,
      ...(labels.length > 0 ? [`--node-labels=${labels.join(',')}`] : []),
      '--v=1',
    ]);
    const kubeProxy = inNode('kube-proxy', input.binaries.kubeProxy, [
      `--config=${paths.kubeProxyConfig}`,
      '--v=1',
    ]);
    await waitUntil('the Node to be Ready', processes, input.readyTimeoutMs ?? 120_000, () =>
      nodeReady(input.api, name),
    );
    await untaint(input.api, name);
    return {
      name,
      paths,
      network: input.network,
      sysctls,
      pids: { containerd: containerd.pid, kubelet: kubelet.pid, kubeProxy: kubeProxy.pid },
      startupMs: Math.round(performance.now() - started),
      ctr,
      stop,
    };
  } catch (error: unknown) {
    await stop().catch(() => undefined);
    throw error;
  }
}

async function waitUntil(
  what: string,
  processes: readonly ManagedProcess[],
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const dead = processes.find((proc) => proc.hasExited());
    if (dead !== undefined) {
      throw new Error(`${dead.name} exited while waiting for ${what}:\n${logTail(dead.logPath)}`);
    }
    try {
      if (await check()) return;
    } catch (error: unknown) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      const logs = processes.map((proc) => `--- ${proc.name}:\n${logTail(proc.logPath, 15)}`);
      throw new Error(`timed out waiting for ${what} (${last})\n${logs.join('\n')}`);
    }
    await sleep(250);
  }
}

interface NodeObject {
  spec?: { taints?: { key: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

async function nodeReady(api: ApiCredentials, name: string): Promise<boolean> {
  const response = await apiRequest(api, 'GET', `/api/v1/nodes/${name}`);
  if (response.status !== 200) return false;
  const node = response.body as NodeObject;
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Removes the taints the node lifecycle controller would lift once the Node is Ready. */
async function untaint(api: ApiCredentials, name: string): Promise<void> {
  const node = (await apiCall(api, 'GET', `/api/v1/nodes/${name}`)) as NodeObject;
  const taints = (node.spec?.taints ?? []).filter(
    (taint) => !taint.key.startsWith('node.kubernetes.io/'),
  );
  await apiCall(api, 'PATCH', `/api/v1/nodes/${name}`, { spec: { taints } });
}
