import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { nodeCgroupNames } from '../../cluster/node-cgroups.js';
import { NODE_CGROUP_PREFIX, PRIVATE_DIRS } from '../../cluster/node-network.js';
import { readSysctls, type SysctlSnapshot } from '../../cluster/node-sysctls.js';
import { isPidAlive } from '../../cluster/processes.js';

// What a real node could leave behind on the host, read before it starts and after it stopped
// (test/e2e/real-node-harness.e2e.test.ts compares the two).

export interface HostSnapshot {
  readonly links: readonly string[];
  readonly routes: readonly string[];
  readonly mounts: readonly string[];
  readonly netns: readonly string[];
  readonly cgroups: readonly string[];
  readonly privateDirs: readonly string[];
  readonly sysctls: SysctlSnapshot;
  /** `iptables-save` of the host's namespace, counters and comments dropped. */
  readonly iptables: readonly string[];
}

function lines(command: string, args: readonly string[]): string[] {
  try {
    return execFileSync(command, args, { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

export function hostSnapshot(): HostSnapshot {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point !== '');
  return {
    links: lines('ip', ['-o', 'link', 'show'])
      .map((l) => (l.split(':')[1] ?? '').trim().split('@')[0] ?? '')
      .sort(),
    routes: lines('ip', ['route', 'show']).sort(),
    mounts: mounts.sort(),
    netns: lines('ip', ['netns', 'list']).sort(),
    cgroups: nodeCgroupNames(NODE_CGROUP_PREFIX),
    privateDirs: PRIVATE_DIRS.filter((dir) => existsSync(dir)),
    sysctls: readSysctls(),
    iptables: lines('iptables-save', [])
      .filter((l) => !l.startsWith('#'))
      .map((l) => l.replace(/\[\d+:\d+\]/g, ''))
      .sort(),
  };
}

/** The inode of a process's namespace (`net:[4026532…]`), or undefined if it is gone. */
export function namespaceOf(pid: number, kind: 'net' | 'mnt'): string | undefined {
  try {
    return readlinkSync(`/proc/${String(pid)}/ns/${kind}`);
  } catch {
    return undefined;
  }
}

/** Pids of live processes whose namespace of `kind` is `ns`. */
export function processesIn(ns: string, kind: 'net' | 'mnt'): number[] {
  const found: number[] = [];
  for (const entry of lines('ls', ['/proc'])) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (namespaceOf(pid, kind) === ns) found.push(pid);
  }
  return found;
}

export function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => isPidAlive(pid));
}
