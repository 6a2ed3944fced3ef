import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import {
  adoptProcess,
  createCgroups,
  killCgroupProcesses,
  nodeCgroupNames,
  removeCgroups,
} from './node-cgroups.js';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { killNow, logTail, spawnLogged, type ManagedProcess } from './processes.js';

/**
 * The addresses of one real node. Index `k` (0–99, the first free one) keeps two harnesses on one
 * machine apart: link 10.213.k.0/30 (host .1, node .2), Pods 10.214.k.0/24, Services
 * 10.215.k.0/24. Nothing of it is routed beyond this machine.
 */
export interface NodeAddresses {
  readonly index: number;
  /** The host end of the veth pair; the API server listens here. */
  readonly hostIp: string;
  /** The node end (`eth0` in the node's network namespace): the kubelet's node IP. */
  readonly nodeIp: string;
  readonly podCidr: string;
  readonly serviceCidr: string;
  /** The `kubernetes` Service's ClusterIP (first address of {@link serviceCidr}). */
  readonly kubernetesServiceIp: string;
  /** Host end of the veth pair. */
  readonly hostLink: string;
  /** Cgroup (in every v1 hierarchy) under which the node's Pods and processes live. */
  readonly cgroupName: string;
}

export const NODE_LINK_PREFIX = 'kmn';
export const NODE_CGROUP_PREFIX = 'kubemod-node-';
const MAX_NODES = 100;

export function nodeAddresses(index: number): NodeAddresses {
  const third = String(index);
  return {
    index,
    hostIp: `10.213.${third}.1`,
    nodeIp: `10.213.${third}.2`,
    podCidr: `10.214.${third}.0/24`,
    serviceCidr: `10.215.${third}.0/24`,
    kubernetesServiceIp: `10.215.${third}.1`,
    hostLink: `${NODE_LINK_PREFIX}${third}h`,
    cgroupName: `${NODE_CGROUP_PREFIX}${third}`,
  };
}

/**
 * Host paths the node's processes write to that cannot be moved under the harness's dir
 * (containerd's shim sockets, CNI network namespaces, the kubelet's `/var/log/containers`
 * links, the host-local IPAM store): each gets a tmpfs in the node's own mount namespace, so the
 * host never sees what is written there.
 */
export const PRIVATE_DIRS: readonly string[] = [
  '/run/containerd',
  '/run/netns',
  '/var/log/containers',
  '/var/log/pods',
  '/var/lib/cni',
];

/** The node's namespaces and link, and how to undo them. */
export interface NodeNetwork {
  readonly addresses: NodeAddresses;
  /** `sleep` holding the node's mount and network namespaces (enter them with nsenter -t). */
  readonly holder: ManagedProcess;
  /** Directories that did not exist and were created as tmpfs mount points (removed on close). */
  readonly createdDirs: readonly string[];
  /** Kills the holder, waits until the veth pair is gone, removes the created directories. */
  close(): Promise<void>;
}

export function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** In the holder's network namespace. */
function inNode(holderPid: number, command: string, args: readonly string[]): string {
  return run('nsenter', ['--target', String(holderPid), '--net', '--', command, ...args]);
}

/** The topmost directory `mkdir -p` would create for `path`, or undefined if it exists. */
function topMissing(path: string): string | undefined {
  let missing: string | undefined;
  for (let dir = path; !existsSync(dir); dir = dirname(dir)) missing = dir;
  return missing;
}

/**
 * Creates the node's mount and network namespaces (held by one `sleep`), a veth pair between them
 * and the host with the first free index, the routes for the Pod and Service ranges through it,
 * and the node's cgroup in every cgroup v1 hierarchy.
 */
export async function createNodeNetwork(dir: string, detached: boolean): Promise<NodeNetwork> {
  await removeStaleNodes();
  const createdDirs: string[] = [];
  for (const path of PRIVATE_DIRS) {
    const top = topMissing(path);
    if (top !== undefined) createdDirs.push(top);
    mkdirSync(path, { recursive: true });
  }
  const mounts = PRIVATE_DIRS.map((path) => `mount -t tmpfs -o mode=0755 tmpfs ${path}`);
  const ready = join(dir, 'node-namespaces.ready');
  const script = ['set -e', ...mounts, 'ip link set lo up', `: > ${ready}`, 'exec sleep infinity'];
  const holder = spawnLogged(
    'node-namespaces',
    'unshare',
    ['--mount', '--net', '--propagation', 'private', '--', 'sh', '-c', script.join('\n')],
    join(dir, 'node-namespaces.log'),
    { detached },
  );
  let addresses: NodeAddresses | undefined;
  const close = async (): Promise<void> => {
    await releaseNode({ addresses, createdDirs });
    killNow(holder);
    await holder.exited;
  };
  try {
    await waitForFile(ready, holder);
    addresses = claimVethPair(holder.pid);
    configureAddresses(holder.pid, addresses);
    createCgroups(addresses.cgroupName);
    adoptProcess(addresses.cgroupName, holder.pid);
  } catch (error: unknown) {
    await close();
    throw error;
  }
  return { addresses, holder, createdDirs, close };
}

/**
 * Cleans up after nodes whose run was killed outright (PDEATHSIG ends the kubelet, containerd and
 * the namespace holder, but shims daemonize): a node cgroup whose veth pair is gone belongs to
 * no live node, so whatever still runs in it is killed and the cgroup removed. Returns the names.
 */
export async function removeStaleNodes(): Promise<string[]> {
  const removed: string[] = [];
  for (const name of nodeCgroupNames(NODE_CGROUP_PREFIX)) {
    const index = Number(name.slice(NODE_CGROUP_PREFIX.length));
    if (!Number.isInteger(index)) continue;
    if (existsSync(`/sys/class/net/${nodeAddresses(index).hostLink}`)) continue;
    const survivors = await killCgroupProcesses(name, 5_000);
    if (survivors.length > 0) continue;
    try {
      removeCgroups(name);
      removed.push(name);
    } catch {
      // another harness is creating it right now: leave it
    }
  }
  return removed;
}

/** What a node holds on the host, as recorded (a detached dev cluster keeps it in its state). */
export interface NodeRecord {
  readonly addresses: NodeAddresses | undefined;
  readonly createdDirs: readonly string[];
}

/**
 * Kills every process of the node's cgroups (the holder too: it is in them), waits until the
 * veth pair is gone with its namespace, removes the cgroups and the mount points it created.
 */
export async function releaseNode(record: NodeRecord): Promise<void> {
  const claimed = record.addresses;
  if (claimed !== undefined) {
    const survivors = await killCgroupProcesses(claimed.cgroupName);
    if (survivors.length > 0) {
      throw new Error(`node processes ${survivors.join(', ')} survived SIGKILL`);
    }
    await waitForLinkGone(claimed.hostLink);
    removeCgroups(claimed.cgroupName);
  }
  // Only when empty: another node on this machine may have mounted over them since.
  for (const path of [...record.createdDirs].reverse()) {
    try {
      rmdirSync(path);
    } catch {
      // in use or not empty: leave it
    }
  }
}

async function waitForFile(path: string, proc: ManagedProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(path)) {
    if (proc.hasExited() || Date.now() > deadline) {
      throw new Error(`the node's namespaces did not come up:\n${logTail(proc.logPath)}`);
    }
    await sleep(20);
  }
}

/** `ip link add` fails when the name is taken, so the first success claims the index. */
function claimVethPair(holderPid: number): NodeAddresses {
  for (let index = 0; index < MAX_NODES; index++) {
    const addresses = nodeAddresses(index);
    try {
      run('ip', [
        'link',
        'add',
        addresses.hostLink,
        'type',
        'veth',
        'peer',
        'name',
        'eth0',
        'netns',
        String(holderPid),
      ]);
      return addresses;
    } catch {
      // taken by another harness: try the next index
    }
  }
  throw new Error(`no free node index: links ${NODE_LINK_PREFIX}0h..99h all exist`);
}

function configureAddresses(holderPid: number, a: NodeAddresses): void {
  run('ip', ['addr', 'add', `${a.hostIp}/30`, 'dev', a.hostLink]);
  run('ip', ['link', 'set', a.hostLink, 'up']);
  inNode(holderPid, 'ip', ['addr', 'add', `${a.nodeIp}/30`, 'dev', 'eth0']);
  inNode(holderPid, 'ip', ['link', 'set', 'eth0', 'up']);
  inNode(holderPid, 'ip', ['route', 'add', 'default', 'via', a.hostIp]);
  // Both ranges live only behind the node: Pods on its bridge, Services in kube-proxy's rules.
  for (const cidr of [a.podCidr, a.serviceCidr]) {
    run('ip', ['route', 'add', cidr, 'via', a.nodeIp, 'dev', a.hostLink]);
  }
}

async function waitForLinkGone(link: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (existsSync(`/sys/class/net/${link}`) && Date.now() < deadline) await sleep(50);
  if (existsSync(`/sys/class/net/${link}`)) {
    try {
      run('ip', ['link', 'del', link]);
    } catch {
      // vanished meanwhile
    }
  }
}
