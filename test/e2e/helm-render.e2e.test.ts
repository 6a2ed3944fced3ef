import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BundleObject } from '../../scripts/bundle-sources.js';
import { chartSources, DASHBOARD_SOURCE } from '../../scripts/chart/chart-sources.js';
import {
  buildHelm,
  CHART_PATH,
  objectKey,
  renderChart,
  run,
  setArgs,
  sortedObjects,
  withoutChartMetadata,
} from './support/helm.js';
import {
  bundleWithDefaultOptions,
  container,
  find,
  kinds,
  readObjects,
  webhook,
} from './support/helm-objects.js';

// The Helm chart with a real Helm (scripts/build-helm.sh): lint, render compared with bundle.yaml,
// the effect of each value, refused values. No cluster needed; test/e2e/helm.e2e.test.ts installs
// and upgrades the chart on the e2e API server.

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the Helm chart, rendered', () => {
  let helm: string;

  beforeAll(async () => {
    helm = await buildHelm();
  }, 30 * 60_000);

  it('passes helm lint --strict, with default and with every optional value set', async () => {
    const every = setArgs({
      'image.digest': DIGEST,
      'namespace.create': false,
      ignoredNamespaces: ['a', 'b'],
      'audit.intervalSeconds': 60,
      'rbac.audit.enabled': false,
      'applyToExisting.enabled': true,
      'applyToExisting.namespaceRegex': '^team-',
      'webhook.urlBase': 'https://192.0.2.1:9443',
      'monitoring.podMonitor.enabled': true,
      'monitoring.podMonitor.labels': { release: 'kps' },
      'monitoring.prometheusRule.enabled': true,
      'monitoring.prometheusRule.labels': { release: 'kps' },
      'monitoring.dashboard.enabled': true,
      'monitoring.dashboard.labels': { team: 'platform' },
    });
    for (const extra of [[], every]) {
      const result = await run(helm, ['lint', '--strict', CHART_PATH, ...extra]);
      expect(result.stdout + result.stderr, extra.join(' ')).toMatch(
        /1 chart\(s\) linted, 0 chart\(s\) failed/,
      );
      expect(result.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
      expect(result.code).toBe(0);
    }
  });

  it('renders the objects of bundle.yaml with default values', async () => {
    const rendered = await renderChart(helm);
    expect(sortedObjects(rendered.map(withoutChartMetadata))).toEqual(
      sortedObjects(bundleWithDefaultOptions()),
    );
    // What the chart adds: Helm's labels everywhere, and the CRD kept on uninstall.
    for (const object of rendered) {
      expect(object.metadata, objectKey(object)).toMatchObject({
        labels: {
          'app.kubernetes.io/managed-by': 'Helm',
          'app.kubernetes.io/instance': 'kubemod-ts',
        },
      });
    }
    // What `helm uninstall` keeps: both CRDs and the namespace (ModRules live in all three).
    const kept = rendered.filter(
      (o) =>
        (o.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[
          'helm.sh/resource-policy'
        ] === 'keep',
    );
    expect(kept.map(objectKey).sort()).toEqual(
      rendered
        .filter((o) => o.kind === 'CustomResourceDefinition' || o.kind === 'Namespace')
        .map(objectKey)
        .sort(),
    );
    expect(kept).toHaveLength(3);
  });

  it('refuses crds.keep=false: an uninstall never deletes ModRules', async () => {
    const result = await run(helm, [
      'template',
      'kubemod-ts',
      CHART_PATH,
      ...setArgs({ 'crds.keep': false }),
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/crds\.keep|crds.*keep/);
  });

  it('renders the optional objects of config/ exactly when switched on', async () => {
    const optionalOff = chartSources().filter((s) => s.optional?.enabledByDefault === false);
    const switches: Record<string, unknown> = {};
    for (const source of optionalOff)
      if (source.optional) switches[source.optional.valuePath] = true;
    const rendered = await renderChart(helm, switches);
    // The operator gets the namespace filter (the other args test below); the rest is config/'s.
    const operator = container(rendered);
    expect(operator.args).toEqual([
      'operator',
      '--apply-existing-namespace-label=apply-to-existing.kubemod.io/enabled=true',
    ]);
    operator.args = ['operator'];
    const optional = optionalOff.flatMap((source) => readObjects(source.path));
    expect(optional.length).toBeGreaterThan(0);
    const expected = [...bundleWithDefaultOptions(), ...optional];
    const unique = new Map(expected.map((object) => [objectKey(object), object]));
    expect(sortedObjects(rendered.map(withoutChartMetadata))).toEqual(
      sortedObjects([...unique.values()]),
    );
  });

  it.each([
    {
      name: 'image.tag',
      values: { 'image.tag': '9.9.9' },
      check: (o: BundleObject[]) => {
        expect(container(o).image).toBe('ghcr.io/kubemod-ts/kubemod-ts:9.9.9');
      },
    },
    {
      name: 'image.digest, which wins over the tag',
      values: {
        'image.repository': 'registry.example/kubemod',
        'image.tag': '9.9.9',
        'image.digest': DIGEST,
      },
      check: (o: BundleObject[]) => {
        expect(container(o).image).toBe(`registry.example/kubemod@${DIGEST}`);
      },
    },
    {
      name: 'replicas',
      values: { replicas: 3 },
      check: (o: BundleObject[]) => {
        expect(find(o, 'Deployment').spec).toMatchObject({ replicas: 3 });
      },
    },
    {
      name: 'resources',
      values: { resources: { requests: { cpu: '50m' }, limits: { memory: '1Gi' } } },
      check: (o: BundleObject[]) => {
        expect(container(o).resources).toEqual({
          requests: { cpu: '50m', memory: '128Mi' },
          limits: { cpu: '1', memory: '1Gi' },
        });
      },
    },
    {
      name: 'logLevel',
      values: { logLevel: 'debug' },
      check: (o: BundleObject[]) => {
        expect(container(o).env).toContainEqual({ name: 'KUBEMOD_LOG_LEVEL', value: 'debug' });
      },
    },
    {
      name: 'targetResources',
      values: {
        targetResources: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['configmaps'],
          },
        ],
      },
      check: (o: BundleObject[]) => {
        expect(webhook(o, 'dragnet.kubemod.io').rules).toEqual([
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['configmaps'],
          },
        ]);
      },
    },
    {
      name: 'ignoredNamespaces',
      values: { ignoredNamespaces: ['team-a', 'team-b'] },
      check: (o: BundleObject[]) => {
        for (const name of ['dragnet.kubemod.io', 'podbinding.kubemod.io']) {
          expect(webhook(o, name).namespaceSelector?.matchExpressions).toContainEqual({
            key: 'kubernetes.io/metadata.name',
            operator: 'NotIn',
            values: ['team-a', 'team-b'],
          });
        }
        expect(webhook(o, 'mmodrule.kubemod.io').namespaceSelector).toBeUndefined();
      },
    },
    {
      name: 'namespace.create=false, which skips the release namespace by name',
      values: { 'namespace.create': false, ignoredNamespaces: ['team-a'] },
      check: (o: BundleObject[]) => {
        expect(kinds(o)).not.toContain('Namespace/kubemod-system');
        expect(webhook(o, 'dragnet.kubemod.io').namespaceSelector?.matchExpressions).toContainEqual(
          {
            key: 'kubernetes.io/metadata.name',
            operator: 'NotIn',
            values: ['team-a', 'kubemod-system'],
          },
        );
      },
    },
    {
      name: 'audit.intervalSeconds, which also grants report writes',
      values: { 'audit.intervalSeconds': 300 },
      check: (o: BundleObject[]) => {
        expect(container(o).args).toEqual(['operator', '--audit-interval-seconds=300']);
        expect(kinds(o)).toContain('ClusterRole/kubemod-operator-policy-reports');
        expect(kinds(o)).toContain('ClusterRoleBinding/kubemod-operator-policy-reports');
      },
    },
    {
      name: 'audit.policyReports.enabled=false: the audit runs, no report writes',
      values: { 'audit.intervalSeconds': 300, 'audit.policyReports.enabled': false },
      check: (o: BundleObject[]) => {
        expect(container(o).args).toEqual(['operator', '--audit-interval-seconds=300']);
        expect(kinds(o)).not.toContain('ClusterRole/kubemod-operator-policy-reports');
      },
    },
    {
      name: 'rbac.audit.enabled=false',
      values: { 'rbac.audit.enabled': false },
      check: (o: BundleObject[]) => {
        expect(kinds(o)).not.toContain('ClusterRole/kubemod-operator-audit');
        expect(kinds(o)).not.toContain('ClusterRoleBinding/kubemod-operator-audit');
        expect(kinds(o)).toContain('ClusterRole/kubemod-operator');
      },
    },
    {
      name: 'applyToExisting',
      values: { 'applyToExisting.enabled': true, 'applyToExisting.namespaceRegex': '^team-' },
      check: (o: BundleObject[]) => {
        expect(kinds(o)).toContain('ClusterRoleBinding/kubemod-operator-apply-existing');
        expect(container(o).args).toEqual([
          'operator',
          '--apply-existing-namespace-label=apply-to-existing.kubemod.io/enabled=true',
          '--apply-existing-namespace-regex=^team-',
        ]);
      },
    },
    {
      name: 'webhook.urlBase, for an operator outside the cluster',
      values: { 'webhook.urlBase': 'https://192.0.2.1:9443/' },
      check: (o: BundleObject[]): void => {
        expect(container(o).args).toEqual([
          'operator',
          '--webhook-url-base=https://192.0.2.1:9443',
        ]);
        expect(webhook(o, 'dragnet.kubemod.io')).toMatchObject({
          clientConfig: { url: 'https://192.0.2.1:9443/dragnet-webhook' },
        });
        const configs = o.filter((x) => String(x.kind).endsWith('WebhookConfiguration'));
        const clientConfigs = configs.flatMap((c) =>
          (c as { webhooks: { clientConfig: object }[] }).webhooks.map((w) => w.clientConfig),
        );
        expect(clientConfigs).toHaveLength(4);
        for (const clientConfig of clientConfigs)
          expect(clientConfig).not.toHaveProperty('service');
      },
    },
    {
      name: 'webhook.failurePolicy=Fail, for the dragnet webhook only',
      values: { 'webhook.failurePolicy': 'Fail' },
      check: (o: BundleObject[]): void => {
        expect(webhook(o, 'dragnet.kubemod.io')).toMatchObject({ failurePolicy: 'Fail' });
        expect(webhook(o, 'podbinding.kubemod.io')).toMatchObject({ failurePolicy: 'Ignore' });
      },
    },
    {
      name: 'monitoring, with extra labels; Prometheus and Grafana templates kept as they are',
      values: {
        'monitoring.prometheusRule.enabled': true,
        'monitoring.prometheusRule.labels': { release: 'kps' },
        'monitoring.dashboard.enabled': true,
      },
      check: (o: BundleObject[]) => {
        const rule = find(o, 'PrometheusRule', 'kubemod-operator');
        expect(rule.metadata).toMatchObject({ labels: { release: 'kps' } });
        expect(JSON.stringify(rule.spec)).toContain('{{ $labels.rule }}');
        const dashboard = find(o, 'ConfigMap', 'kubemod-ts-grafana-dashboard') as {
          metadata?: { labels?: Record<string, string> };
          data?: Record<string, string>;
        };
        expect(dashboard.metadata?.labels).toMatchObject({ grafana_dashboard: '1' });
        expect(dashboard.data?.['kubemod-ts.json']).toBe(
          readFileSync(join(repoRoot, DASHBOARD_SOURCE), 'utf8'),
        );
        expect(kinds(o)).not.toContain('PodMonitor/kubemod-system/kubemod-operator');
      },
    },
  ])('applies $name', async ({ values, check }) => {
    check(await renderChart(helm, values));
  });

  it('follows the release namespace', async () => {
    const rendered = await renderChart(helm, {}, 'ops');
    expect(kinds(rendered)).toContain('Namespace/ops');
    expect(kinds(rendered)).toContain('Deployment/ops/kubemod-operator');
    // Only the CRD's descriptions name kubemod-system: cluster-wide ModRules live there wherever
    // the operator runs (its --cluster-namespace default, as in KubeMod).
    const others = rendered.filter((o) => o.kind !== 'CustomResourceDefinition');
    expect(JSON.stringify(others)).not.toContain('kubemod-system');
  });

  it.each([
    { values: { replicas: -1 }, error: /at '\/replicas': minimum: got -1, want 0/ },
    {
      values: { 'webhook.urlBase': 'http://insecure:80' },
      error: /at '\/webhook\/urlBase': 'http:\/\/insecure:80' does not match pattern/,
    },
    { values: { logLevel: 'loud' }, error: /at '\/logLevel': value must be one of 'fatal'/ },
    {
      values: { 'webhook.failurePolicy': 'Deny' },
      error: /at '\/webhook\/failurePolicy': value must be one of 'Ignore', 'Fail'/,
    },
    {
      values: { 'image.digest': 'latest' },
      error: /at '\/image\/digest': 'latest' does not match pattern/,
    },
    {
      values: { 'image.tga': '1.0' },
      error: /at '\/image': additional properties 'tga' not allowed/,
    },
    {
      values: { 'audit.intervalSeconds': -5 },
      error: /at '\/audit\/intervalSeconds': minimum: got -5, want 0/,
    },
    {
      values: {
        targetResources: [
          { apiGroups: ['*'], apiVersions: ['*'], operations: ['PATCH'], resources: ['pods'] },
        ],
      },
      error: /at '\/targetResources\/0\/operations\/0': value must be one of/,
    },
  ])('refuses $values with a message naming the value', async ({ values, error }) => {
    await expect(renderChart(helm, values)).rejects.toThrow(error);
  });
});
