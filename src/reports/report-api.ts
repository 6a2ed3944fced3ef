import { isStatus, type KubeClient } from '../kube/kube-client.js';
import { isJsonObject } from '../engine/json.js';

/** One of the two policy report APIs: where its reports live and what they are called. */
export interface ReportApi {
  readonly group: string;
  readonly version: string;
  /** The namespaced kind (one report per namespace) and its plural. */
  readonly kind: string;
  readonly plural: string;
  /** The cluster-scoped kind (cluster-scoped objects) and its plural. */
  readonly clusterKind: string;
  readonly clusterPlural: string;
  /** Whether the report carries `source` at its top level too (OpenReports does). */
  readonly topLevelSource: boolean;
}

/** OpenReports, the successor API (Kyverno 1.15+, Policy Reporter): preferred when served. */
export const OPEN_REPORTS: ReportApi = {
  group: 'openreports.io',
  version: 'v1alpha1',
  kind: 'Report',
  plural: 'reports',
  clusterKind: 'ClusterReport',
  clusterPlural: 'clusterreports',
  topLevelSource: true,
};

/** The Kubernetes policy working group's API, written by Kyverno before 1.15 and many adapters. */
export const WG_POLICY: ReportApi = {
  group: 'wgpolicyk8s.io',
  version: 'v1alpha2',
  kind: 'PolicyReport',
  plural: 'policyreports',
  clusterKind: 'ClusterPolicyReport',
  clusterPlural: 'clusterpolicyreports',
  topLevelSource: false,
};

/** In order of preference. */
export const REPORT_APIS: readonly ReportApi[] = [OPEN_REPORTS, WG_POLICY];

export function apiVersionOfReports(api: ReportApi): string {
  return `${api.group}/${api.version}`;
}

/** The collection path of one of the API's kinds, in a namespace or cluster-wide. */
export function reportsPath(api: ReportApi, cluster: boolean, namespace?: string): string {
  const base = `/apis/${api.group}/${api.version}`;
  if (cluster) return `${base}/${api.clusterPlural}`;
  return namespace === undefined
    ? `${base}/${api.plural}`
    : `${base}/namespaces/${encodeURIComponent(namespace)}/${api.plural}`;
}

/** Whether the API server serves the API's version with both of its kinds. */
async function serves(client: KubeClient, api: ReportApi): Promise<boolean> {
  let doc;
  try {
    doc = await client.request({ method: 'GET', path: `/apis/${api.group}/${api.version}` });
  } catch (err) {
    if (isStatus(err, 404)) return false;
    throw err;
  }
  const resources = Array.isArray(doc.resources) ? doc.resources : [];
  const names = new Set(
    resources.flatMap((r) => (isJsonObject(r) && typeof r.name === 'string' ? [r.name] : [])),
  );
  return names.has(api.plural) && names.has(api.clusterPlural);
}

/** The report APIs the cluster serves, most preferred first (empty when it serves neither). */
export async function servedReportApis(client: KubeClient): Promise<ReportApi[]> {
  const served: ReportApi[] = [];
  for (const api of REPORT_APIS) if (await serves(client, api)) served.push(api);
  return served;
}
