import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { runBuildScript, selectedKubernetesVersions } from './binaries.js';
import type { KubernetesVersions } from './kubernetes-versions.js';
import { CNI_BIN_DIR } from './node-config.js';

/** What a real node runs: kubelet, kube-proxy, the pause image (built here) and host tools. */
export interface NodeBinaries {
  readonly kubelet: string;
  readonly kubeProxy: string;
  /** OCI archive of the sandbox image, for `ctr images import`. */
  readonly pauseArchive: string;
  readonly containerd: string;
  readonly ctr: string;
}

/** Points at a directory laid out like scripts/build-node.sh's output (bin/, pause.tar). */
export const NODE_DIR_ENV = 'KUBEMOD_NODE_DIR';

/** Debian packages the node needs from the host (scripts/install-node-tools.sh installs them). */
const HOST_TOOLS: readonly (readonly [tool: string, pkg: string])[] = [
  ['containerd', 'containerd'],
  ['containerd-shim-runc-v2', 'containerd'],
  ['ctr', 'containerd'],
  ['runc', 'runc'],
  ['iptables', 'iptables'],
  ['conntrack', 'conntrack'],
  ['nsenter', 'util-linux'],
  ['unshare', 'util-linux'],
];

function which(tool: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a real node cannot run here, or undefined if it can: Linux, root, the host tools, and the
 * CNI plugins. The e2e-node project's setup fails with this message instead of half starting.
 */
export function realNodeUnsupportedReason(): string | undefined {
  if (process.platform !== 'linux') return 'a real node needs Linux';
  if (process.getuid?.() !== 0) return 'a real node needs root (network namespaces, cgroups)';
  const missing = new Set<string>();
  for (const [tool, pkg] of HOST_TOOLS) if (which(tool) === undefined) missing.add(pkg);
  for (const plugin of ['bridge', 'host-local', 'loopback', 'portmap']) {
    if (!isExecutable(join(CNI_BIN_DIR, plugin))) missing.add('containernetworking-plugins');
  }
  if (missing.size === 0) return undefined;
  return (
    `a real node needs the Debian packages ${[...missing].join(', ')}: ` +
    'run bash scripts/install-node-tools.sh'
  );
}

function fromDir(dir: string): NodeBinaries {
  const reason = realNodeUnsupportedReason();
  if (reason !== undefined) throw new Error(reason);
  const kubelet = join(dir, 'bin', 'kubelet');
  const kubeProxy = join(dir, 'bin', 'kube-proxy');
  for (const file of [kubelet, kubeProxy]) {
    if (!isExecutable(file)) throw new Error(`node binary ${file} is missing or not executable`);
  }
  return {
    kubelet,
    kubeProxy,
    pauseArchive: join(dir, 'pause.tar'),
    containerd: which('containerd') ?? 'containerd',
    ctr: which('ctr') ?? 'ctr',
  };
}

/**
 * `$KUBEMOD_NODE_DIR` if set, otherwise the cache of scripts/build-node.sh for `versions.node`,
 * which is run (quick when warm; a Go build of kubelet and kube-proxy when cold, its progress on
 * our stderr).
 */
export async function resolveNodeBinaries(
  versions: KubernetesVersions = selectedKubernetesVersions(),
): Promise<NodeBinaries> {
  const fromEnv = process.env[NODE_DIR_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fromDir(fromEnv);
  return fromDir(await runBuildScript('build-node.sh', versions));
}
