import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { adoptProcess } from '../../cluster/node-cgroups.js';
import { registryMirrorHosts } from '../../cluster/node-config.js';
import { spawnLogged, terminate, type ManagedProcess } from '../../cluster/processes.js';
import type { RealNodeInfo } from '../real-node-global-setup.js';
import { kubectl, kubectlJson, waitFor } from './kubectl.js';

// Installs the bundle on the real node the way a user installs a release: the image of
// `npm run image` (dist/image) pushed with the release's own scripts (push-image.sh, then
// push-index.sh: the multi-arch index, of one architecture here) to a registry on the node's
// loopback (crane's, built from Go modules), bundle.yaml pinned to that index digest by the
// release's pin-bundle.ts under its real name (ghcr.io/kubemod-ts/kubemod-ts@sha256:…), and
// `kubectl apply -f` of it, unedited. containerd reaches "ghcr.io" only through a hosts.toml that
// sends it to the loopback registry, so nothing leaves the machine.

const execFileAsync = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const IMAGE_DIR = join(repoRoot, 'dist', 'image');
export const RELEASE_REPOSITORY = 'ghcr.io/kubemod-ts/kubemod-ts';
export const SYSTEM_NAMESPACE = 'kubemod-system';
export const OPERATOR_DEPLOYMENT = 'kubemod-operator';
const REGISTRY_PORT = 5000;

/** A ModRule manifest (kept here: operator-fixtures.ts loads the operator, and with it re2). */
export function modRule(name: string, namespace: string, spec: object): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  };
}

export function realNode(): RealNodeInfo {
  return inject('realNode');
}

async function run(command: string, args: readonly string[], env = {}): Promise<string> {
  const { stdout } = await execFileAsync(command, [...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    env: { ...process.env, ...env },
    maxBuffer: 32 * 1024 * 1024,
  });
  return stdout.trim();
}

/** A crane that runs in the node's network namespace, where the registry listens on loopback. */
function craneInNode(crane: string, node: RealNodeInfo, dir: string): string {
  const wrapper = join(dir, 'crane-in-node');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec nsenter --target ${String(node.holderPid)} --net -- ${crane} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

export interface InstalledBundle {
  /** The index digest the bundle is pinned to. */
  readonly digest: string;
  /** The manifest digest of the image (dist/image/digest.txt). */
  readonly manifestDigest: string;
  /** The bundle as applied (pinned by pin-bundle.ts, otherwise bundle.yaml as generated). */
  readonly bundlePath: string;
  readonly bundleText: string;
  readonly registry: ManagedProcess;
  /** A crane that runs in the node's network namespace (reaches the loopback registry). */
  readonly crane: string;
  /** The image's repository in the loopback registry (`127.0.0.1:5000/kubemod-ts/kubemod-ts`). */
  readonly localRepository: string;
  stopRegistry(): Promise<void>;
}

/** The release image as pushed to the loopback registry in the node. */
export interface PushedImage {
  /** The index digest (what the release pins). */
  readonly digest: string;
  /** The manifest digest of the image (dist/image/digest.txt). */
  readonly manifestDigest: string;
  /** A scratch directory (the registry's log, the crane wrapper). */
  readonly dir: string;
  readonly registry: ManagedProcess;
  /** A crane that runs in the node's network namespace (reaches the loopback registry). */
  readonly crane: string;
  /** The image's repository in the loopback registry. */
  readonly localRepository: string;
  stopRegistry(): Promise<void>;
}

/**
 * Pushes dist/image with the release's scripts to a registry on the node's loopback and points
 * containerd's "ghcr.io" at it, so `ghcr.io/kubemod-ts/kubemod-ts@<digest>` pulls from there.
 */
export async function pushReleaseImage(): Promise<PushedImage> {
  if (!existsSync(join(IMAGE_DIR, 'digest.txt'))) {
    throw new Error(`${IMAGE_DIR}/digest.txt is missing: run npm run image first`);
  }
  const node = realNode();
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-e2e-release-'));
  const crane = await run('bash', ['scripts/release/build-crane.sh']);
  const registry = spawnLogged(
    'registry',
    'nsenter',
    [
      '--target',
      String(node.holderPid),
      '--net',
      '--',
      crane,
      'registry',
      'serve',
      '--address',
      `127.0.0.1:${String(REGISTRY_PORT)}`,
    ],
    join(dir, 'registry.log'),
  );
  adoptProcess(node.cgroupName, registry.pid);
  const stopRegistry = (): Promise<void> => terminate(registry, 5_000);
  const CRANE = craneInNode(crane, node, dir);
  const local = `127.0.0.1:${String(REGISTRY_PORT)}/kubemod-ts/kubemod-ts`;
  const version = (
    JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  await waitFor(
    'the loopback registry',
    async () => {
      await run(CRANE, ['catalog', `127.0.0.1:${String(REGISTRY_PORT)}`]);
      return true;
    },
    15_000,
  );
  const manifestDigest = await run(
    'bash',
    ['scripts/release/push-image.sh', IMAGE_DIR, `${local}:${version}-amd64`],
    { CRANE },
  );
  const digest = await run(
    'bash',
    ['scripts/release/push-index.sh', local, version, manifestDigest],
    { CRANE },
  );
  const hostsDir = join(node.registryHosts, 'ghcr.io');
  mkdirSync(hostsDir, { recursive: true });
  writeFileSync(
    join(hostsDir, 'hosts.toml'),
    registryMirrorHosts('ghcr.io', `http://127.0.0.1:${String(REGISTRY_PORT)}`),
  );
  return {
    digest,
    manifestDigest,
    dir,
    registry,
    crane: CRANE,
    localRepository: local,
    stopRegistry,
  };
}

/** Pushes dist/image to a loopback registry in the node, pins bundle.yaml, applies it. */
export async function installReleasedBundle(): Promise<InstalledBundle> {
  const bundle = await prepareReleasedBundle();
  // Another file may have just deleted the namespace: applying into it while it terminates fails.
  await waitFor(
    `${SYSTEM_NAMESPACE} to be absent or Active`,
    async () => {
      const phase = await kubectl([
        'get',
        'namespace',
        SYSTEM_NAMESPACE,
        '--ignore-not-found',
        '-o',
        'jsonpath={.status.phase}',
      ]);
      return phase.trim() === 'Terminating' ? undefined : true;
    },
    180_000,
  );
  await kubectl(['apply', '-f', bundle.bundlePath], { timeoutMs: 120_000 });
  return bundle;
}

/** Pushes dist/image to a loopback registry in the node and pins bundle.yaml; applies nothing. */
export async function prepareReleasedBundle(): Promise<InstalledBundle> {
  const pushed = await pushReleaseImage();
  const { digest, manifestDigest, dir, registry, crane, localRepository } = pushed;
  const bundlePath = join(dir, 'bundle.yaml');
  await run('npx', [
    'tsx',
    'scripts/release/pin-bundle.ts',
    digest,
    '--repository',
    RELEASE_REPOSITORY,
    '--out',
    bundlePath,
  ]);
  return {
    digest,
    manifestDigest,
    bundlePath,
    bundleText: readFileSync(bundlePath, 'utf8'),
    registry,
    crane,
    localRepository,
    stopRegistry: () => pushed.stopRegistry(),
  };
}

interface Deployment {
  status?: { readyReplicas?: number; updatedReplicas?: number; replicas?: number };
  spec?: { replicas?: number };
}

/** Waits until every replica of the operator Deployment is updated and Ready. */
export async function waitForOperatorReady(timeoutMs = 180_000): Promise<void> {
  await waitFor(
    'both operator replicas Ready',
    async () => {
      const d = (await kubectlJson([
        'get',
        'deployment',
        OPERATOR_DEPLOYMENT,
        '-n',
        SYSTEM_NAMESPACE,
      ])) as Deployment;
      const want = d.spec?.replicas ?? 2;
      const s = d.status ?? {};
      return s.readyReplicas === want && s.updatedReplicas === want && s.replicas === want
        ? true
        : undefined;
    },
    timeoutMs,
    1_000,
  );
}
