import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  impersonating,
  kubeconfig,
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
import { configMap, deployment, type Obj } from './support/operator-fixtures.js';

// Apply-to-existing and the periodic audit act only within the rights of the rule's author
// (issue 26, docs/audit.md). The operator runs as its ServiceAccount (impersonated) with the
// bundle's RBAC; tenants are real identities to the API server (impersonated users), so every
// access review below is answered by the API server's own RBAC authorizer.

const local = inject('localControlPlane');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const OPTIONAL_RBAC = `${repoRoot}/config/optional/apply-to-existing-rbac.yaml`;
const OPT_IN = 'apply-to-existing.kubemod.io/enabled=true';
const nsTenant = uniqueName('authz-tenant');
const nsEdit = uniqueName('authz-edit');
const nsOff = uniqueName('authz-off');
const TENANT = ['--as=e2e-tenant', '--as-group=e2e-tenants'];
const EDITOR = ['--as=e2e-editor', '--as-group=e2e-editors'];
// The operator may read Secrets in this test, and update them once the optional RBAC is in (the
// bundle grants neither): only the author's rights then keep the tenant's rule away from them.
const SECRETS_ROLE = uniqueName('authz-operator-secrets');
const SECRETS_UPDATE = `${SECRETS_ROLE}-update`;
let op: TestOperator | undefined;

interface ApplyStatus {
  phase?: string;
  updated?: number;
  failed?: number;
  forbidden?: number;
  message?: string;
  completionTime?: string;
}
type Stored = Obj & { metadata: Obj['metadata'] & { resourceVersion?: string } };
interface Rule {
  metadata: { annotations?: Record<string, string> };
  status?: { applyToExisting?: ApplyStatus; nonConforming?: number; lastAuditTime?: string };
}

/** `kubectl auth can-i` as the operator: "yes" or "no" (it exits 1 on "no", hence execFile). */
function operatorCanI(verb: string, resource: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['auth', 'can-i', verb, resource, `--as=${OPERATOR_ACCOUNT}`, '-A'],
      { env: { ...process.env, KUBECONFIG: kubeconfig() }, timeout: 30_000 },
      (_error, stdout, stderr) => {
        resolve(stdout.trim() || stderr.trim());
      },
    );
  });
}

/** Labels every object with e2etarget=yes: the objects the rule below matches, of every kind. */
function rule(namespace: string, forgedAuthor?: string): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: {
      name: 'takeover',
      namespace,
      annotations: {
        'api.kubemod.io/apply-to-existing': 'true',
        ...(forgedAuthor === undefined ? {} : { 'api.kubemod.io/author': forgedAuthor }),
      },
    },
    spec: {
      type: 'Patch',
      match: [{ select: '$.metadata.labels.e2etarget', matchValue: 'yes' }],
      patch: [{ op: 'add', path: '/metadata/labels/patched-by', value: 'takeover' }],
    },
  };
}

/** `kubectl create` as someone else (create only: the tenant may not get or patch ModRules). */
async function createAs(who: readonly string[], manifest: object): Promise<void> {
  await kubectl([...who, 'create', '-f', '-'], { input: JSON.stringify(manifest) });
}

async function ruleIn(namespace: string): Promise<Rule> {
  return (await kubectlJson(['get', 'modrule', 'takeover', '-n', namespace])) as Rule;
}

async function job(namespace: string, phase: string): Promise<Rule> {
  return waitFor(
    `apply-to-existing ${phase} in ${namespace}`,
    async () => {
      const r = await ruleIn(namespace);
      return r.status?.applyToExisting?.phase === phase ? r : undefined;
    },
    40_000,
    200,
  );
}

async function events(namespace: string): Promise<string[]> {
  const list = (await kubectlJson([
    'get',
    'events',
    '-n',
    namespace,
    '--field-selector',
    // The job's Event (an earlier rule of the same name was reported Disabled).
    'involvedObject.name=takeover,reason=AppliedToExisting',
  ])) as { items: { reason: string; message: string }[] };
  return list.items.map((e) => `${e.reason}: ${e.message}`);
}

async function objectsIn(namespace: string): Promise<Stored[]> {
  await kubectlApply(deployment('platform', namespace, { app: 'platform', e2etarget: 'yes' }));
  await kubectlApply(configMap('platform-cm', namespace, { e2etarget: 'yes' }));
  await kubectlApply(configMap('tenant-cm', namespace, { e2etarget: 'yes' }));
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'hidden', namespace, labels: { e2etarget: 'yes' } },
    stringData: { token: 's3cr3t' },
  });
  return Promise.all(
    ['deployment/platform', 'configmap/platform-cm', 'configmap/tenant-cm', 'secret/hidden'].map(
      async (ref) => (await kubectlJson(['get', ref, '-n', namespace])) as Stored,
    ),
  );
}

const patchedBy = (o: Obj): string | undefined => o.metadata.labels?.['patched-by'];

/** A ClusterRole on Secrets for the operator's ServiceAccount (this test only). */
async function grantSecrets(name: string, verbs: string): Promise<void> {
  await kubectl(['create', 'clusterrole', name, `--verb=${verbs}`, '--resource=secrets']);
  await kubectl([
    'create',
    'clusterrolebinding',
    name,
    `--clusterrole=${name}`,
    `--serviceaccount=${SYSTEM_NAMESPACE}:kubemod-operator`,
  ]);
}

describe.runIf(local)('apply-to-existing within the rule author’s rights', () => {
  let before: Stored[] = [];

  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    // The bundle's RBAC only (config/rbac/), plus Secrets for this test.
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    await kubectl(['delete', '-f', OPTIONAL_RBAC, '--ignore-not-found']);
    await grantSecrets(SECRETS_ROLE, 'get,list');
    for (const ns of [nsTenant, nsEdit, nsOff]) await kubectl(['create', 'namespace', ns]);
    for (const ns of [nsTenant, nsEdit]) await kubectl(['label', 'namespace', ns, OPT_IN]);
    // The tenant: view, ModRule create/update, and update on one ConfigMap by name.
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'tenant', namespace: nsTenant },
      rules: [
        { apiGroups: ['api.kubemod.io'], resources: ['modrules'], verbs: ['create', 'update'] },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['tenant-cm'],
          verbs: ['update'],
        },
      ],
    });
    await kubectl([
      'create',
      'rolebinding',
      'tenant',
      '-n',
      nsTenant,
      '--role=tenant',
      '--user=e2e-tenant',
    ]);
    await kubectl([
      'create',
      'rolebinding',
      'tenant-view',
      '-n',
      nsTenant,
      '--clusterrole=view',
      '--user=e2e-tenant',
    ]);
    // The editor: edit and ModRule create/update.
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'editor', namespace: nsEdit },
      rules: [
        { apiGroups: ['api.kubemod.io'], resources: ['modrules'], verbs: ['create', 'update'] },
      ],
    });
    await kubectl([
      'create',
      'rolebinding',
      'editor',
      '-n',
      nsEdit,
      '--role=editor',
      '--user=e2e-editor',
    ]);
    await kubectl([
      'create',
      'rolebinding',
      'editor-edit',
      '-n',
      nsEdit,
      '--clusterrole=edit',
      '--user=e2e-editor',
    ]);
    before = await objectsIn(nsTenant);
    await objectsIn(nsEdit);

    op = await startTestOperator(impersonating(OPERATOR_ACCOUNT), [
      '--audit-interval-seconds',
      '2',
      '--apply-existing-rate',
      '50',
    ]);
    await wireTestOperator(kubectl, op);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await op?.stop();
    await kubectl(['delete', '-f', OPTIONAL_RBAC, '--ignore-not-found']).catch(() => undefined);
    for (const name of [SECRETS_ROLE, SECRETS_UPDATE])
      await kubectl(['delete', 'clusterrolebinding,clusterrole', name, '--ignore-not-found']).catch(
        () => undefined,
      );
    for (const ns of [nsTenant, nsEdit, nsOff])
      await kubectl(['delete', 'modrules', '--all', '-n', ns]).catch(() => undefined);
    await kubectl([
      'delete',
      'namespace',
      nsTenant,
      nsEdit,
      nsOff,
      '--wait=false',
      '--ignore-not-found',
    ]).catch(() => undefined);
  });

  it('is reported as not enabled without the optional RBAC, and the operator may not update anything', async () => {
    expect(await operatorCanI('update', 'deployments')).toBe('no');
    expect(await operatorCanI('update', 'configmaps')).toBe('no');
    await createAs(TENANT, rule(nsTenant));
    const disabled = await job(nsTenant, 'Disabled');
    expect(disabled.status?.applyToExisting?.message).toMatch(
      /^apply-to-existing is not enabled: the operator has no update permission on .* in namespace .*; an admin installs config\/optional\/apply-to-existing-rbac\.yaml$/,
    );
    await kubectl(['delete', 'modrule', 'takeover', '-n', nsTenant]);
  });

  it('records the tenant as the author, updates only what the tenant may update, and says nothing about what it may not read', async () => {
    await kubectl(['apply', '-f', OPTIONAL_RBAC]);
    await grantSecrets(SECRETS_UPDATE, 'update');
    expect(await operatorCanI('update', 'deployments')).toBe('yes');
    // The tenant claims to be the admin: the webhook records who it really is.
    const forged = '{"username":"kubernetes-admin","groups":["system:masters"],"extra":{}}';
    await createAs(TENANT, rule(nsTenant, forged));
    const author = JSON.parse(
      (await ruleIn(nsTenant)).metadata.annotations?.['api.kubemod.io/author'] ?? '{}',
    ) as { username?: string; groups?: string[] };
    expect(author.username).toBe('e2e-tenant');
    expect(author.groups).toContain('e2e-tenants');
    expect(author.groups).not.toContain('system:masters');

    const done = await job(nsTenant, 'Completed');
    // tenant-cm updated; the platform's Deployment and ConfigMap forbidden; the Secret (which the
    // tenant may not list) not looked at, so not counted at all.
    expect(done.status?.applyToExisting).toMatchObject({ updated: 1, failed: 0, forbidden: 2 });
    const after = await Promise.all(
      ['deployment/platform', 'configmap/platform-cm', 'configmap/tenant-cm', 'secret/hidden'].map(
        async (ref) => (await kubectlJson(['get', ref, '-n', nsTenant])) as Stored,
      ),
    );
    expect(after.map(patchedBy)).toEqual([undefined, undefined, 'takeover', undefined]);
    // Untouched: not even re-submitted.
    for (const i of [0, 1, 3])
      expect(after[i]?.metadata.resourceVersion).toBe(before[i]?.metadata.resourceVersion);

    const said = [...(await events(nsTenant)), JSON.stringify(done.status)].join('\n');
    expect(said).toMatch(
      /AppliedToExisting: Applied to existing objects: 1 updated, 2 forbidden, 0 failed\. \d+ collections not readable by the author were skipped\./,
    );
    expect(said).not.toMatch(/hidden|platform|secret|token/i);

    // The periodic audit counts for the rule only what its author may list: the two platform
    // objects still to patch, never the Secret (a run that read tenant-cm before the job patched
    // it may briefly say 3; counting the Secret would make it 3 or more for good).
    const since = Date.parse(done.status?.applyToExisting?.completionTime ?? '');
    const counted = await waitFor(
      'an audit after the job',
      async () => {
        const r = await ruleIn(nsTenant);
        return Date.parse(r.status?.lastAuditTime ?? '') > since && r.status?.nonConforming === 2
          ? r
          : undefined;
      },
      20_000,
      250,
    );
    expect(counted.status?.nonConforming).toBe(2);
  });

  it('works for an author with edit, and not in a namespace the admin did not opt in', async () => {
    await createAs(EDITOR, rule(nsEdit));
    const done = await job(nsEdit, 'Completed');
    expect(done.status?.applyToExisting).toMatchObject({ updated: 4, failed: 0, forbidden: 0 });
    const platform = (await kubectlJson(['get', 'deployment', 'platform', '-n', nsEdit])) as Obj;
    expect(patchedBy(platform)).toBe('takeover');

    await kubectlApply(rule(nsOff));
    const off = await job(nsOff, 'Disabled');
    expect(off.status?.applyToExisting?.message).toBe(
      `apply-to-existing is not enabled in namespace ${nsOff}: an admin enables it by labelling the namespace ${OPT_IN}`,
    );
  });
});
