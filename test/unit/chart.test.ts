import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_SOURCES } from '../../scripts/bundle-sources.js';
import {
  APPLY_EXISTING_RBAC_SOURCE,
  POLICY_REPORTS_RBAC_SOURCE,
  LOOKUPS_RBAC_SOURCE,
  CHART_DIR,
  chartSources,
  DASHBOARD_SOURCE,
  OPTIONAL_SOURCES,
  POD_MONITOR_SOURCE,
  PROMETHEUS_RULE_SOURCE,
  templateName,
} from '../../scripts/chart/chart-sources.js';
import { valueDefinitions } from '../../scripts/chart/chart-values.js';
import { configFacts } from '../../scripts/chart/config-objects.js';
import {
  chartDefaultValues,
  README_TABLE_END,
  README_TABLE_START,
  renderChart,
  withValuesTable,
} from '../../scripts/chart/render-chart.js';
import { escapeTemplateText, renderTemplate } from '../../scripts/chart/parameterise.js';
import { sourceObjects } from '../../scripts/chart/source-objects.js';
import { createTemplateSlots } from '../../scripts/chart/template-slots.js';

// Fast checks of the chart generator (no Helm needed). Rendering the chart with Helm and comparing
// it with bundle.yaml, `helm lint`, and install/upgrade are in test/e2e/helm.e2e.test.ts.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const chartDir = join(repoRoot, CHART_DIR);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [relative(chartDir, path)];
  });
}

describe('charts/kubemod-ts', () => {
  let files: Map<string, string>;
  beforeAll(async () => {
    files = await renderChart(repoRoot);
  });

  it('is what the generator makes from config/ (run `npm run chart` after changing config/)', () => {
    expect(filesUnder(chartDir).sort()).toEqual([...files.keys()].sort());
    for (const [path, content] of files) {
      expect(readFileSync(join(chartDir, path), 'utf8'), path).toBe(content);
    }
  });

  it('has a template for every config/ source, optional pieces behind their value', () => {
    for (const source of chartSources()) {
      const template = files.get(`templates/${templateName(source.path)}`) ?? '';
      expect(template, source.path).toContain(`from ${source.path};`);
      if (source.optional !== undefined) {
        const { valuePath, alsoRequires } = source.optional;
        const condition =
          alsoRequires === undefined
            ? `.Values.${valuePath}`
            : `and .Values.${valuePath} (${alsoRequires})`;
        expect(template.split('\n')).toContain(`{{- if ${condition} }}`);
      }
    }
  });

  it('has values.yaml defaults equal to the generator values, read from config/', () => {
    const values = load(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
    expect(values).toEqual(chartDefaultValues(repoRoot));
    expect(values).toMatchObject({
      replicas: 2,
      logLevel: 'info',
      image: { repository: 'ghcr.io/kubemod-ts/kubemod-ts', tag: '', digest: '' },
      rbac: { audit: { enabled: true } },
      applyToExisting: { enabled: false },
    });
  });

  it('documents every value in the README table', () => {
    const readme = readFileSync(join(chartDir, 'README.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf(README_TABLE_START),
      readme.indexOf(README_TABLE_END),
    );
    const rows = table.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1]);
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as object;
    const leaves = (node: unknown, prefix: string): string[] => {
      const props = (node as { properties?: Record<string, unknown> }).properties;
      const nested =
        (node as { type?: string }).type === 'object' &&
        props !== undefined &&
        !('description' in (node as object));
      if (!nested) return [prefix];
      return Object.entries(props).flatMap(([key, child]) =>
        leaves(child, prefix === '' ? key : `${prefix}.${key}`),
      );
    };
    expect(documented).toEqual(leaves(schema, ''));
  });

  it('refuses a README without the values-table markers, naming the file', () => {
    expect(() => withValuesTable('# no table', [])).toThrow(
      /charts\/kubemod-ts\/README\.md: no <!-- values-table:start/,
    );
  });
});

describe('chartSources', () => {
  const audit = OPTIONAL_SOURCES.find((s) => s.valuePath === 'rbac.audit.enabled');
  const applyExisting = OPTIONAL_SOURCES.find((s) => s.path === APPLY_EXISTING_RBAC_SOURCE);

  it.each([
    {
      name: 'an optional source the bundle ships stays in bundle order, marked',
      bundle: ['a.yaml', APPLY_EXISTING_RBAC_SOURCE, 'b.yaml'],
      expected: [['a.yaml'], [APPLY_EXISTING_RBAC_SOURCE, 'applyToExisting.enabled'], ['b.yaml']],
    },
    {
      name: 'an optional source moved out of the bundle comes last',
      bundle: ['a.yaml', 'b.yaml'],
      expected: [['a.yaml'], ['b.yaml'], [APPLY_EXISTING_RBAC_SOURCE, 'applyToExisting.enabled']],
    },
  ])('$name', ({ bundle, expected }) => {
    const sources = chartSources(bundle, applyExisting === undefined ? [] : [applyExisting]);
    expect(sources.map((s) => [s.path, ...(s.optional ? [s.optional.valuePath] : [])])).toEqual(
      expected,
    );
  });

  it('covers every bundle source and every optional source of this repository', () => {
    const paths = chartSources().map((s) => s.path);
    expect(paths).toEqual(expect.arrayContaining([...BUNDLE_SOURCES]));
    expect(audit?.enabledByDefault).toBe(true);
    expect(applyExisting?.enabledByDefault).toBe(false);
    // Report writes: on by default, but only while the periodic audit (off by default) runs.
    expect(OPTIONAL_SOURCES.find((s) => s.path === POLICY_REPORTS_RBAC_SOURCE)).toMatchObject({
      valuePath: 'audit.policyReports.enabled',
      enabledByDefault: true,
      alsoRequires: 'gt (int .Values.audit.intervalSeconds) 0',
    });
    expect(BUNDLE_SOURCES).not.toContain(POLICY_REPORTS_RBAC_SOURCE);
    // Lookups' watch permission: off unless lookups.rbac.enabled.
    expect(OPTIONAL_SOURCES.find((s) => s.path === LOOKUPS_RBAC_SOURCE)).toMatchObject({
      valuePath: 'lookups.rbac.enabled',
      enabledByDefault: false,
    });
    expect(BUNDLE_SOURCES).not.toContain(LOOKUPS_RBAC_SOURCE);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe('template slots', () => {
  it('puts inline and block expressions where the tokens were', () => {
    const slots = createTemplateSlots();
    const text = slots.emit({
      metadata: { namespace: slots.inline('{{ .Release.Namespace }}') },
      items: [
        {
          rules: slots.block(
            (indent) => `\n${' '.repeat(indent)}{{- toYaml .x | nindent ${String(indent)} }}`,
          ),
        },
      ],
    });
    expect(text).toBe(
      'metadata:\n  namespace: {{ .Release.Namespace }}\nitems:\n  - rules:\n      {{- toYaml .x | nindent 6 }}\n',
    );
  });

  it.each([
    { name: 'a token inside a list of scalars', make: (t: string) => ({ list: [t] }) },
    { name: 'a token inside a longer string', make: (t: string) => ({ key: `prefix-${t}` }) },
  ])('refuses $name', ({ make }) => {
    const slots = createTemplateSlots();
    expect(() => slots.emit(make(slots.inline('x')))).toThrow(/slot token in an unsupported place/);
  });

  it('refuses a slot that never reaches the output', () => {
    const slots = createTemplateSlots();
    slots.inline('x');
    expect(() => slots.emit({ a: 1 })).toThrow(/1 slot\(s\) did not reach the output/);
  });
});

describe('configFacts', () => {
  const deployment = (
    container: Record<string, unknown>,
  ): {
    source: string;
    object: { apiVersion: string; kind: string; metadata: { name: string }; spec: unknown };
  } => ({
    source: 'config/manager/deployment.yaml',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'kubemod-operator' },
      spec: { replicas: 2, template: { spec: { containers: [container] } } },
    },
  });
  const mutating = {
    source: 'config/webhook/mutating-webhook-configuration.yaml',
    object: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'm' },
      webhooks: [{ name: 'dragnet.kubemod.io', rules: [] }],
    },
  };
  const good = {
    name: 'operator',
    image: 'example.com/team/op:1.2.3',
    resources: {},
    env: [{ name: 'KUBEMOD_LOG_LEVEL', value: 'debug' }],
  };

  it('reads the image, replicas, log level and dragnet rules', () => {
    expect(configFacts([deployment(good), mutating])).toMatchObject({
      imageRepository: 'example.com/team/op',
      imageTag: '1.2.3',
      replicas: 2,
      logLevel: 'debug',
      targetRules: [],
    });
  });

  it.each([
    {
      name: 'no operator container',
      container: { ...good, name: 'other' },
      error: /deployment\.yaml: Deployment kubemod-operator: no container named operator/,
    },
    {
      name: 'an image without a tag',
      container: { ...good, image: 'example.com/op' },
      error: /image must be <repository>:<tag>, got example\.com\/op/,
    },
    {
      name: 'no log level',
      container: { ...good, env: [] },
      error: /container env has no KUBEMOD_LOG_LEVEL/,
    },
  ])('names the file, object and field for $name', ({ container, error }) => {
    expect(() => configFacts([deployment(container), mutating])).toThrow(error);
  });

  it('derives the value defaults from the facts', () => {
    const definitions = valueDefinitions(configFacts([deployment(good), mutating]));
    expect(definitions.find((d) => d.path === 'image.repository')?.default).toBe(
      'example.com/team/op',
    );
    expect(definitions.find((d) => d.path === 'logLevel')?.default).toBe('debug');
  });
});

describe('template text', () => {
  it.each([
    { text: 'no braces', escaped: 'no braces' },
    {
      text: '{{ $labels.rule }} failed',
      escaped: '{{ "{{" }} $labels.rule {{ "}}" }} failed',
    },
    { text: '"{{rule}}"', escaped: '"{{ "{{" }}rule{{ "}}" }}"' },
    { text: '{{{x}}}', escaped: '{{ "{{" }}{x{{ "}}" }}}' },
  ])('escapes $text so that Helm prints it as it is', ({ text, escaped }) => {
    expect(escapeTemplateText(text)).toBe(escaped);
  });

  it('is escaped in every string of a config/ object, other values kept', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'kubemod-system' },
      data: { legend: '{{rule}}' },
      since: new Date(0),
    };
    const text = renderTemplate(
      { path: 'config/x.yaml' },
      [{ source: 'config/x.yaml', object }],
      'kubemod-system',
    );
    expect(text).toContain('{{ "{{" }}rule{{ "}}" }}');
    expect(text).toContain('since: 1970-01-01T00:00:00.000Z');
    expect(text).toContain('namespace: {{ .Release.Namespace }}');
    expect(object.data.legend).toBe('{{rule}}');
  });
});

describe('the monitoring pieces', () => {
  const monitoring = OPTIONAL_SOURCES.filter((s) => s.path.startsWith('config/monitoring/'));
  let files: Map<string, string>;
  beforeAll(async () => {
    files = await renderChart(repoRoot);
  });

  it('are optional, off by default, each with a labels value', () => {
    expect(monitoring.map((s) => s.path).sort()).toEqual(
      [DASHBOARD_SOURCE, POD_MONITOR_SOURCE, PROMETHEUS_RULE_SOURCE].sort(),
    );
    const values = chartDefaultValues(repoRoot);
    expect(values).toMatchObject({
      monitoring: {
        podMonitor: { enabled: false, labels: {} },
        prometheusRule: { enabled: false, labels: {} },
        dashboard: { enabled: false, labels: {} },
      },
    });
    for (const source of monitoring)
      expect(source.labelsValuePath).toMatch(/^monitoring\.\w+\.labels$/);
  });

  it('install the dashboard as the ConfigMap the kustomization generates', () => {
    const [configMap, ...rest] = sourceObjects(repoRoot, DASHBOARD_SOURCE);
    expect(rest).toEqual([]);
    expect(configMap).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'kubemod-ts-grafana-dashboard',
        namespace: 'kubemod-system',
        labels: { grafana_dashboard: '1' },
      },
      data: { 'kubemod-ts.json': readFileSync(join(repoRoot, DASHBOARD_SOURCE), 'utf8') },
    });
  });

  it('refuses a dashboard no configMapGenerator of the kustomization takes, naming the file', () => {
    expect(() => sourceObjects(repoRoot, 'config/monitoring/other.json')).toThrow(
      'config/monitoring/kustomization.yaml: no configMapGenerator takes other.json',
    );
  });

  it('render the dashboard with every template action escaped and the extra labels', () => {
    const template = files.get('templates/monitoring-grafana-dashboard.yaml') ?? '';
    expect(template).toContain('"legendFormat": "{{ "{{" }}rule{{ "}}" }}"');
    expect(template).not.toMatch(/\{\{rule\}\}/);
    expect(template).toContain('{{- with .Values.monitoring.dashboard.labels }}');
  });
});
