import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  deleteNamespacesNow,
  impersonating,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  OPERATOR_ACCOUNT,
  SYSTEM_NAMESPACE,
  deleteWebhookConfigurations,
  ensureNamespace,
  installCrd,
  startTestOperator,
  type TestOperator,
  wireTestOperator,
} from './support/operator-env.js';
import { freeLoopbackPorts } from '../cluster/control-plane.js';
import { DEFAULT_LOOKUP_KINDS } from '../../src/controller/lookup-caches/lookup-kinds.js';

// Template lookups (issue 35, docs/lookups-operator.md) against the real thing: the operator runs
// as its ServiceAccount (impersonated) with the bundle's RBAC plus config/optional/lookups-rbac.yaml
// and, for this test only, list/watch on Secrets; kube-controller-manager makes the ReplicaSets
// and Pods whose owners rules read; tenants are impersonated users whose rights the API server's
// RBAC decides, so every access review is a real one.

const local = inject('localControlPlane');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const LOOKUPS_RBAC = `${repoRoot}/config/optional/lookups-rbac.yaml`;
const SECRETS_ROLE = uniqueName('lookups-operator-secrets');
const nsA = uniqueName('lk-a');
const nsB = uniqueName('lk-b');
const TENANT = ['--as=e2e-lookup-tenant', '--as-group=e2e-lookup-tenants'];
/** What only nsB holds: it must never show up in nsA's rules' output, events, status or logs. */
const B_SECRET = 'only-in-namespace-b-7f3a';
const A_SECRET = 'secret-of-namespace-a-91c2';
let op: TestOperator | undefined;
let healthUrl = '';
const readyz: { at: number; status: number }[] = [];
let syncedLogged = -1;

interface Stored {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string }[];
  };
  status?: unknown;
}

function rule(name: string, namespace: string, spec: object): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  };
}

/** A Patch rule on ConfigMaps named `name*` that writes `value` as annotation `looked-up`. */
function annotateRule(name: string, namespace: string, value: string): object {
  return rule(name, namespace, {
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.name', matchRegex: `${name}-target.*` },
    ],
    patch: [{ op: 'add', path: '/metadata/annotations/looked-up', value }],
  });
}

async function get(args: readonly string[]): Promise<Stored> {
  return (await kubectlJson(['get', ...args])) as Stored;
}

/** Every text the rules of nsA could have put a value in: objects, events, rule statuses, logs. */
async function everythingVisibleIn(namespace: string): Promise<string> {
  const texts = await Promise.all([
    kubectl(['get', 'configmaps,events,modrules', '-n', namespace, '-o', 'json']),
  ]);
  return [...texts, ...(op?.logs ?? [])].join('\n');
}

async function pollReadyz(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const res = await fetch(`${healthUrl}/readyz`);
      readyz.push({ at: performance.now(), status: res.status });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(local)('lookups from the operator caches, within the rule author’s rights', () => {
  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    await kubectl(['apply', '-f', LOOKUPS_RBAC]);
    // Beyond lookups-rbac.yaml, for this test only: the operator could read Secrets.
    await kubectl([
      'create',
      'clusterrole',
      SECRETS_ROLE,
      '--verb=get,list,watch',
      '--resource=secrets',
    ]);
    await kubectl([
      'create',
      'clusterrolebinding',
      SECRETS_ROLE,
      `--clusterrole=${SECRETS_ROLE}`,
      `--serviceaccount=${SYSTEM_NAMESPACE}:kubemod-operator`,
    ]);
    for (const ns of [nsA, nsB]) await kubectl(['create', 'namespace', ns]);
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: nsA },
      data: { team: 'blue', allowed: 'nginx:1.25 registry.example.com/app:2' },
    });
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: nsB },
      data: { team: B_SECRET },
    });
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: nsA },
      stringData: { token: A_SECRET },
    });
    // The tenant: ModRules and ConfigMaps in nsA, no Secrets.
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'tenant', namespace: nsA },
      rules: [
        {
          apiGroups: ['api.kubemod.io'],
          resources: ['modrules'],
          verbs: ['create', 'update', 'get'],
        },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list'] },
      ],
    });
    await kubectl([
      'create',
      'rolebinding',
      'tenant',
      '-n',
      nsA,
      '--role=tenant',
      '--user=e2e-lookup-tenant',
    ]);

    const [healthPort] = await freeLoopbackPorts(1);
    healthUrl = `http://127.0.0.1:${String(healthPort)}`;
    const polling = new AbortController();
    const polled = pollReadyz(polling.signal);
    op = await startTestOperator(impersonating(OPERATOR_ACCOUNT), [
      '--lookup-kinds',
      `${DEFAULT_LOOKUP_KINDS},Secret`,
      '--health-port',
      String(healthPort),
      '--log-level',
      'info',
    ]);
    await polled;
    polling.abort();
    syncedLogged = op.logs.findIndex((line) => line.includes('lookup caches synced'));
    await wireTestOperator(kubectl, op);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await op?.stop();
    await kubectl(['delete', '-f', LOOKUPS_RBAC, '--ignore-not-found']).catch(() => undefined);
    await kubectl([
      'delete',
      'clusterrolebinding,clusterrole',
      SECRETS_ROLE,
      '--ignore-not-found',
    ]).catch(() => undefined);
    for (const ns of [nsA, nsB])
      await kubectl(['delete', 'modrules', '--all', '-n', ns]).catch(() => undefined);
    await deleteNamespacesNow([nsA, nsB]).catch(() => undefined);
  });

  it('is not ready before the lookup caches have synced', () => {
    expect(readyz.some((r) => r.status === 503)).toBe(true);
    expect(readyz.at(-1)?.status).toBe(200);
    // The caches reported synced (an info line) before the first 200.
    expect(syncedLogged).toBeGreaterThanOrEqual(0);
    expect(op?.logs[syncedLogged]).toMatch(/"ConfigMap":\d+.*"Secret":\d+/);
  });

  it('gives a Pod its Deployment’s labels through the owner chain', async () => {
    await kubectlApply(
      rule('owner-labels', nsA, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        patch: [
          {
            op: 'add',
            path: '/metadata/labels/team',
            value: '{{ (index (ownerChain .Target) 1).metadata.labels.team }}',
          },
        ],
      }),
    );
    await kubectlApply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: nsA, labels: { app: 'web', team: 'green' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
        },
      },
    });
    const pod = await waitFor(
      'a Pod of the Deployment',
      async () => {
        const list = (await kubectlJson(['get', 'pods', '-n', nsA, '-l', 'app=web'])) as {
          items: Stored[];
        };
        return list.items[0];
      },
      60_000,
    );
    expect(pod.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    expect(pod.metadata.labels?.team).toBe('green');
  });

  it('writes a value from a ConfigMap of the rule’s namespace', async () => {
    await kubectlApply(
      annotateRule(
        'cm-value',
        nsA,
        '{{ (lookup "v1" "ConfigMap" .Namespace "settings").data.team }}',
      ),
    );
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm-value-target', namespace: nsA },
      data: {},
    });
    expect(
      (await get(['configmap', 'cm-value-target', '-n', nsA])).metadata.annotations?.['looked-up'],
    ).toBe('blue');
  });

  it('fails a computed read of another namespace, with nothing of it anywhere', async () => {
    await kubectlApply(
      annotateRule(
        'computed-other',
        nsA,
        '{{ (lookup "v1" "ConfigMap" (index .Target.metadata.annotations "from") "settings").data.team }}',
      ),
    );
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'computed-other-target', namespace: nsA, annotations: { from: nsB } },
      data: {},
    });
    const target = await get(['configmap', 'computed-other-target', '-n', nsA]);
    expect(target.metadata.annotations?.['looked-up']).toBeUndefined();
    // The rule failed (logged, an Event): the reason, never nsB's data.
    await waitFor(
      'the failure logged',
      () =>
        Promise.resolve(
          op?.logs.some((l) => l.includes('reads only its own namespace')) === true
            ? true
            : undefined,
        ),
      20_000,
    );
    expect(await everythingVisibleIn(nsA)).not.toContain(B_SECRET);
  });

  it('refuses a Secret to an author without get on Secrets, though the operator could read it', async () => {
    await kubectl([...TENANT, 'create', '-f', '-'], {
      input: JSON.stringify(
        annotateRule(
          'tenant-secret',
          nsA,
          '{{ (lookup "v1" "Secret" .Namespace "creds").data.token }}',
        ),
      ),
    });
    await kubectl([...TENANT, 'create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'tenant-secret-target', namespace: nsA },
        data: {},
      }),
    });
    const target = await get(['configmap', 'tenant-secret-target', '-n', nsA]);
    expect(target.metadata.annotations?.['looked-up']).toBeUndefined();
    await waitFor(
      'the refusal logged',
      () =>
        Promise.resolve(
          op?.logs.some((l) => l.includes('may not get secrets')) === true ? true : undefined,
        ),
      20_000,
    );
    const visible = await everythingVisibleIn(nsA);
    expect(visible).not.toContain(A_SECRET);
    expect(visible).not.toContain(Buffer.from(A_SECRET).toString('base64'));
  });

  it('lets an author who may get the Secret read it: the author decides, not the operator', async () => {
    await kubectlApply(
      annotateRule(
        'admin-secret',
        nsA,
        '{{ (lookup "v1" "Secret" .Namespace "creds").data.token }}',
      ),
    );
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'admin-secret-target', namespace: nsA },
      data: {},
    });
    const target = await get(['configmap', 'admin-secret-target', '-n', nsA]);
    expect(target.metadata.annotations?.['looked-up']).toBe(
      Buffer.from(A_SECRET).toString('base64'),
    );
  });

  it('refuses at admission a tenant rule naming another namespace or a Secret literally', async () => {
    const create = (name: string, value: string): Promise<string> =>
      kubectl([...TENANT, 'create', '-f', '-'], {
        input: JSON.stringify(annotateRule(name, nsA, value)),
      }).then(
        () => 'created',
        (err: unknown) => String(err),
      );
    const other = await create(
      'literal-other',
      `{{ (lookup "v1" "ConfigMap" "${nsB}" "settings").data.team }}`,
    );
    expect(other).toMatch(/denied the request.*spec\.patch\[0\]\.value/s);
    expect(other).not.toContain(B_SECRET);
    const secret = await create(
      'literal-secret',
      `{{ (lookup "v1" "Secret" "${nsA}" "creds").data.token }}`,
    );
    expect(secret).toMatch(/spec\.patch\[0\]\.value: lookup v1\/Secret .*may not get secrets/s);
    // The same rule naming a ConfigMap the tenant may get is admitted.
    expect(
      await create('literal-ok', `{{ (lookup "v1" "ConfigMap" "${nsA}" "settings").data.team }}`),
    ).toBe('created');
  });

  it('rejects an image that the namespace’s ConfigMap does not allow', async () => {
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'allowed-images', namespace: nsA },
      data: { regex: '^(nginx:1.25|registry.example.com/app:2)$' },
    });
    await kubectlApply(
      rule('allowed-images', nsA, {
        type: 'Reject',
        rejectMessage:
          'image not in ConfigMap allowed-images: {{ (index .Target.spec.template.spec.containers 0).image }}',
        match: [
          { select: '$.kind', matchValue: 'Deployment' },
          {
            select:
              '$.spec.template.spec.containers[? @.image !~ "{{ (lookup "v1" "ConfigMap" .Namespace "allowed-images").data.regex }}"]',
          },
        ],
      }),
    );
    const deploy = (name: string, image: string): Promise<string> =>
      kubectlApply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: nsA },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'main', image }] },
          },
        },
      }).then(
        () => 'created',
        (err: unknown) => String(err),
      );
    expect(await deploy('allowed', 'nginx:1.25')).toBe('created');
    expect(await deploy('refused', 'evil.example.com/miner:latest')).toMatch(
      /image not in ConfigMap allowed-images: evil\.example\.com\/miner:latest/,
    );
  });
});
