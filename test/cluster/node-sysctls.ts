import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Kernel settings a real node changes outside its own network namespace. The kubelet writes these
// at start-up (pkg/kubelet/cm: setupKernelTunables, with protectKernelDefaults false); they are
// not per namespace, so the harness records them before the node starts and writes back what
// changed after it stopped. kube-proxy's settings (route_localnet, conntrack) are per network
// namespace or left alone by its configuration (node-config.ts).

export const HOST_SYSCTLS: readonly string[] = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet',
  'net/ipv4/conf/all/forwarding',
];

/** sysctl name (path under /proc/sys) → value; unreadable ones are left out. */
export type SysctlSnapshot = Readonly<Record<string, string>>;

export function readSysctls(
  names: readonly string[] = HOST_SYSCTLS,
  root = '/proc/sys',
): SysctlSnapshot {
  const values: Record<string, string> = {};
  for (const name of names) {
    try {
      values[name] = readFileSync(join(root, name), 'utf8').trim();
    } catch {
      // not on this kernel
    }
  }
  return values;
}

/** Writes back every recorded value that differs now; returns the names it restored. */
export function restoreSysctls(snapshot: SysctlSnapshot, root = '/proc/sys'): string[] {
  const now = readSysctls(Object.keys(snapshot), root);
  const restored: string[] = [];
  for (const [name, value] of Object.entries(snapshot)) {
    if (now[name] !== value) {
      writeFileSync(join(root, name), value);
      restored.push(name);
    }
  }
  return restored;
}

/** The names whose values differ between two snapshots (a key missing on one side counts). */
export function changedSysctls(before: SysctlSnapshot, after: SysctlSnapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}
