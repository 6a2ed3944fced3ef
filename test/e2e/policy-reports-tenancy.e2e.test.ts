import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { impersonating, kubectl, kubectlApply, kubectlJson, waitFor } from './support/kubectl.js';
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

// Policy reports when tenants share a cluster (issue 37, findings 4 and 5), on the real API
// server with the vendored OpenReports CRDs and the operator running as its service account:
// - a tenant whose namespace sorts first (`aaa-…`) with many Reject rules × many ConfigMaps
//   must not push `prod-…` out of the reports (the bounds are lowered by flags so that a few
//   dozen results reach them);
// - a cluster-wide rule's results about objects in a tenant namespace go to the cluster report,
//   which tenants cannot read with `view`, not into the namespace's report.

const local = inject('localControlPlane');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const CRDS = `${repoRoot}/config/optional/policy-reports`;
const OPEN_REPORTS_CRDS = ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'];
const POLICY_REPORTS_RBAC = `${repoRoot}/config/optional/policy-reports-rbac.yaml`;
const PARTIAL = 'api.kubemod.io/report-partial';
// Sorted before `prod-…`, as the crowding tenant of the issue was.
const aaa = uniqueName('aaa');
const prod = uniqueName('prod');
const platformRule = uniqueName('platform');
const TENANT_RULES = 6;
const BOUNDS = {
  findings: 12,
  passes: 6,
  perNamespace: 10,
  perRule: 3,
};
let operator: TestOperator | undefined;

interface Result {
  policy: string;
  result: string;
  message: string;
  resources: { kind: string; name: string; namespace?: string }[];
}
interface Report {
  metadata: { name: string; annotations?: Record<string, string> };
  summary: Record<string, number>;
  results: Result[];
}

/** kubemod-ts's first report of `namespace` (the cluster report when undefined), if any. */
async function report(namespace: string | undefined): Promise<Report | undefined> {
  const text = await kubectl([
    'get',
    namespace === undefined ? 'clusterreports.openreports.io' : 'reports.openreports.io',
    'kubemod-ts',
    ...(namespace === undefined ? [] : ['-n', namespace]),
    '--ignore-not-found',
    '-o',
    'json',
  ]);
  return text.trim() === '' ? undefined : (JSON.parse(text) as Report);
}

async function lastAuditTime(namespace: string, rule: string): Promise<string | undefined> {
  const obj = (await kubectlJson(['get', 'modrule', rule, '-n', namespace])) as {
    status?: { lastAuditTime?: string };
  };
  return obj.status?.lastAuditTime;
}

/** Waits for two more completed audit runs (lastAuditTime has second resolution). */
async function twoMoreAudits(namespace: string, rule: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const before = await lastAuditTime(namespace, rule);
    await waitFor(
      'another audit run',
      async () => {
        const now = await lastAuditTime(namespace, rule);
        return now !== undefined && now !== before ? true : undefined;
      },
      30_000,
    );
  }
}

function rejectRule(name: string, namespace: string, extra: object = {}): object {
  const rule = modRule(name, namespace, {
    type: 'Reject',
    rejectMessage: `ConfigMap {{ .Target.metadata.name }} is refused by ${name}`,
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.forbidden', matchValue: 'true' },
    ],
    ...extra,
  }) as { metadata: Record<string, unknown> };
  rule.metadata.annotations = { 'api.kubemod.io/enforcement': 'Audit' };
  return rule;
}

const on = (r: Report, name: string, policy: string): Result | undefined =>
  r.results.find((x) => x.resources[0]?.name === name && x.policy === policy);

describe.runIf(local)('policy reports in a shared cluster', () => {
  beforeAll(async () => {
    await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
    await installCrd(kubectl);
    for (const file of OPEN_REPORTS_CRDS)
      await kubectl(['apply', '--server-side', '-f', `${CRDS}/${file}`]);
    for (const file of OPEN_REPORTS_CRDS)
      await kubectl([
        'wait',
        '--for=condition=Established',
        '--timeout=60s',
        `crd/${file.replace(/^([^_]+)_(.+)\.yaml$/, '$2.$1')}`,
      ]);
    await kubectl(['apply', '-f', `${repoRoot}/config/rbac/`]);
    await kubectl(['apply', '-f', POLICY_REPORTS_RBAC]);
    operator = await startTestOperator(impersonating(OPERATOR_ACCOUNT), [
      '--audit-interval-seconds',
      '2',
      '--report-max-findings',
      String(BOUNDS.findings),
      '--report-max-passes',
      String(BOUNDS.passes),
      '--report-max-results-per-namespace',
      String(BOUNDS.perNamespace),
      '--report-max-results-per-rule',
      String(BOUNDS.perRule),
    ]);
    await wireTestOperator(kubectl, operator);
    for (const namespace of [aaa, prod]) await kubectl(['create', 'namespace', namespace]);
    await kubectlApply(configMap('bad', prod, { forbidden: 'true' }));
    await kubectlApply(configMap('good', prod));
    await kubectlApply(rejectRule('no-forbidden', prod));
    // The platform team's cluster-wide rule, about ConfigMaps in prod only.
    await kubectlApply(
      rejectRule(platformRule, SYSTEM_NAMESPACE, { targetNamespaceRegex: `^${prod}$` }),
    );
  });

  afterAll(async () => {
    await kubectl(['delete', 'modrule', platformRule, '-n', SYSTEM_NAMESPACE]).catch(
      () => undefined,
    );
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await operator?.stop();
    for (const file of OPEN_REPORTS_CRDS)
      await kubectl(['delete', '-f', `${CRDS}/${file}`, '--ignore-not-found']).catch(
        () => undefined,
      );
    await kubectl(['delete', '-f', POLICY_REPORTS_RBAC, '--ignore-not-found']).catch(
      () => undefined,
    );
    await kubectl(['delete', 'namespace', aaa, prod, '--wait=false', '--ignore-not-found']).catch(
      () => undefined,
    );
  });

  it("puts a cluster-wide rule's results in the cluster report, not the tenant's", async () => {
    const platform = `${SYSTEM_NAMESPACE}/${platformRule}`;
    const cluster = await waitFor(
      "the cluster report with the platform rule's results",
      async () => {
        const r = await report(undefined);
        return r !== undefined && on(r, 'bad', platform) !== undefined ? r : undefined;
      },
      60_000,
      500,
    );
    expect(on(cluster, 'bad', platform)).toMatchObject({
      result: 'fail',
      message: `ConfigMap bad is refused by ${platformRule}`,
      resources: [{ kind: 'ConfigMap', name: 'bad', namespace: prod }],
    });
    expect(on(cluster, 'good', platform)?.result).toBe('pass');
    // The namespace report has prod's own rule only: nothing a `view` binding in prod must not see.
    const own = await waitFor(
      "prod's report",
      async () => {
        const r = await report(prod);
        return r !== undefined && on(r, 'bad', `${prod}/no-forbidden`) !== undefined
          ? r
          : undefined;
      },
      30_000,
      500,
    );
    expect(own.results.filter((x) => !x.policy.startsWith(`${prod}/`))).toEqual([]);
    expect(own.summary.fail).toBe(1);
  });

  it("a tenant with many rules and objects does not erase another namespace's report", async () => {
    const before = await report(prod);
    expect(before && on(before, 'bad', `${prod}/no-forbidden`)?.result).toBe('fail');
    // aaa: TENANT_RULES rules × 4 forbidden ConfigMaps = 24 findings (the whole audit may keep
    // 12), and 2 × TENANT_RULES passes (the audit may keep 6 passes).
    for (let i = 1; i <= 4; i++)
      await kubectlApply(configMap(`bad-${String(i)}`, aaa, { forbidden: 'true' }));
    await kubectlApply(configMap('good', aaa));
    for (let i = 1; i <= TENANT_RULES; i++)
      await kubectlApply(rejectRule(`rule-${String(i)}`, aaa));

    await waitFor(
      "aaa's report with every rule",
      async () => {
        const r = await report(aaa);
        return r !== undefined && new Set(r.results.map((x) => x.policy)).size === TENANT_RULES
          ? r
          : undefined;
      },
      60_000,
      500,
    );
    // Two more audits with all of aaa in place: prod's report is still whole, and not partial.
    await twoMoreAudits(aaa, 'rule-1');
    const after = await report(prod);
    expect(after, "prod's report").toBeDefined();
    expect(after && on(after, 'bad', `${prod}/no-forbidden`)?.result).toBe('fail');
    expect(after && on(after, 'good', `${prod}/no-forbidden`)?.result).toBe('pass');
    expect(after?.metadata.annotations?.[PARTIAL]).toBeUndefined();

    // aaa's report says that it is partial, and holds its share.
    const crowded = await report(aaa);
    if (crowded === undefined) throw new Error("aaa's report is gone");
    expect(crowded.metadata.annotations?.[PARTIAL]).toMatch(/left out/);
    expect(crowded.results.length).toBeLessThanOrEqual(BOUNDS.perNamespace);
    const perRule = new Map<string, number>();
    for (const r of crowded.results) perRule.set(r.policy, (perRule.get(r.policy) ?? 0) + 1);
    expect(Math.max(...perRule.values())).toBeLessThanOrEqual(BOUNDS.perRule);
    // Findings are kept before passes.
    expect(crowded.results.every((x) => x.result === 'fail')).toBe(true);
  });
});
