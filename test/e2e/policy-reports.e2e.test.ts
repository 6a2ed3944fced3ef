import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { NOT_GRANTED } from '../../src/reports/report-publisher.js';
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
import { configMap, modRule } from './support/operator-fixtures.js';

// The periodic audit's policy reports on the real API server, with the upstream CRDs vendored in
// config/optional/policy-reports: written in OpenReports when it is served, without a write when
// nothing changed, removed with the rule, and in wgpolicyk8s.io when only that API is served.
// The operator runs as its service account with the bundle's RBAC (config/rbac/): the default
// install grants no write on reports, so nothing is written until the admin applies
// config/optional/policy-reports-rbac.yaml.

const local = inject('localControlPlane');
const ns = uniqueName('reports');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const CRDS = `${repoRoot}/config/optional/policy-reports`;
const OPEN_REPORTS_CRDS = ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'];
const WG_POLICY_CRDS = [
  'wgpolicyk8s.io_policyreports.yaml',
  'wgpolicyk8s.io_clusterpolicyreports.yaml',
];
const POLICY_REPORTS_RBAC = `${repoRoot}/config/optional/policy-reports-rbac.yaml`;
let operator: TestOperator | undefined;

interface Report {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  source?: string;
  summary: Record<string, number>;
  results: {
    source: string;
    policy: string;
    result: string;
    message: string;
    properties?: Record<string, string>;
    resources: { kind: string; name: string; namespace?: string }[];
  }[];
}

async function installReportCrds(files: readonly string[]): Promise<void> {
  for (const file of files) await kubectl(['apply', '--server-side', '-f', `${CRDS}/${file}`]);
  for (const file of files)
    await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      `crd/${file.replace(/^([^_]+)_(.+)\.yaml$/, '$2.$1')}`,
    ]);
}

async function removeReportCrds(files: readonly string[]): Promise<void> {
  for (const file of files)
    await kubectl(['delete', '-f', `${CRDS}/${file}`, '--ignore-not-found', '--wait=true']);
}

/** The report `kubemod-ts` of the namespace in `resource` (e.g. reports.openreports.io), or undefined. */
async function report(resource: string): Promise<Report | undefined> {
  const text = await kubectl([
    'get',
    resource,
    'kubemod-ts',
    '-n',
    ns,
    '--ignore-not-found',
    '-o',
    'json',
  ]);
  return text.trim() === '' ? undefined : (JSON.parse(text) as Report);
}

async function lastAuditTime(rule: string): Promise<string | undefined> {
  const obj = (await kubectlJson(['get', 'modrule', rule, '-n', ns])) as {
    status?: { lastAuditTime?: string };
  };
  return obj.status?.lastAuditTime;
}

/** Waits for two more completed audit runs (lastAuditTime has second resolution, runs every 2 s). */
async function twoMoreAudits(rule: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const before = await lastAuditTime(rule);
    await waitFor(
      'another audit run',
      async () => {
        const now = await lastAuditTime(rule);
        return now !== undefined && now !== before ? true : undefined;
      },
      30_000,
    );
  }
}

const auditRule = (
  name: string,
  why = 'must not be forbidden',
  mode: 'Audit' | 'Warn' = 'Audit',
): object => {
  const rule = modRule(name, ns, {
    type: 'Reject',
    rejectMessage: `ConfigMap {{ .Target.metadata.name }} ${why}`,
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.forbidden', matchValue: 'true' },
    ],
  }) as { metadata: Record<string, unknown> };
  rule.metadata.annotations = { 'api.kubemod.io/enforcement': mode };
  return rule;
};

function resultFor(r: Report, name: string): Report['results'][number] | undefined {
  return r.results.find((x) => x.resources[0]?.name === name);
}

describe.runIf(local)('policy reports of the periodic audit', () => {
  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    await removeReportCrds([...OPEN_REPORTS_CRDS, ...WG_POLICY_CRDS]);
    await kubectl(['delete', '-f', POLICY_REPORTS_RBAC, '--ignore-not-found']);
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    operator = await startTestOperator(impersonating(OPERATOR_ACCOUNT), [
      '--audit-interval-seconds',
      '2',
    ]);
    await wireTestOperator(kubectl, operator);
    await kubectl(['create', 'namespace', ns]);
    // Objects that were there before the rule (an Audit rule would admit them anyway).
    await kubectlApply(configMap('bad', ns, { forbidden: 'true' }));
    await kubectlApply(configMap('good', ns));
  });

  afterAll(async () => {
    await kubectl(['delete', 'modrules', '--all', '-n', ns]).catch(() => undefined);
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await operator?.stop();
    await removeReportCrds([...OPEN_REPORTS_CRDS, ...WG_POLICY_CRDS]).catch(() => undefined);
    await kubectl(['delete', '-f', POLICY_REPORTS_RBAC, '--ignore-not-found']).catch(
      () => undefined,
    );
    await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']).catch(
      () => undefined,
    );
  });

  it('writes no report with the default install’s RBAC, and logs which file grants it', async () => {
    await installReportCrds(OPEN_REPORTS_CRDS);
    await kubectlApply(auditRule('no-forbidden'));
    // The audit itself runs as usual: the rule's status is written.
    await twoMoreAudits('no-forbidden');
    await waitFor(
      'the operator to say that it may not write reports',
      () => (operator?.logs.some((line) => line.includes(NOT_GRANTED)) ? true : undefined),
      30_000,
      500,
    );
    expect(await report('reports.openreports.io')).toBeUndefined();
    // The admin enables reports; the following tests run with this permission.
    await kubectl(['apply', '-f', POLICY_REPORTS_RBAC]);
  });

  it('writes an OpenReports Report, does not rewrite it unchanged, and removes it with the rule', async () => {
    await installReportCrds(OPEN_REPORTS_CRDS);
    await kubectlApply(auditRule('no-forbidden'));
    const written = await waitFor(
      'the namespace report',
      async () => {
        const r = await report('reports.openreports.io');
        return r !== undefined && resultFor(r, 'bad') !== undefined ? r : undefined;
      },
      60_000,
      500,
    );
    expect(written.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('kubemod-ts');
    expect(written.source).toBe('kubemod-ts');
    expect(resultFor(written, 'bad')).toMatchObject({
      source: 'kubemod-ts',
      policy: `${ns}/no-forbidden`,
      result: 'fail',
      message: 'ConfigMap bad must not be forbidden',
      properties: { ruleType: 'Reject', enforcement: 'Audit' },
      resources: [{ kind: 'ConfigMap', name: 'bad', namespace: ns }],
    });
    expect(resultFor(written, 'good')?.result).toBe('pass');
    expect(written.summary.fail).toBe(1);
    expect(written.summary.pass).toBe(written.results.length - 1);

    // The CLI prints the same report (it runs with the test's admin credentials).
    let printed = '';
    const code = await main(
      ['audit', '--no-progress', '-o', 'report', '-n', ns, '--kubeconfig', kubeconfig()],
      { stdout: (t) => (printed += t), stderr: () => undefined, env: {} },
    );
    // Not an error (whether an Audit-mode violation counts for the exit status is the audit's
    // business, not the report's).
    expect([0, 1]).toContain(code);
    const [cliReport] = loadAll(printed) as Report[];
    expect(cliReport?.results).toEqual(written.results);
    expect(cliReport?.summary).toEqual(written.summary);

    // Two more audits of an unchanged namespace: the report is not written again.
    await twoMoreAudits('no-forbidden');
    expect((await report('reports.openreports.io'))?.metadata.resourceVersion).toBe(
      written.metadata.resourceVersion,
    );

    // A change is written in place: the rule's message changes, so every result of the rule does.
    await kubectlApply(auditRule('no-forbidden', 'is forbidden here'));
    const updated = await waitFor(
      'the report updated',
      async () => {
        const r = await report('reports.openreports.io');
        return r !== undefined && resultFor(r, 'bad')?.message === 'ConfigMap bad is forbidden here'
          ? r
          : undefined;
      },
      30_000,
      500,
    );
    expect(updated.metadata.resourceVersion).not.toBe(written.metadata.resourceVersion);
    expect(updated.summary).toEqual(written.summary);

    // No rule applies any more: the report goes.
    await kubectl(['delete', 'modrule', 'no-forbidden', '-n', ns]);
    await waitFor(
      'the report deleted',
      async () => ((await report('reports.openreports.io')) === undefined ? true : undefined),
      30_000,
      500,
    );
  });

  it('writes a wgpolicyk8s.io PolicyReport when only that API is served', async () => {
    await removeReportCrds(OPEN_REPORTS_CRDS);
    await installReportCrds(WG_POLICY_CRDS);
    await kubectlApply(auditRule('no-forbidden-2'));
    await kubectlApply(auditRule('warned', 'is frowned upon', 'Warn'));
    const written = await waitFor(
      'the namespace policy report',
      async () => {
        const r = await report('policyreports.v1alpha2.wgpolicyk8s.io');
        return r?.results.some((x) => x.policy === `${ns}/warned`) === true ? r : undefined;
      },
      60_000,
      500,
    );
    expect(resultFor(written, 'bad')).toMatchObject({
      policy: `${ns}/no-forbidden-2`,
      result: 'fail',
      properties: { ruleType: 'Reject', enforcement: 'Audit' },
    });
    expect(written).not.toHaveProperty('source');
    // A Warn rule's violation is a warn result.
    expect(
      written.results.find((x) => x.policy === `${ns}/warned` && x.resources[0]?.name === 'bad'),
    ).toMatchObject({
      result: 'warn',
      message: 'ConfigMap bad is frowned upon',
      properties: { ruleType: 'Reject', enforcement: 'Warn' },
    });
    expect(written.summary.warn).toBe(1);
    const raw = (await kubectlJson([
      'get',
      'policyreports.v1alpha2.wgpolicyk8s.io',
      'kubemod-ts',
      '-n',
      ns,
    ])) as { apiVersion: string };
    expect(raw.apiVersion).toBe('wgpolicyk8s.io/v1alpha2');
    await kubectl(['delete', 'modrule', 'no-forbidden-2', 'warned', '-n', ns]);
    await waitFor(
      'the policy report deleted',
      async () =>
        (await report('policyreports.v1alpha2.wgpolicyk8s.io')) === undefined ? true : undefined,
      30_000,
      500,
    );
  });

  it("reports a tenant's rule only on objects its author may list", async () => {
    const tenant = ['--as=e2e-report-tenant', '--as-group=e2e-report-tenants'];
    // The tenant may write ModRules in the namespace, and nothing else.
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'modrule-author', namespace: ns },
      rules: [
        {
          apiGroups: ['api.kubemod.io'],
          resources: ['modrules'],
          verbs: ['get', 'list', 'create', 'update', 'patch'],
        },
      ],
    });
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'modrule-author', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'modrule-author' },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'e2e-report-tenant' },
      ],
    });
    await kubectl(['apply', '-f', '-', ...tenant], {
      input: JSON.stringify(auditRule('tenant-rule')),
    });
    // The admin's rule keeps a report in the namespace, so an audit that reported nothing for the
    // tenant's rule is told apart from no audit at all.
    await kubectlApply(auditRule('admin-rule'));
    const resource = 'policyreports.v1alpha2.wgpolicyk8s.io';
    await waitFor(
      "the admin rule's results",
      async () => {
        const r = await report(resource);
        return r?.results.some((x) => x.policy === `${ns}/admin-rule`) === true ? true : undefined;
      },
      60_000,
      500,
    );
    await twoMoreAudits('admin-rule');
    const before = await report(resource);
    expect(before?.results.filter((x) => x.policy === `${ns}/tenant-rule`)).toEqual([]);

    // Once the tenant may list ConfigMaps there, its rule reports on them (the access review
    // answers are cached for 10 s).
    await kubectlApply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'modrule-author', namespace: ns },
      rules: [
        {
          apiGroups: ['api.kubemod.io'],
          resources: ['modrules'],
          verbs: ['get', 'list', 'create', 'update', 'patch'],
        },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      ],
    });
    const after = await waitFor(
      "the tenant rule's results",
      async () => {
        const r = await report(resource);
        return r?.results.some((x) => x.policy === `${ns}/tenant-rule`) === true ? r : undefined;
      },
      60_000,
      500,
    );
    const tenantOnBad = after.results.find(
      (x) => x.policy === `${ns}/tenant-rule` && x.resources[0]?.name === 'bad',
    );
    expect(tenantOnBad?.result).toBe('fail');
  });
});
