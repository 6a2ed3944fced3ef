import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Reads what the kernel says about a container on the real node: its process's credentials and
// its cgroup limits, found through the cgroup named after the container ID (containerd's cgroupfs
// layout: /<node cgroup>/kubepods/<qos>/pod<uid>/<container id>).

export interface ContainerProcess {
  readonly pid: number;
  readonly uid: string;
  readonly gid: string;
  readonly capEff: string;
  readonly noNewPrivs: string;
  /** 2 = filter mode (a seccomp profile applies). */
  readonly seccomp: string;
  readonly rootReadOnly: boolean;
  readonly memoryLimitBytes: number;
}

function findDir(root: string, name: string): string | undefined {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(root, entry.name);
    if (entry.name === name) return path;
    const found = findDir(path, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function statusField(status: string, field: string): string {
  const line = status.split('\n').find((l) => l.startsWith(`${field}:`)) ?? '';
  return line.slice(field.length + 1).trim();
}

export function containerProcess(nodeCgroup: string, containerId: string): ContainerProcess {
  if (containerId === '') throw new Error('no container ID');
  const pidsDir = findDir(join('/sys/fs/cgroup/pids', nodeCgroup), containerId);
  const memoryDir = findDir(join('/sys/fs/cgroup/memory', nodeCgroup), containerId);
  if (pidsDir === undefined || memoryDir === undefined) {
    throw new Error(`no cgroup for container ${containerId} under ${nodeCgroup}`);
  }
  const pid = Number(readFileSync(join(pidsDir, 'cgroup.procs'), 'utf8').split('\n')[0]);
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const [uid] = statusField(status, 'Uid').split(/\s+/);
  const [gid] = statusField(status, 'Gid').split(/\s+/);
  // mountinfo: id parent major:minor root mountpoint options …
  const rootMount = readFileSync(`/proc/${String(pid)}/mountinfo`, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[4] === '/');
  return {
    pid,
    uid: uid ?? '',
    gid: gid ?? '',
    capEff: statusField(status, 'CapEff'),
    noNewPrivs: statusField(status, 'NoNewPrivs'),
    seccomp: statusField(status, 'Seccomp'),
    rootReadOnly: (rootMount?.[5] ?? '').split(',').includes('ro'),
    memoryLimitBytes: Number(readFileSync(join(memoryDir, 'memory.limit_in_bytes'), 'utf8')),
  };
}

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** Whether an IPv4 address is in an IPv4 CIDR. */
export function podCidrContains(cidr: string, ip: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return false;
  const size = 2 ** (32 - Number(bits));
  const start = ipToNumber(base);
  const value = ipToNumber(ip);
  return value >= start && value < start + size;
}
