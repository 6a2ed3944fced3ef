import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The real node's cgroups. The kubelet runs with `cgroupRoot: /<name>` (cgroupfs driver, cgroup
// v1 on this machine kind), so every Pod cgroup it and containerd create is under <name> in each
// hierarchy; the node's own processes (containerd, its shims, the kubelet, kube-proxy) are put in
// <name>/harness of every hierarchy. Killing every process of the tree and removing it, deepest
// first, leaves nothing behind, whatever survived (shims daemonize, so no PDEATHSIG reaches them).

const CGROUP_ROOT = '/sys/fs/cgroup';
export const HARNESS_CGROUP = 'harness';

/** The mounted cgroup hierarchies (cpu, memory, pids, … and cgroup v2's `unified`). */
export function cgroupHierarchies(root = CGROUP_ROOT): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.isSymbolicLink())
      .map((entry) => join(root, entry.name));
  } catch {
    return [];
  }
}

/** Creates <name> and <name>/harness in every hierarchy; cpuset ones get their parent's CPUs. */
export function createCgroups(name: string): void {
  for (const hierarchy of cgroupHierarchies()) {
    for (const path of [join(hierarchy, name), join(hierarchy, name, HARNESS_CGROUP)]) {
      mkdirSync(path, { recursive: true });
      if (existsSync(join(path, 'cpuset.cpus'))) {
        for (const file of ['cpuset.cpus', 'cpuset.mems']) {
          writeFileSync(join(path, file), readFileSync(join(hierarchy, file), 'utf8'));
        }
      }
    }
  }
}

/** Moves a process into <name>/harness of every hierarchy (its children follow it). */
export function adoptProcess(name: string, pid: number): void {
  for (const hierarchy of cgroupHierarchies()) {
    const procs = join(hierarchy, name, HARNESS_CGROUP, 'cgroup.procs');
    if (existsSync(procs)) writeFileSync(procs, String(pid));
  }
}

/** Every pid in the tree of <name> in one hierarchy. */
export function cgroupPids(path: string): number[] {
  if (!existsSync(path)) return [];
  const pids: number[] = [];
  const walk = (dir: string): void => {
    try {
      for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
        if (line.trim() !== '') pids.push(Number(line));
      }
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
      }
    } catch {
      // removed meanwhile
    }
  };
  walk(path);
  return pids;
}

/** The pids cgroup tree of the node, which every one of its processes is in. */
export function nodePids(name: string): number[] {
  const seen = new Set<number>();
  for (const hierarchy of cgroupHierarchies()) {
    for (const pid of cgroupPids(join(hierarchy, name))) seen.add(pid);
  }
  return [...seen];
}

/** SIGKILLs every process in the node's cgroups until none is left (or `timeoutMs` passed). */
export async function killCgroupProcesses(name: string, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = nodePids(name);
    if (pids.length === 0) return [];
    if (Date.now() > deadline) return pids;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await sleep(100);
  }
}

/** Removes the node's cgroup trees, deepest first (rmdir is how cgroups are removed). */
export function removeCgroups(name: string): void {
  for (const hierarchy of cgroupHierarchies()) {
    const path = join(hierarchy, name);
    if (existsSync(path)) removeTree(path);
  }
}

function removeTree(path: string): void {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) removeTree(join(path, entry.name));
  }
  rmdirSync(path);
}

/** Names of the node cgroups (<prefix>*) present at the top of any hierarchy. */
export function nodeCgroupNames(prefix: string): string[] {
  const names = new Set<string>();
  for (const hierarchy of cgroupHierarchies()) {
    try {
      for (const entry of readdirSync(hierarchy)) if (entry.startsWith(prefix)) names.add(entry);
    } catch {
      // unreadable hierarchy
    }
  }
  return [...names].sort();
}
