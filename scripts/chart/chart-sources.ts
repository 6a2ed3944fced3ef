// Which config/ files the Helm chart is made of: the bundle's sources (scripts/bundle-sources.ts),
// plus optional pieces that a chart value switches on or off. The chart keeps the bundle's apply
// order; Helm sorts by kind on install anyway.
import { BUNDLE_SOURCES } from '../bundle-sources.js';

/** The chart's directory, relative to the repository root. */
export const CHART_DIR = 'charts/kubemod-ts';

/** The ClusterRole and binding that let apply-to-existing update existing objects. */
export const APPLY_EXISTING_RBAC_SOURCE = 'config/optional/apply-to-existing-rbac.yaml';

/** The ClusterRole and binding that let the operator watch the kinds lookups read. */
export const LOOKUPS_RBAC_SOURCE = 'config/optional/lookups-rbac.yaml';

/** The ClusterRole and binding that let the periodic audit write policy reports. */
export const POLICY_REPORTS_RBAC_SOURCE = 'config/optional/policy-reports-rbac.yaml';

/** The read-only ClusterRole and binding of the periodic audit. */
export const AUDIT_RBAC_SOURCE = 'config/rbac/audit-cluster-role.yaml';

/** The PodMonitor that has a Prometheus Operator scrape the operator pods. */
export const POD_MONITOR_SOURCE = 'config/monitoring/pod-monitor.yaml';

/** The alerts (PrometheusRule). */
export const PROMETHEUS_RULE_SOURCE = 'config/monitoring/prometheus-rule.yaml';

/** The Grafana dashboard, installed as the ConfigMap config/monitoring/kustomization.yaml makes. */
export const DASHBOARD_SOURCE = 'config/monitoring/grafana-dashboard.json';

/** A config/ file rendered only when the boolean value at `valuePath` is true. */
export interface OptionalSource {
  readonly path: string;
  /** Dotted path into values.yaml, e.g. `rbac.audit.enabled`. */
  readonly valuePath: string;
  /** The value's default: true when the bundle ships the piece. */
  readonly enabledByDefault: boolean;
  /** Dotted path of a map value whose entries are added to the objects' labels. */
  readonly labelsValuePath?: string;
  /**
   * A Go template condition that must hold as well as the value (`.Values.…` expression), for a
   * piece that only makes sense when another setting is on.
   */
  readonly alsoRequires?: string;
}

export const OPTIONAL_SOURCES: readonly OptionalSource[] = [
  { path: AUDIT_RBAC_SOURCE, valuePath: 'rbac.audit.enabled', enabledByDefault: true },
  {
    path: APPLY_EXISTING_RBAC_SOURCE,
    valuePath: 'applyToExisting.enabled',
    enabledByDefault: false,
  },
  { path: LOOKUPS_RBAC_SOURCE, valuePath: 'lookups.rbac.enabled', enabledByDefault: false },
  {
    // Reports are written only by the periodic audit: no write on them while it is off.
    path: POLICY_REPORTS_RBAC_SOURCE,
    valuePath: 'audit.policyReports.enabled',
    enabledByDefault: true,
    alsoRequires: 'gt (int .Values.audit.intervalSeconds) 0',
  },
  {
    path: POD_MONITOR_SOURCE,
    valuePath: 'monitoring.podMonitor.enabled',
    enabledByDefault: false,
    labelsValuePath: 'monitoring.podMonitor.labels',
  },
  {
    path: PROMETHEUS_RULE_SOURCE,
    valuePath: 'monitoring.prometheusRule.enabled',
    enabledByDefault: false,
    labelsValuePath: 'monitoring.prometheusRule.labels',
  },
  {
    path: DASHBOARD_SOURCE,
    valuePath: 'monitoring.dashboard.enabled',
    enabledByDefault: false,
    labelsValuePath: 'monitoring.dashboard.labels',
  },
];

/** One template of the chart: the config/ file it comes from and its switch, if any. */
export interface ChartSource {
  readonly path: string;
  readonly optional?: OptionalSource;
}

/**
 * The bundle's sources in order, each optional one marked, then the optional sources the bundle
 * does not ship (they come last, after the webhook configurations they do not depend on).
 */
export function chartSources(
  bundleSources: readonly string[] = BUNDLE_SOURCES,
  optionalSources: readonly OptionalSource[] = OPTIONAL_SOURCES,
): ChartSource[] {
  const optionalByPath = new Map(optionalSources.map((source) => [source.path, source]));
  const fromBundle = bundleSources.map((path): ChartSource => {
    const optional = optionalByPath.get(path);
    return optional === undefined ? { path } : { path, optional };
  });
  const extra = optionalSources
    .filter((source) => !bundleSources.includes(source.path))
    .map((optional): ChartSource => ({ path: optional.path, optional }));
  return [...fromBundle, ...extra];
}

/**
 * templates/<name>.yaml for a config/ path: its directory and file name, e.g. rbac-role.yaml (a
 * JSON source, which stands for a generated object, gets a .yaml template too).
 */
export function templateName(sourcePath: string): string {
  const parts = sourcePath.replace(/^config\//, '').split('/');
  return parts.join('-').replace(/\.json$/, '.yaml');
}
