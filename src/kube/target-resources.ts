import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';

/** One API resource the audit lists: a group, its preferred version, the resource and its kind. */
export interface TargetResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. `deployments`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** The parts of an admissionregistration.k8s.io/v1 rule that decide what the dragnet sees. */
export interface WebhookRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly operations: readonly string[];
  /** `*`, `Namespaced` or `Cluster`. */
  readonly scope: string;
}

/** One group/version's resources, as discovery (`/api/v1`, `/apis/<group>/<version>`) lists them. */
export interface DiscoveredGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly resources: readonly {
    readonly name: string;
    readonly kind: string;
    readonly namespaced: boolean;
    readonly verbs: readonly string[];
  }[];
}

/**
 * The dragnet webhook's resources as config/webhook/mutating-webhook-configuration.yaml ships
 * them (a unit test keeps the two identical). Used when the live configuration cannot be read.
 */
export const DEFAULT_DRAGNET_RULES: readonly WebhookRule[] = [
  {
    apiGroups: ['*'],
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    scope: '*',
    resources: [
      'namespaces',
      'nodes',
      'configmaps',
      'persistentvolumeclaims',
      'persistentvolumes',
      'secrets',
      'services',
      'daemonsets',
      'deployments',
      'replicasets',
      'statefulsets',
      'horizontalpodautoscalers',
      'ingresses',
      'pods',
      'cronjobs',
      'jobs',
      'serviceaccounts',
      'clusterrolebindings',
      'clusterroles',
      'rolebindings',
      'roles',
    ],
  },
];

/** The name of KubeMod's catch-all mutating webhook. */
export const DRAGNET_WEBHOOK_NAME = 'dragnet.kubemod.io';

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The dragnet webhook's rules from a MutatingWebhookConfiguration object, or undefined when it
 * has no webhook of that name.
 */
export function dragnetRulesOf(
  configuration: JsonObject,
  webhookName = DRAGNET_WEBHOOK_NAME,
): WebhookRule[] | undefined {
  const webhooks = Array.isArray(configuration.webhooks) ? configuration.webhooks : [];
  const hook = webhooks.find((w) => isJsonObject(w) && w.name === webhookName);
  if (!isJsonObject(hook)) return undefined;
  const rules = Array.isArray(hook.rules) ? hook.rules : [];
  return rules.filter(isJsonObject).map((rule) => ({
    apiGroups: strings(rule.apiGroups),
    resources: strings(rule.resources),
    operations: strings(rule.operations),
    scope: typeof rule.scope === 'string' ? rule.scope : '*',
  }));
}

function ruleCovers(
  rule: WebhookRule,
  group: string,
  resource: string,
  namespaced: boolean,
): boolean {
  if (!rule.operations.some((op) => op === '*' || op === 'UPDATE')) return false;
  if (!rule.apiGroups.some((g) => g === '*' || g === group)) return false;
  if (rule.scope === 'Namespaced' && !namespaced) return false;
  if (rule.scope === 'Cluster' && namespaced) return false;
  return rule.resources.some(
    (r) => r === '*' || r === '*/*' || r === resource || r === `${resource}/*`,
  );
}

/**
 * The resources the dragnet webhook sees UPDATEs of, among the discovered ones (one preferred
 * version per group): top-level resources only (no subresources) that can be listed. The match
 * policy is taken as Equivalent (the bundle's), so the rule's apiVersions are not compared.
 * Sorted by group, then resource, so the audit's order is stable.
 */
export function targetResources(
  rules: readonly WebhookRule[],
  discovered: readonly DiscoveredGroupVersion[],
): TargetResource[] {
  const out: TargetResource[] = [];
  for (const gv of discovered) {
    for (const res of gv.resources) {
      if (res.name.includes('/') || !res.verbs.includes('list')) continue;
      if (!rules.some((rule) => ruleCovers(rule, gv.group, res.name, res.namespaced))) continue;
      out.push({
        group: gv.group,
        version: gv.version,
        resource: res.name,
        kind: res.kind,
        namespaced: res.namespaced,
      });
    }
  }
  return out.sort((a, b) =>
    a.group === b.group ? compare(a.resource, b.resource) : compare(a.group, b.group),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf(target: TargetResource): string {
  return target.group === '' ? target.version : `${target.group}/${target.version}`;
}

/** kubectl's name for a resource: `deployments.apps`, or `pods` for the core group. */
export function resourceLabel(target: TargetResource): string {
  return target.group === '' ? target.resource : `${target.resource}.${target.group}`;
}

/** The REST path of a collection: in one namespace, or across all (or cluster-scoped). */
export function collectionPath(target: TargetResource, namespace: string | undefined): string {
  const base = target.group === '' ? '/api/v1' : `/apis/${target.group}/${target.version}`;
  const ns = target.namespaced && namespace !== undefined ? `/namespaces/${namespace}` : '';
  return `${base}${ns}/${target.resource}`;
}

/** Reads one APIResourceList (discovery) document. */
export function parseResourceList(
  group: string,
  version: string,
  doc: JsonObject,
): DiscoveredGroupVersion {
  const resources = Array.isArray(doc.resources) ? doc.resources : [];
  return {
    group,
    version,
    resources: resources.filter(isJsonObject).flatMap((r) =>
      typeof r.name === 'string' && typeof r.kind === 'string'
        ? [
            {
              name: r.name,
              kind: r.kind,
              namespaced: r.namespaced === true,
              verbs: strings(r.verbs),
            },
          ]
        : [],
    ),
  };
}

/** The preferred group/versions of an APIGroupList (`/apis`). */
export function preferredVersions(doc: JsonObject): { group: string; version: string }[] {
  const groups = Array.isArray(doc.groups) ? doc.groups : [];
  return groups.filter(isJsonObject).flatMap((g) => {
    const preferred = g.preferredVersion;
    if (typeof g.name !== 'string' || !isJsonObject(preferred)) return [];
    return typeof preferred.version === 'string'
      ? [{ group: g.name, version: preferred.version }]
      : [];
  });
}

/** Whether any of the given webhook rules could send this group's resources (saves discovery calls). */
export function groupMayMatch(rules: readonly WebhookRule[], group: string): boolean {
  return rules.some((rule) => rule.apiGroups.some((g) => g === '*' || g === group));
}
