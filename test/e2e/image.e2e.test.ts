import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freeLoopbackPorts } from '../cluster/control-plane.js';
import { deleteNamespacesNow, kubectl, kubectlApply, waitFor } from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import { diskUsageBytes, readOciImage, type OciImage, unpackImage } from './support/oci-image.js';
import {
  applyWebhookConfigurations,
  caBundlesInjected,
  deleteWebhookConfigurations,
  installCrd,
} from './support/operator-env.js';
import { deployment, get, modRule, type Obj } from './support/operator-fixtures.js';
import {
  hardenBundle,
  requireRunc,
  startContainer,
  type RunningContainer,
} from './support/runc-container.js';
import { mountOperatorServiceAccount } from './support/service-account.js';

// The container image that `npm run image` built (dist/image/oci), run as the webhook of the e2e
// control plane: unpacked with umoci, started under runc the way the bundle's Deployment runs it
// (its uid/gid, env and args; read-only root filesystem, no capabilities, no new privileges; a
// ServiceAccount token where the kubelet mounts it), reachable through URL-based webhook
// configurations. `npm run test:all` builds the image before the e2e tests.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const layoutDir = join(repoRoot, 'dist/image/oci');
const local = inject('localControlPlane');
const ns = uniqueName('image');
const clusterRole = `${ns}-operator`;
const SA_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

interface BundleContainer {
  args: string[];
  env: EnvVar[];
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}

interface BundleDeployment {
  kind: string;
  spec: {
    template: {
      spec: {
        securityContext: { runAsUser: number; runAsGroup: number };
        containers: BundleContainer[];
      };
    };
  };
}

/** The operator Deployment of bundle.yaml: what a cluster runs the image with. */
function bundleDeployment(): BundleDeployment {
  const docs = loadAll(readFileSync(join(repoRoot, 'bundle.yaml'), 'utf8')) as BundleDeployment[];
  const found = docs.find((d) => d.kind === 'Deployment');
  if (found === undefined) throw new Error('bundle.yaml has no Deployment');
  return found;
}

/** The container's env as the kubelet resolves it for a Pod named `podName` in `namespace`. */
function resolveEnv(vars: readonly EnvVar[], namespace: string, podName: string): string[] {
  const fields: Record<string, string> = {
    'metadata.namespace': namespace,
    'metadata.name': podName,
  };
  return vars.map((v) => {
    const path = v.valueFrom?.fieldRef?.fieldPath;
    const value = path === undefined ? v.value : fields[path];
    if (value === undefined) throw new Error(`bundle.yaml env ${v.name}: cannot resolve`);
    return `${v.name}=${value}`;
  });
}

let image: OciImage;
let bundleDir: string | undefined;
let saDir: string | undefined;
let container: RunningContainer | undefined;
let ready = false;

async function readyCondition(name: string): Promise<string | undefined> {
  const rule = await get(['modrule', name, '-n', ns]);
  return rule.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

describe.runIf(local)('the container image, run under runc as the webhook', () => {
  beforeAll(async () => {
    const runc = await requireRunc();
    image = readOciImage(layoutDir);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot }).toString().trim();
    const revision = image.config.config.Labels['org.opencontainers.image.revision'];
    if (revision !== head) {
      throw new Error(
        `dist/image was built from ${String(revision)}, not HEAD ${head}: run npm run image`,
      );
    }
    const bundle = join(mkdtempSync(join(tmpdir(), 'kubemod-image-')), 'bundle');
    bundleDir = bundle;
    await unpackImage(layoutDir, image.tag, bundle);

    await kubectl(['create', 'namespace', ns]);
    const mounted = await mountOperatorServiceAccount(ns, clusterRole);
    const serviceAccountDir = mounted.dir;
    saDir = serviceAccountDir;
    await installCrd(kubectl);

    const deploymentSpec = bundleDeployment().spec.template.spec;
    const podContainer = deploymentSpec.containers[0];
    if (podContainer === undefined) throw new Error('bundle.yaml Deployment has no container');
    const [webhookPort, healthPort] = await freeLoopbackPorts(2);
    const urlBase = `https://127.0.0.1:${String(webhookPort)}`;
    const { Entrypoint } = image.config.config;
    hardenBundle(bundle, {
      uid: deploymentSpec.securityContext.runAsUser,
      gid: deploymentSpec.securityContext.runAsGroup,
      // The bundle's args replace the image's Cmd, as in a Pod; then what a Pod gets from its
      // Service (here: the loopback URL and ports, since the container shares the host network).
      args: [
        ...Entrypoint,
        ...podContainer.args,
        '--webhook-host',
        '127.0.0.1',
        '--webhook-port',
        String(webhookPort),
        '--health-port',
        String(healthPort),
        '--webhook-url-base',
        urlBase,
        '--reconcile-interval-ms',
        '2000',
      ],
      env: [
        ...resolveEnv(podContainer.env, ns, 'kubemod-operator-image-e2e'),
        ...Object.entries(mounted.env).map(([k, v]) => `${k}=${v}`),
      ],
      cwd: image.config.config.WorkingDir,
      readOnlyMounts: { [serviceAccountDir]: SA_MOUNT },
    });
    await applyWebhookConfigurations(kubectl, urlBase);

    const t0 = performance.now();
    container = await startContainer(bundle, ns);
    const exitedEarly = container.exited.then((code) => {
      throw new Error(`the container exited with ${String(code)}: ${container?.logs.join('')}`);
    });
    await Promise.race([
      exitedEarly,
      waitFor(
        'the operator in the container to answer /readyz with 200',
        async () => {
          const res = await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`).catch(
            () => undefined,
          );
          return res?.status === 200 ? true : undefined;
        },
        60_000,
        25,
      ),
    ]);
    const startMs = performance.now() - t0;
    ready = true;
    exitedEarly.catch(() => undefined);
    const unpacked = await diskUsageBytes(join(bundle, 'rootfs'));
    console.log(
      `[image] ${image.reference} ${image.manifestDigest} (${runc}): compressed layers ` +
        `${(image.compressedLayerBytes / 1e6).toFixed(1)} MB, unpacked ${(unpacked / 1e6).toFixed(1)} MB; ` +
        `runc run → /readyz 200 in ${startMs.toFixed(0)} ms`,
    );
    await waitFor(
      'caBundle injected by the operator in the container',
      async () => ((await caBundlesInjected(kubectl)) ? true : undefined),
      20_000,
    );
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    const code = await container?.stop();
    if (bundleDir !== undefined) rmSync(join(bundleDir, '..'), { recursive: true, force: true });
    if (saDir !== undefined) rmSync(saDir, { recursive: true, force: true });
    await kubectl(['delete', 'clusterrolebinding,clusterrole', clusterRole, '--ignore-not-found']);
    await deleteNamespacesNow([ns]).catch(() => undefined);
    // SIGTERM ends the operator cleanly (exit 0), as when a kubelet stops the Pod.
    if (ready) expect(code).toBe(0);
  });

  it('is the image the bundle expects: uid, entrypoint, labels', () => {
    const { config } = image.config;
    const securityContext = bundleDeployment().spec.template.spec.securityContext;
    expect(config.User).toBe(
      `${String(securityContext.runAsUser)}:${String(securityContext.runAsGroup)}`,
    );
    expect(config.Entrypoint).toEqual(['node', '/app/dist/src/cli/main.js']);
    expect(config.Cmd).toEqual(['operator']);
    expect(config.Env).toContain('NODE_ENV=production');
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(config.Labels['org.opencontainers.image.version']).toBe(pkg.version);
    expect(image.reference).toBe(`kubemod-ts:${pkg.version}`);
  });

  it('writes Ready statuses, patches a Deployment and rejects with a Reject rule', async () => {
    await kubectlApply(
      modRule('annotate', ns, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Deployment' }],
        patch: [
          { op: 'add', path: '/metadata/annotations/from-image', value: '"{{ .Namespace }}"' },
        ],
      }),
    );
    await kubectlApply(
      modRule('no-latest', ns, {
        type: 'Reject',
        rejectMessage:
          'image {{ (index .Target.spec.template.spec.containers 0).image }} is not pinned',
        match: [
          { select: '$.kind', matchValue: 'Deployment' },
          { select: '$.spec.template.spec.containers[*].image', matchRegex: '.*:latest$' },
        ],
      }),
    );
    for (const name of ['annotate', 'no-latest']) {
      expect(
        await waitFor(`ModRule ${name} Ready`, async () =>
          (await readyCondition(name)) === 'True' ? 'True' : undefined,
        ),
      ).toBe('True');
    }

    await kubectlApply(deployment('web', ns));
    const web: Obj = await get(['deployment', 'web', '-n', ns]);
    expect(web.metadata.annotations?.['from-image']).toBe(ns);

    const latest = JSON.stringify(deployment('latest', ns)).replace('nginx:1.25', 'nginx:latest');
    await expect(kubectl(['apply', '-f', '-'], { input: latest })).rejects.toThrow(
      /image nginx:latest is not pinned/,
    );
    // The operator used only the ServiceAccount's permissions and was refused nothing.
    expect(container?.logs.join('')).not.toMatch(/forbidden/i);
  });
});
