import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHelm, CHART_PATH, run, type RunResult } from './support/helm.js';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  expectPatchAndReject,
  expectReplicasReady,
  readyWebhookEndpoints,
} from './support/real-node-admission.js';
import {
  OPERATOR_DEPLOYMENT,
  pushReleaseImage,
  realNode,
  RELEASE_REPOSITORY,
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type PushedImage,
} from './support/real-node.js';

// `helm install` of the chart as a release ships it, on the harness's real node: the image pushed
// by digest to the loopback registry (support/real-node.ts, as for the bundle), the chart packaged
// by the release's own script (scripts/chart/package.sh: chart version and appVersion from
// package.json, image.digest set to the pushed index digest: the only values it sets), and
// installed as the chart README says (`kubectl create namespace`, `helm install --take-ownership`)
// with no --set. The operator's Pods run under the kubelet and the API server reaches the webhooks
// through the chart's Service.

const RELEASE = 'kubemod-ts';
const CRDS = ['modrules.api.kubemod.io', 'externaldataproviders.api.kubemod.io'];
const namespaces: string[] = [];
let helmPath: string;
let pushed: PushedImage;
let chartArchive: string;
let scratch: string;

async function helm(args: readonly string[]): Promise<string> {
  const result = await run(helmPath, args, { KUBECONFIG: kubeconfig() }, 300_000);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

async function gone(args: readonly string[]): Promise<boolean> {
  return (await kubectl(['get', ...args, '--ignore-not-found', '-o', 'name'])).trim() === '';
}

/**
 * A cluster without kubemod-ts, as a user's is before `helm install`: removes what another file
 * (real-node-bundle: `kubectl apply -f bundle.yaml`) left, and waits until the namespace is gone.
 */
async function removeKubemod(): Promise<void> {
  await kubectl(['delete', '-f', 'bundle.yaml', '--ignore-not-found', '--wait=false'], {
    timeoutMs: 120_000,
  });
  await waitFor(
    `${SYSTEM_NAMESPACE} and the CRDs to be deleted`,
    async () => {
      for (const crd of CRDS) if (!(await gone(['crd', crd]))) return undefined;
      return (await gone(['namespace', SYSTEM_NAMESPACE])) ? true : undefined;
    },
    180_000,
    1_000,
  );
}

/** Forgets the release image on the node, so the chart's Pods pull it (again) from the registry. */
async function forgetReleaseImage(): Promise<string[]> {
  const ctr = (args: readonly string[]): Promise<RunResult> =>
    run('ctr', ['--address', realNode().containerdSocket, '--namespace', 'k8s.io', ...args]);
  const listed = await ctr(['images', 'ls', '-q']);
  if (listed.code !== 0) throw new Error(`ctr images ls failed: ${listed.stderr}`);
  const refs = listed.stdout.split('\n').filter((ref) => ref.startsWith(RELEASE_REPOSITORY));
  if (refs.length > 0) {
    const removed = await ctr(['images', 'rm', '--sync', ...refs]);
    if (removed.code !== 0) throw new Error(`ctr images rm failed: ${removed.stderr}`);
  }
  return refs;
}

describe('the released chart on a real node', () => {
  beforeAll(async () => {
    helmPath = await buildHelm();
    await removeKubemod();
    await forgetReleaseImage();
    pushed = await pushReleaseImage();
    scratch = mkdtempSync(join(tmpdir(), 'kubemod-e2e-chart-'));
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    const packaged = await run('bash', [
      'scripts/chart/package.sh',
      version,
      pushed.digest,
      scratch,
    ]);
    if (packaged.code !== 0) throw new Error(`scripts/chart/package.sh failed: ${packaged.stderr}`);
    chartArchive = packaged.stdout.trim().split('\n').pop() ?? '';
    await kubectl(['create', 'namespace', SYSTEM_NAMESPACE]);
    await helm([
      'install',
      RELEASE,
      chartArchive,
      '--namespace',
      SYSTEM_NAMESPACE,
      '--take-ownership',
      '--wait',
      '--timeout',
      '5m',
    ]);
    await waitForOperatorReady();
  }, 30 * 60_000);

  afterAll(async () => {
    await deleteNamespacesNow(namespaces);
    // Leave the cluster as found: no release, and none of what it keeps (the CRDs).
    await run(
      helmPath,
      ['uninstall', RELEASE, '-n', SYSTEM_NAMESPACE, '--ignore-not-found', '--wait'],
      { KUBECONFIG: kubeconfig() },
      300_000,
    );
    await kubectl(['delete', 'crd', ...CRDS, '--ignore-not-found']);
    await deleteNamespacesNow([SYSTEM_NAMESPACE]);
    // The next file applies the bundle into this namespace: it must be gone, not terminating.
    await waitFor(
      `${SYSTEM_NAMESPACE} to be deleted`,
      async () => ((await gone(['namespace', SYSTEM_NAMESPACE])) ? true : undefined),
      180_000,
      1_000,
    );
    await pushed.stopRegistry();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(pushed.dir, { recursive: true, force: true });
  }, 300_000);

  it('packages the committed chart with only the image values changed', async () => {
    const values = load(await helm(['show', 'values', chartArchive])) as {
      image: { repository: string; digest: string };
    };
    expect(values.image).toMatchObject({ repository: RELEASE_REPOSITORY, digest: pushed.digest });
    // Rendered, the packaged chart is the committed chart with image.digest set, nothing more.
    const render = (chart: string, extra: readonly string[]): Promise<string> =>
      helm(['template', RELEASE, chart, '--namespace', SYSTEM_NAMESPACE, ...extra]);
    expect(await render(chartArchive, [])).toBe(
      await render(CHART_PATH, ['--set-string', `image.digest=${pushed.digest}`]),
    );
  });

  it('installs a deployed release owning the namespace, every value at its default', async () => {
    const status = JSON.parse(
      await helm(['status', RELEASE, '-n', SYSTEM_NAMESPACE, '-o', 'json']),
    ) as { info: { status: string }; config?: Record<string, unknown> };
    expect(status.info.status).toBe('deployed');
    expect(status.config ?? {}).toEqual({});
    const namespace = (await kubectlJson(['get', 'namespace', SYSTEM_NAMESPACE])) as {
      metadata: { labels?: Record<string, string> };
    };
    expect(namespace.metadata.labels).toMatchObject({
      'admission.kubemod.io/ignore': 'true',
      'app.kubernetes.io/managed-by': 'Helm',
    });
  });

  it('runs both replicas Running and Ready on the node, pulled by digest', async () => {
    await expectReplicasReady(`${RELEASE_REPOSITORY}@${pushed.digest}`, [
      pushed.digest,
      pushed.manifestDigest,
    ]);
  });

  it('serves admission through the chart Service: a ModRule patches, another rejects', async () => {
    expect(await readyWebhookEndpoints()).toBe(2);
    const ns = uniqueName('real-node-helm');
    await kubectl(['create', 'namespace', ns]);
    namespaces.push(ns);
    await expectPatchAndReject(ns, 'helm-chart');
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      OPERATOR_DEPLOYMENT,
      '-n',
      SYSTEM_NAMESPACE,
    ])) as { status: { readyReplicas: number } };
    expect(deployment.status.readyReplicas).toBe(2);
  });
});
