/**
 * The dashboard and the alerts of config/monitoring cannot drift from the code: every metric their
 * PromQL names must be offered by the /metrics endpoint of a real operator, started in-process
 * (against an in-memory API server) with the periodic audit and apply-to-existing switched on, so
 * that every series the operator can register is registered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOperatorArgs } from '../../../src/cli/operator-config.js';
import { FakeKube } from '../../../src/kube/fake-kube.test-support.js';
import { sleepWithSignal } from '../../../src/kube/informer.js';
import { startOperator, type RunningOperator } from '../../../src/controller/operator.js';
import { createSilentLogger } from '../../../src/observability/logger.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import {
  dashboardQueries,
  exposedMetricNames,
  ruleQueries,
  unexposedMetrics,
  type Query,
} from './monitoring-queries.js';
import { metricNames } from './promql-metric-names.js';

const MONITORING = fileURLToPath(new URL('../../../config/monitoring/', import.meta.url));

function readDashboard(): unknown {
  return JSON.parse(readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8'));
}

function readRule(): unknown {
  return load(readFileSync(join(MONITORING, 'prometheus-rule.yaml'), 'utf8'));
}

async function startInProcess(): Promise<RunningOperator> {
  const parsed = parseOperatorArgs(
    [
      '--kubeconfig',
      '/nonexistent/kubeconfig',
      '--webhook-host',
      '127.0.0.1',
      '--webhook-port',
      '0',
      '--audit-interval-seconds',
      '3600',
      '--apply-existing-rate',
      '1',
    ],
    {},
  );
  if (parsed.kind !== 'config') throw new Error('unexpected help');
  return startOperator(
    { ...parsed.config, healthPort: 0 },
    {
      client: new FakeKube(),
      logger: createSilentLogger(),
      metrics: createMetrics(),
      now: Date.now,
      delay: (ms, signal) => sleepWithSignal(Math.min(ms, 2), signal),
    },
  );
}

describe('config/monitoring against the operator /metrics', () => {
  let operator: RunningOperator | undefined;
  let exposed: Set<string>;
  let queries: Query[];

  beforeAll(async () => {
    operator = await startInProcess();
    const response = await fetch(`${String(operator.healthUrl)}/metrics`);
    expect(response.status).toBe(200);
    exposed = exposedMetricNames(await response.text());
    queries = [...dashboardQueries(readDashboard()), ...ruleQueries(readRule())];
  }, 60_000);

  afterAll(async () => {
    await operator?.stop();
  });

  it('reads every panel, variable and alert expression', () => {
    expect(queries.filter((q) => q.where.startsWith('dashboard panel')).length).toBeGreaterThan(20);
    expect(queries.filter((q) => q.where.startsWith('dashboard variable'))).toHaveLength(1);
    expect(queries.filter((q) => q.where.startsWith('alert ')).map((q) => q.where)).toEqual([
      'alert KubemodWebhookErrors',
      'alert KubemodWebhookLatencyHigh',
      'alert KubemodRuleFailing',
      'alert KubemodCertificateExpiring',
      'alert KubemodCertificateExpiring',
      'alert KubemodNoLeader',
      'alert KubemodWebhookConfigurationMissing',
      'alert KubemodLogLinesDropped',
    ]);
    for (const query of queries) expect(metricNames(query.expr), query.where).not.toEqual([]);
  });

  it('names only metrics the operator exposes', () => {
    expect(unexposedMetrics(queries, exposed)).toEqual([]);
  });

  it('uses every kubemod metric the operator exposes somewhere', () => {
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    const families = [...exposed].filter(
      (name) => name.startsWith('kubemod_') && !/_(sum|count)$/.test(name),
    );
    const unused = families.filter(
      (name) => !used.has(name) && !used.has(`${name}_bucket`) && !name.endsWith('_bucket'),
    );
    expect(unused).toEqual([]);
  });

  it('reports a metric the operator does not expose, and where it is used', () => {
    const wrong: Query[] = [
      { where: 'panel "typo"', expr: 'sum(rate(kubemod_webhook_request_totl[5m]))' },
      { where: 'panel "gauge as histogram"', expr: 'kubemod_rules_loaded_bucket' },
      {
        where: 'alert "fine"',
        expr: 'histogram_quantile(0.9, rate(kubemod_event_loop_lag_seconds_bucket[5m]))',
      },
    ];
    expect(unexposedMetrics(wrong, exposed)).toEqual([
      'panel "typo": kubemod_webhook_request_totl',
      'panel "gauge as histogram": kubemod_rules_loaded_bucket',
    ]);
  });

  it('fails for the shipped dashboard once one of its queries names a bogus metric', () => {
    const dashboard = readDashboard() as { panels: { targets?: { expr: string }[] }[] };
    const target = dashboard.panels.flatMap((p) => p.targets ?? [])[0];
    if (target === undefined) throw new Error('dashboard has no query');
    target.expr = target.expr.replace(/kubemod_\w+/, 'kubemod_bogus_total');
    expect(unexposedMetrics(dashboardQueries(dashboard), exposed)).toEqual([
      'dashboard panel "Admission requests": kubemod_bogus_total',
    ]);
  });
});
