import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOperator } from '../../src/cli/operator-command.js';
import { createKubeClient, KubeApiError } from '../../src/controller/kube-client.js';
import { inClusterConnection, kubeconfigConnection } from '../../src/controller/kube-connection.js';
import type { RunningOperator } from '../../src/controller/operator.js';
import { kubeconfig, kubectl, kubectlApply, kubectlJson, waitFor } from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import { installCrd } from './support/operator-env.js';

// The in-cluster configuration, pointed at the e2e API server: a service-account token issued by
// the API server (TokenRequest) and its CA, laid out in a directory as the kubelet mounts them in
// a Pod, KUBERNETES_SERVICE_HOST/PORT set as in a Pod. The operator then runs with only that
// identity and the permissions of config/rbac, as it does when deployed.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const local = inject('localControlPlane');
const ns = uniqueName('incluster');
const SERVICE_ACCOUNT = 'kubemod-operator';
const clusterRole = `${ns}-operator`;
const mutating = `${ns}-mutating`;
const validating = `${ns}-validating`;
let saDir: string;
let env: Record<string, string>;

interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  roleRef?: { name: string };
  subjects?: { namespace?: string }[];
  rules?: { resourceNames?: string[] }[];
}

/**
 * config/rbac for a service account in `ns`: the ClusterRole (and its binding) under a unique
 * name, the webhook configurations it names renamed to this test's, the Role in `ns`.
 */
function rbacFor(namespace: string): Doc[] {
  const docs = ['cluster-role', 'cluster-role-binding', 'role', 'role-binding']
    .flatMap((file) => loadAll(readFileSync(join(repoRoot, 'config/rbac', `${file}.yaml`), 'utf8')))
    .filter((d): d is Doc => typeof d === 'object' && d !== null);
  const renamed: Record<string, string> = {
    'kubemod-mutating-webhook-configuration': mutating,
    'kubemod-validating-webhook-configuration': validating,
  };
  return docs.map((doc) => {
    const clusterScoped = doc.kind.startsWith('Cluster');
    return {
      ...doc,
      metadata: clusterScoped
        ? { ...doc.metadata, name: clusterRole }
        : { ...doc.metadata, namespace },
      ...(doc.roleRef === undefined
        ? {}
        : { roleRef: { ...doc.roleRef, ...(clusterScoped ? { name: clusterRole } : {}) } }),
      ...(doc.subjects === undefined
        ? {}
        : { subjects: doc.subjects.map((s) => ({ ...s, namespace })) }),
      ...(doc.rules === undefined
        ? {}
        : {
            rules: doc.rules.map((r) =>
              r.resourceNames === undefined
                ? r
                : { ...r, resourceNames: r.resourceNames.map((n) => renamed[n] ?? n) },
            ),
          }),
    };
  });
}

/** The API server's CA as the admin kubeconfig has it. */
async function clusterCaPem(): Promise<string> {
  const opts: RequestOptions = {};
  await kubeconfigConnection(kubeconfig()).authorize(opts);
  if (opts.ca === undefined) throw new Error('the e2e kubeconfig has no CA');
  return String(opts.ca);
}

async function issueToken(serviceAccount: string): Promise<string> {
  return (await kubectl(['create', 'token', serviceAccount, '-n', ns, '--duration=1h'])).trim();
}

describe.runIf(local)('the in-cluster configuration against the e2e API server', () => {
  beforeAll(async () => {
    await kubectl(['create', 'namespace', ns]);
    await kubectl(['create', 'serviceaccount', SERVICE_ACCOUNT, '-n', ns]);
    await kubectl(['create', 'serviceaccount', 'other', '-n', ns]);
    await kubectlApply({ apiVersion: 'v1', kind: 'List', items: rbacFor(ns) });
    await installCrd(kubectl);
    saDir = mkdtempSync(join(tmpdir(), 'kubemod-sa-'));
    writeFileSync(join(saDir, 'token'), await issueToken(SERVICE_ACCOUNT));
    writeFileSync(join(saDir, 'ca.crt'), await clusterCaPem());
    writeFileSync(join(saDir, 'namespace'), ns);
    const server = new URL(
      (
        JSON.parse(await kubectl(['config', 'view', '--minify', '-o', 'json'])) as {
          clusters: { cluster: { server: string } }[];
        }
      ).clusters[0]?.cluster.server ?? '',
    );
    env = { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
  });

  afterAll(async () => {
    rmSync(saDir, { recursive: true, force: true });
    await kubectl(['delete', 'clusterrolebinding,clusterrole', clusterRole, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
  });

  it('authenticates as the service account, with its permissions, and follows a rotated token', async () => {
    let now = Date.now();
    const client = createKubeClient(
      inClusterConnection({ env, serviceAccountDir: saDir, now: () => now }),
    );
    const whoami = async (): Promise<unknown> => {
      const review = await client.request({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      return (review.status as { userInfo: { username: string } }).userInfo.username;
    };
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:${SERVICE_ACCOUNT}`);
    // config/rbac grants ModRules cluster-wide, but not Secrets outside its namespace.
    const listed = await client.request({
      method: 'GET',
      path: '/apis/api.kubemod.io/v1beta1/modrules',
      query: { limit: 1 },
    });
    expect(Array.isArray(listed.items)).toBe(true);
    const forbidden = await client.request({ method: 'GET', path: '/api/v1/secrets' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(forbidden).toBeInstanceOf(KubeApiError);
    expect((forbidden as KubeApiError).statusCode).toBe(403);

    // The kubelet replaces the token file; the next read after a minute picks it up.
    writeFileSync(join(saDir, 'token'), await issueToken('other'));
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:${SERVICE_ACCOUNT}`);
    now += 60_000;
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:other`);
    writeFileSync(join(saDir, 'token'), await issueToken(SERVICE_ACCOUNT));
  });

  it('runs the operator without a kubeconfig: synced, leading, statuses written', async () => {
    await kubectlApply({
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'in-cluster', namespace: ns },
      spec: {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/seen', value: '"yes"' }],
      },
    });
    const abort = new AbortController();
    const logs: string[] = [];
    let started: (op: RunningOperator) => void = () => undefined;
    const running = new Promise<RunningOperator>((resolve) => {
      started = resolve;
    });
    const exit = runOperator(
      [
        '--namespace',
        ns,
        '--webhook-host',
        '127.0.0.1',
        '--webhook-port',
        '0',
        '--health-port',
        '0',
        '--mutating-webhook',
        mutating,
        '--validating-webhook',
        validating,
        '--lease-duration-ms',
        '4000',
        '--log-level',
        'warn',
      ],
      {
        stdout: (text) => logs.push(text),
        stderr: (text) => logs.push(text),
        env,
        serviceAccountDir: saDir,
        signal: abort.signal,
        onStarted: started,
      },
    );
    try {
      const operator = await Promise.race([
        running,
        exit.then((code) => {
          throw new Error(`operator exited with ${String(code)}: ${logs.join('')}`);
        }),
      ]);
      await operator.waitForReady();
      expect(operator.store.get(ns, 'in-cluster')).toBeDefined();
      const ready = await waitFor('the Ready condition written by the operator', async () => {
        const rule = (await kubectlJson(['get', 'modrule', 'in-cluster', '-n', ns])) as {
          status?: { conditions?: { type: string; status: string }[] };
        };
        return rule.status?.conditions?.find((c) => c.type === 'Ready');
      });
      expect(ready.status).toBe('True');
      expect(operator.isLeader()).toBe(true);
      const lease = (await kubectlJson(['get', 'lease', 'kubemod-operator-leader', '-n', ns])) as {
        spec: { holderIdentity?: string };
      };
      expect(lease.spec.holderIdentity).toBeTruthy();
      const secret = (await kubectlJson([
        'get',
        'secret',
        'kubemod-webhook-server-cert',
        '-n',
        ns,
      ])) as { data?: Record<string, string> };
      expect(Object.keys(secret.data ?? {})).toContain('tls.crt');
      // Nothing the operator did at startup was refused.
      expect(logs.join('')).not.toMatch(/forbidden/i);
    } finally {
      abort.abort();
      expect(await exit).toBe(0);
    }
  });
});
