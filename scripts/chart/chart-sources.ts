// Which config/ files the Helm chart is made of: the bundle's sources (scripts/bundle-sources.ts),
// plus optional pieces that a chart value switches on or off. The chart keeps the bundle's apply
// order; Helm sorts by kind on install anyway.
import { BUNDLE_SOURCES } from '../bundle-sources.js';

/** The chart's directory, relative to the repository root. */
export const CHART_DIR = 'charts/kubemod-ts';

/** The ClusterRole and binding that let apply-to-existing update existing objects. */
export const APPLY_EXISTING_RBAC_SOURCE = 'config/optional/apply-to-existing-rbac.yaml';

/** The read-only ClusterRole and binding of the periodic audit. */
export const AUDIT_RBAC_SOURCE = 'config/rbac/audit-cluster-role.yaml';

/** A config/ file rendered only when the boolean value at `valuePath` is true. */
export interface OptionalSource {
  readonly path: string;
  /** Dotted path into values.yaml, e.g. `rbac.audit.enabled`. */
  readonly valuePath: string;
  /** The value's default: true when the bundle ships the piece. */
  readonly enabledByDefault: boolean;
}

export const OPTIONAL_SOURCES: readonly OptionalSource[] = [
  { path: AUDIT_RBAC_SOURCE, valuePath: 'rbac.audit.enabled', enabledByDefault: true },
  {
    path: APPLY_EXISTING_RBAC_SOURCE,
    valuePath: 'applyToExisting.enabled',
    enabledByDefault: false,
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

/** templates/<name>.yaml for a config/ path: its directory and file name, e.g. rbac-role.yaml. */
export function templateName(sourcePath: string): string {
  const parts = sourcePath.replace(/^config\//, '').split('/');
  return parts.join('-');
}
