import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../../src/cli/main.js';
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
  applyWebhookConfigurations,
  caBundlesInjected,
  deleteWebhookConfigurations,
  ensureNamespace,
  installCrd,
  startTestOperator,
  type TestOperator,
} from './support/operator-env.js';
import { startFailoverProxy, type FailoverProxy } from './support/failover-proxy.js';
import { configMap, deployment, get, modRule, type Obj } from './support/operator-fixtures.js';

// The audit of existing objects on the real API server: the `kubemod-ts audit` CLI, the leader's
// periodic audit in ModRule status and metrics, and apply-to-existing across a leader change.
// Operator replicas sit behind a loopback TCP proxy standing in for the webhook Service, so the
// API server's webhook calls reach whichever replica is running.

const local = inject('localControlPlane');
const nsAudit = uniqueName('audit');
const nsIgnored = uniqueName('audit-ign');
const nsApply = uniqueName('apply');
const nsPlain = uniqueName('apply-plain');
const nsRbac = uniqueName('audit-rbac');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const CLUSTER_RULE = uniqueName('audit-reject');
const operators: TestOperator[] = [];
let proxy: FailoverProxy;

interface Report {
  summary: { audited: number; nonConforming: number; complete: boolean };
  objects: {
    kind: string;
    namespace?: string;
    name: string;
    action: string;
    rules: string[];
    diff: string;
    rejections: string[];
  }[];
  unreadable: { resource: string; namespace?: string; status: number }[];
}

interface RuleStatus {
  metadata: { name: string; generation: number };
  status?: {
    nonConforming?: number;
    lastAuditTime?: string;
    applyToExisting?: {
      phase?: string;
      updated?: number;
      failed?: number;
      observedGeneration?: number;
    };
  };
}

async function audit(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['audit', '--no-progress', ...args], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    env: {},
  });
  return { code, out, err };
}

/** Starts a replica behind the proxy, with the periodic audit and apply-to-existing on. */
async function startReplica(kubeconfigPath = kubeconfig()): Promise<TestOperator> {
  const op = await startTestOperator(kubeconfigPath, [
    '--webhook-url-base',
    proxy.urlBase,
    '--log-level',
    'info',
    '--audit-interval-seconds',
    '2',
    // Slow enough for the test to stop the leader part-way through a job of ten objects.
    '--apply-existing-rate',
    '1',
    // No kubelet here: Pods never get ready, so a rollout only ends at its timeout (1 s). The
    // job (pod-template patches of ten Deployments) goes through the rollout bound's timeout path.
    '--apply-existing-rollout-timeout-seconds',
    '1',
  ]);
  operators.push(op);
  proxy.setBackends(operators.map((o) => Number(new URL(o.urlBase).port)));
  await op.operator.waitForReady();
  return op;
}

async function stopReplica(op: TestOperator): Promise<void> {
  expect(await op.stop()).toBe(0);
  operators.splice(operators.indexOf(op), 1);
  proxy.setBackends(operators.map((o) => Number(new URL(o.urlBase).port)));
}

async function applyRule(
  op: TestOperator,
  name: string,
  namespace: string,
  spec: object,
  annotations: Record<string, string> = {},
): Promise<void> {
  const rule = modRule(name, namespace, spec) as { metadata: Record<string, unknown> };
  rule.metadata.annotations = annotations;
  await kubectlApply(rule);
  await waitFor(
    `rule ${namespace}/${name} loaded`,
    () => (op.operator.store.get(namespace, name) ? true : undefined),
    10_000,
    50,
  );
}

function labels(obj: Obj): Record<string, string> {
  return obj.metadata.labels ?? {};
}

async function deployments(
  namespace: string,
): Promise<(Obj & { spec: { template: { metadata?: { labels?: Record<string, string> } } } })[]> {
  return ((await kubectlJson(['get', 'deployments', '-n', namespace])) as { items: never[] }).items;
}

const labelRule = {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  patch: [{ op: 'add', path: '/metadata/labels/audit-e2e', value: 'seen' }],
};

describe.runIf(local)('audit of existing objects', () => {
  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    proxy = await startFailoverProxy([]);
    const first = await startReplica();
    await applyWebhookConfigurations(kubectl, proxy.urlBase);
    await waitFor(
      'caBundle injected',
      async () => ((await caBundlesInjected(kubectl)) ? true : undefined),
      20_000,
    );
    expect(first.operator.isLeader()).toBe(true);
    for (const ns of [nsAudit, nsApply, nsPlain, nsRbac])
      await kubectl(['create', 'namespace', ns]);
    await kubectl(['create', 'namespace', nsIgnored]);
    await kubectl(['label', 'namespace', nsIgnored, 'admission.kubemod.io/ignore=true']);
    // The admin's opt-in for apply-to-existing (docs/audit.md); the operator runs as the admin.
    await kubectl(['label', 'namespace', nsApply, 'apply-to-existing.kubemod.io/enabled=true']);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await kubectl([
      'delete',
      'modrule',
      CLUSTER_RULE,
      '-n',
      SYSTEM_NAMESPACE,
      '--ignore-not-found',
    ]).catch(() => undefined);
    for (const ns of [nsAudit, nsApply, nsPlain, nsRbac])
      await kubectl(['delete', 'modrules', '--all', '-n', ns]).catch(() => undefined);
    await kubectl(['delete', '-f', `${repoRoot}/config/rbac/`, '--ignore-not-found']).catch(
      () => undefined,
    );
    for (const op of [...operators]) await op.stop();
    await proxy.close();
    await kubectl([
      'delete',
      'namespace',
      nsAudit,
      nsIgnored,
      nsApply,
      nsPlain,
      nsRbac,
      '--wait=false',
      '--ignore-not-found',
    ]).catch(() => undefined);
  });

  it('reports objects created before a rule and while the operator was stopped, with their diff', async () => {
    const [op] = operators;
    if (op === undefined) throw new Error('no operator');
    await kubectlApply(deployment('before-1', nsAudit));
    await kubectlApply(deployment('before-2', nsAudit));
    await applyRule(op, 'label', nsAudit, labelRule);
    await applyRule(op, CLUSTER_RULE, SYSTEM_NAMESPACE, {
      type: 'Reject',
      targetNamespaceRegex: `^(${nsAudit}|${nsIgnored})$`,
      rejectMessage: 'forbidden ConfigMap',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.labels.forbidden', matchValue: 'true' },
      ],
    });
    await kubectlApply(deployment('during', nsAudit));
    expect(labels(await get(['deployment', 'during', '-n', nsAudit]))['audit-e2e']).toBe('seen');

    // The operator is down: the dragnet webhook fails open and objects get in untouched.
    await stopReplica(op);
    await kubectlApply(deployment('while-stopped', nsAudit));
    expect(
      labels(await get(['deployment', 'while-stopped', '-n', nsAudit]))['audit-e2e'],
    ).toBeUndefined();
    await kubectlApply(configMap('bad', nsAudit, { forbidden: 'true' }));
    await kubectlApply(configMap('bad', nsIgnored, { forbidden: 'true' }));

    const json = await audit(['--kubeconfig', kubeconfig(), '-o', 'json']);
    expect(json.err).toBe('');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as Report;
    const ours = report.objects.filter((o) => o.namespace === nsAudit || o.namespace === nsIgnored);
    expect(ours.map((o) => `${o.kind}/${o.name}:${o.action}`)).toEqual([
      'ConfigMap/bad:reject',
      'Deployment/before-1:patch',
      'Deployment/before-2:patch',
      'Deployment/while-stopped:patch',
    ]);
    for (const finding of ours.filter((o) => o.action === 'patch')) {
      expect(finding.rules).toEqual([`${nsAudit}/label`]);
      expect(finding.diff).toContain('+    audit-e2e: seen');
    }
    expect(ours[0]?.rejections).toEqual([
      `${SYSTEM_NAMESPACE}/${CLUSTER_RULE}: "forbidden ConfigMap"`,
    ]);

    const table = await audit(['--kubeconfig', kubeconfig(), '-n', nsAudit]);
    expect(table.code).toBe(1);
    expect(table.out).toMatch(
      new RegExp(`${nsAudit}\\s+Deployment\\s+while-stopped\\s+patch\\s+${nsAudit}/label`),
    );
    expect(table.out).toContain(
      `# Deployment ${nsAudit}/while-stopped would be patched by ${nsAudit}/label`,
    );
    expect(table.out).toContain('+    audit-e2e: seen');
    // The four Deployments and the ConfigMap of nsAudit were audited (kube-root-ca.crt too, when
    // the harness runs a controller manager).
    expect(table.out).toMatch(
      /\d+ object\(s\) audited, 4 non-conforming \(3 would be patched, 1 rejected\)/,
    );
  });

  it('reports what the user may not read instead of failing', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'e2e-auditor', namespace: nsAudit },
      rules: [
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
        { apiGroups: ['api.kubemod.io'], resources: ['modrules'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      ],
    };
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'e2e-auditor', namespace: nsAudit },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'e2e-auditor' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'e2e-auditor' }],
    };
    await kubectlApply(role);
    await kubectlApply(binding);
    // The admin kubeconfig, impersonating a user who may only read Deployments in nsAudit.
    const limited = impersonating('e2e-auditor');

    const { code, out } = await audit(['--kubeconfig', limited, '-n', nsAudit, '-o', 'json']);
    expect(code).toBe(1);
    const report = JSON.parse(out) as Report;
    expect(report.summary.complete).toBe(false);
    expect(report.objects.map((o) => o.name)).toEqual(['before-1', 'before-2', 'while-stopped']);
    expect(report.unreadable).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          resource: 'modrules.api.kubemod.io',
          namespace: SYSTEM_NAMESPACE,
          status: 403,
        }),
      ]),
    );
  });

  it('publishes the periodic audit in the ModRule status and as metrics', async () => {
    const op = await startReplica();
    await waitFor('leadership', () => (op.operator.isLeader() ? true : undefined), 15_000, 50);
    const label = await waitFor(
      'nonConforming in the status',
      async () => {
        const rule = (await kubectlJson(['get', 'modrule', 'label', '-n', nsAudit])) as RuleStatus;
        return rule.status?.nonConforming === 3 ? rule : undefined;
      },
      30_000,
    );
    expect(Date.parse(label.status?.lastAuditTime ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const reject = (await kubectlJson([
      'get',
      'modrule',
      CLUSTER_RULE,
      '-n',
      SYSTEM_NAMESPACE,
    ])) as RuleStatus;
    expect(reject.status?.nonConforming).toBe(1);
    const metrics = await (await fetch(`${op.operator.healthUrl ?? ''}/metrics`)).text();
    expect(metrics).toContain(`kubemod_audit_nonconforming_objects{rule="${nsAudit}/label"} 3`);
    expect(metrics).toContain(
      `kubemod_audit_nonconforming_objects{rule="${SYSTEM_NAMESPACE}/${CLUSTER_RULE}"} 1`,
    );
    const wide = await kubectl(['get', 'modrule', 'label', '-n', nsAudit, '-o', 'wide']);
    expect(wide).toMatch(/NON-CONFORMING/);
  });

  it('applies an annotated rule to existing Deployments once each across a leader change; a rule without it changes nothing', async () => {
    const [leader] = operators;
    if (leader === undefined) throw new Error('no operator');
    const follower = await startReplica();
    expect(follower.operator.isLeader()).toBe(false);
    const names = Array.from({ length: 10 }, (_, i) => `app-${String(i)}`);
    for (const name of names) await kubectlApply(deployment(name, nsApply));
    for (const name of ['plain-0', 'plain-1']) await kubectlApply(deployment(name, nsPlain));

    await applyRule(leader, 'plain', nsPlain, labelRule);
    await applyRule(
      leader,
      'tier',
      nsApply,
      {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Deployment' }],
        patch: [{ op: 'add', path: '/spec/template/metadata/labels/tier', value: 'web' }],
      },
      { 'api.kubemod.io/apply-to-existing': 'true' },
    );
    const patched = async (): Promise<number> =>
      (await deployments(nsApply)).filter((d) => d.spec.template.metadata?.labels?.tier === 'web')
        .length;
    // Stop the leader part-way through the job.
    const before = await waitFor(
      'the leader to update 3 Deployments',
      async () => {
        const n = await patched();
        return n >= 3 ? n : undefined;
      },
      60_000,
      100,
    );
    await stopReplica(leader);
    expect(before).toBeLessThan(names.length);
    await waitFor(
      'the follower to lead',
      () => (follower.operator.isLeader() ? true : undefined),
      15_000,
      50,
    );

    const done = await waitFor(
      'the job to complete',
      async () => {
        const rule = (await kubectlJson(['get', 'modrule', 'tier', '-n', nsApply])) as RuleStatus;
        return rule.status?.applyToExisting?.phase === 'Completed' ? rule : undefined;
      },
      60_000,
    );
    expect(done.status?.applyToExisting).toMatchObject({
      observedGeneration: done.metadata.generation,
      updated: names.length,
      failed: 0,
    });
    for (const d of await deployments(nsApply)) {
      expect(d.spec.template.metadata?.labels?.tier).toBe('web');
      // One spec change per Deployment.
      expect(d.metadata.generation).toBe(2);
    }
    // Each object was updated by exactly one replica, once.
    const updatedBy = (op: TestOperator): string[] =>
      op.logs
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes('apply-to-existing: object updated'))
        .map((line) => (JSON.parse(line) as { object: { name: string } }).object.name);
    const first = updatedBy(leader);
    const second = updatedBy(follower);
    console.log(
      `[audit e2e] apply-to-existing: the first leader updated ${String(first.length)} Deployment(s), the second ${String(second.length)}`,
    );
    expect(first.length).toBeGreaterThanOrEqual(3);
    expect(second.length).toBeGreaterThan(0);
    expect([...first, ...second].sort()).toEqual([...names].sort());

    const events = (await kubectlJson([
      'get',
      'events',
      '-n',
      nsApply,
      '--field-selector',
      'involvedObject.name=tier,reason=AppliedToExisting',
    ])) as { items: { message: string; type: string }[] };
    expect(events.items.map((e) => `${e.type}: ${e.message}`)).toEqual([
      `Normal: Applied to existing objects: ${String(names.length)} updated, 0 forbidden, 0 failed.`,
    ]);

    // The rule without the annotation left the Deployments that existed before it alone.
    for (const d of await deployments(nsPlain)) {
      expect(labels(d)['audit-e2e']).toBeUndefined();
      expect(d.metadata.generation).toBe(1);
    }
    const plain = (await kubectlJson(['get', 'modrule', 'plain', '-n', nsPlain])) as RuleStatus;
    expect(plain.status?.applyToExisting).toBeUndefined();
  });

  it("audits as its service account with the bundle's RBAC: no count where it may not read, and dropping the audit role is not fatal", async () => {
    for (const op of [...operators]) await stopReplica(op);
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    const op = await startReplica(impersonating(OPERATOR_ACCOUNT));
    await waitFor('leadership', () => (op.operator.isLeader() ? true : undefined), 15_000, 50);
    await kubectlApply(configMap('old', nsRbac));
    await kubectlApply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'old', namespace: nsRbac },
      stringData: { k: 'v' },
    });
    const label = [{ op: 'add', path: '/metadata/labels/audit-e2e', value: 'seen' }];
    // Named: the controller manager also puts kube-root-ca.crt in every namespace.
    await applyRule(op, 'cm', nsRbac, {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.name', matchValue: 'old' },
      ],
      patch: label,
    });
    await applyRule(op, 'secret', nsRbac, {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Secret' }],
      patch: label,
    });
    const status = async (name: string): Promise<RuleStatus['status']> =>
      ((await kubectlJson(['get', 'modrule', name, '-n', nsRbac])) as RuleStatus).status;
    // The audit role grants ConfigMaps but not Secrets.
    await waitFor('the ConfigMap rule counted', async () =>
      (await status('cm'))?.nonConforming === 1 ? true : undefined,
    );
    const secret = await waitFor('the Secret rule audited', async () => {
      const s = await status('secret');
      return s?.lastAuditTime === undefined ? undefined : s;
    });
    expect(secret.nonConforming).toBeUndefined();

    // Without the optional audit role the audit still runs; it no longer claims a count.
    await kubectl(['delete', 'clusterrolebinding', 'kubemod-operator-audit']);
    const since = Date.now();
    const cm = await waitFor(
      'the ConfigMap rule without a count',
      async () => {
        const s = await status('cm');
        return s?.nonConforming === undefined && Date.parse(s?.lastAuditTime ?? '') >= since - 1000
          ? s
          : undefined;
      },
      30_000,
    );
    expect(cm.lastAuditTime).toBeDefined();
    expect(op.operator.isLeader()).toBe(true);
    const warned = op.logs.some((line) =>
      line.includes('no count for rules whose resources could not all be read'),
    );
    expect(warned).toBe(true);
  });
});
