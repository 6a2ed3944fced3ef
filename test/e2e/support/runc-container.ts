import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Runs an unpacked image under runc with what a restricted Pod gets (the bundle's
// securityContext): a fixed non-root uid/gid, a read-only root filesystem, no capabilities, no
// new privileges, /tmp as a small tmpfs (the bundle's emptyDir) and read-only bind mounts where a
// kubelet puts them. It shares the host's network namespace, so the kube-apiserver on 127.0.0.1
// reaches the webhook and the container reaches the API server.

const run = promisify(execFile);

export interface ContainerOptions {
  readonly uid: number;
  readonly gid: number;
  readonly args: readonly string[];
  /** Added to the image's environment. */
  readonly env: readonly string[];
  readonly cwd: string;
  /** host path → container path, mounted read-only. */
  readonly readOnlyMounts: Readonly<Record<string, string>>;
}

interface Mount {
  destination: string;
  type?: string;
  source?: string;
  options?: string[];
}

interface RuntimeConfig {
  process: Record<string, unknown>;
  root: { path: string; readonly?: boolean };
  hostname?: string;
  mounts?: Mount[];
  linux?: { namespaces?: { type: string }[] } & Record<string, unknown>;
}

/** Throws with the reason when runc cannot run containers here (missing, not root). */
export async function requireRunc(): Promise<string> {
  const version = await run('runc', ['--version']).then(
    ({ stdout }) => stdout.split('\n')[0] ?? '',
    (err: unknown) => {
      throw new Error(
        `runc is not usable (${(err as Error).message}): install it (apt-get install runc) — ` +
          'the image e2e test runs the operator image under runc and cannot pass without it',
      );
    },
  );
  if (process.getuid?.() !== 0) {
    throw new Error('runc needs root to create the container (cgroups, mounts); run as root');
  }
  return version;
}

/** Rewrites umoci's config.json in bundleDir for `options`, hardened as described above. */
export function hardenBundle(bundleDir: string, options: ContainerOptions): void {
  const path = join(bundleDir, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as RuntimeConfig;
  const noCapabilities = {
    bounding: [],
    effective: [],
    inheritable: [],
    permitted: [],
    ambient: [],
  };
  config.process = {
    ...config.process,
    terminal: false,
    user: { uid: options.uid, gid: options.gid },
    args: [...options.args],
    // umoci's env is the image's plus HOME from /etc/passwd, as container runtimes set it; TERM
    // goes with the terminal.
    env: [
      ...((config.process.env as string[] | undefined) ?? []).filter((e) => !e.startsWith('TERM=')),
      ...options.env,
    ],
    cwd: options.cwd,
    capabilities: noCapabilities,
    noNewPrivileges: true,
  };
  config.root = { path: 'rootfs', readonly: true };
  config.hostname = 'kubemod-operator';
  config.mounts = [
    // The host's /sys read-only (a new sysfs needs a network namespace of its own), where umoci
    // put sysfs so that /sys/fs/cgroup still mounts on top of it.
    ...(config.mounts ?? []).map((m) =>
      m.destination === '/sys'
        ? { destination: '/sys', type: 'bind', source: '/sys', options: ['rbind', 'nosuid', 'ro'] }
        : m,
    ),
    {
      destination: '/tmp',
      type: 'tmpfs',
      source: 'tmpfs',
      options: ['nosuid', 'nodev', 'mode=1777', 'size=64m'],
    },
    ...Object.entries(options.readOnlyMounts).map(([source, destination]) => ({
      destination,
      type: 'bind',
      source,
      options: ['rbind', 'ro', 'nosuid', 'nodev', 'noexec'],
    })),
  ];
  config.linux = {
    ...config.linux,
    namespaces: (config.linux?.namespaces ?? []).filter(
      (ns) => ns.type !== 'network' && ns.type !== 'user',
    ),
  };
  writeFileSync(path, JSON.stringify(config, null, 2));
}

export interface RunningContainer {
  readonly id: string;
  readonly logs: string[];
  /** Resolves with the exit code (or the signal's name) when runc exits. */
  readonly exited: Promise<number | string>;
  /** SIGTERM to the container's process, as a kubelet stops a Pod; resolves when it exited. */
  stop(): Promise<number | string>;
}

/** `runc run` in the foreground, its output collected (and echoed to stderr). */
export async function startContainer(bundleDir: string, id: string): Promise<RunningContainer> {
  await run('runc', ['delete', '--force', id]).catch(() => undefined);
  const logs: string[] = [];
  const child: ChildProcess = spawn('runc', ['run', '--bundle', bundleDir, id], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer): void => {
    logs.push(chunk.toString('utf8'));
    process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    id,
    logs,
    exited,
    stop: async () => {
      await run('runc', ['kill', id, 'TERM']).catch(() => undefined);
      const code = await exited;
      await run('runc', ['delete', '--force', id]).catch(() => undefined);
      return code;
    },
  };
}
