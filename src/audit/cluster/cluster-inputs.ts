import { MODRULE_GROUP, MODRULE_KIND, MODRULE_PLURAL, MODRULE_VERSION } from '../../api/index.js';
import { loadModRule } from '../../rules/load-modrule.js';
import type { JsonObject } from '../../engine/json.js';
import type { CompiledRule } from '../../engine/rule.js';
import { RuleStore } from '../../engine/store.js';
import { describeError } from '../../errors/catalog.js';
import { KubeApiError } from '../../kube/kube-client.js';
import type { AuditApi } from '../run/audit-api.js';
import { identityOf, withoutManagedFields } from '../run/object-verdict.js';
import type { Unreadable } from '../run/scan.js';
import {
  DEFAULT_DRAGNET_RULES,
  dragnetRulesOf,
  groupMayMatch,
  resourceLabel,
  targetResources,
  type TargetResource,
  type WebhookRule,
} from '../../kube/target-resources.js';

export const MODRULES: TargetResource = {
  group: MODRULE_GROUP,
  version: MODRULE_VERSION,
  resource: MODRULE_PLURAL,
  kind: MODRULE_KIND,
  namespaced: true,
};
export const NAMESPACES: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
export const NODES: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
};
export const MUTATING_WEBHOOK_CONFIGURATIONS: TargetResource = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
};

function statusOf(err: unknown): number {
  return err instanceof KubeApiError ? err.statusCode : 0;
}

function unreadableOf(
  target: TargetResource,
  namespace: string | undefined,
  err: unknown,
): Unreadable {
  return {
    resource: resourceLabel(target),
    kind: target.kind,
    namespace,
    status: statusOf(err),
    reason: describeError(err),
  };
}

/** Every object of a collection, page by page. */
export async function listAll(
  api: AuditApi,
  target: TargetResource,
  namespace: string | undefined,
  pageSize: number,
): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  let token: string | undefined;
  do {
    const page = await api.listPage(target, namespace, pageSize, token);
    out.push(...page.items);
    token = page.continueToken;
  } while (token !== undefined);
  return out;
}

export interface ClusterRules {
  readonly store: RuleStore;
  /** ModRules that the operator would not load either: `ns/name: reason`. */
  readonly invalid: readonly string[];
  readonly unreadable: readonly Unreadable[];
  /** False when no list of ModRules succeeded at all. */
  readonly readAny: boolean;
}

/**
 * The ModRules of the cluster, compiled as the operator compiles them. When they cannot be
 * listed across all namespaces, the namespaces the audit is about (the cluster namespace and
 * `onlyNamespace`) are listed one by one.
 */
export async function readClusterRules(
  api: AuditApi,
  options: { clusterNamespace: string; onlyNamespace: string | undefined; pageSize: number },
): Promise<ClusterRules> {
  const store = new RuleStore({ clusterNamespace: options.clusterNamespace });
  const invalid: string[] = [];
  const unreadable: Unreadable[] = [];
  let readAny = false;
  const load = (objects: readonly JsonObject[]): void => {
    readAny = true;
    for (const obj of objects) {
      const result = loadModRule(obj, { store, clusterNamespace: options.clusterNamespace });
      if (!result.ready) invalid.push(`${result.namespace}/${result.name}: ${result.message}`);
    }
  };
  const scopes =
    options.onlyNamespace === undefined
      ? [undefined]
      : [options.clusterNamespace, options.onlyNamespace];
  for (const scope of [...new Set(scopes)]) {
    try {
      load(await listAll(api, MODRULES, scope, options.pageSize));
    } catch (err) {
      if (scope !== undefined || statusOf(err) !== 403) {
        unreadable.push(unreadableOf(MODRULES, scope, err));
        continue;
      }
      unreadable.push(unreadableOf(MODRULES, undefined, err));
      try {
        load(await listAll(api, MODRULES, options.clusterNamespace, options.pageSize));
      } catch (nsErr) {
        unreadable.push(unreadableOf(MODRULES, options.clusterNamespace, nsErr));
      }
    }
  }
  return { store, invalid, unreadable, readAny };
}

/**
 * Namespace manifests by name (managedFields left out, as the operator caches them). When the
 * namespaces cannot be listed, the given ones are read one by one; those that cannot be read are
 * reported (their objects are still audited, without syntheticRefs.namespace and without
 * knowing whether the namespace is ignored).
 */
export async function readNamespaces(
  api: AuditApi,
  wanted: readonly string[],
  pageSize: number,
): Promise<{ namespaces: Map<string, JsonObject> | undefined; unreadable: Unreadable[] }> {
  try {
    const all = await listAll(api, NAMESPACES, undefined, pageSize);
    return {
      namespaces: new Map(all.map((ns) => [identityOf(ns).name, withoutManagedFields(ns)])),
      unreadable: [],
    };
  } catch (err) {
    const unreadable = [unreadableOf(NAMESPACES, undefined, err)];
    const namespaces = new Map<string, JsonObject>();
    for (const name of [...new Set(wanted)].sort()) {
      try {
        namespaces.set(name, withoutManagedFields(await api.get(NAMESPACES, undefined, name)));
      } catch (nsErr) {
        unreadable.push(unreadableOf(NAMESPACES, name, nsErr));
      }
    }
    return { namespaces: namespaces.size === 0 ? undefined : namespaces, unreadable };
  }
}

/** Node manifests by name, for Pods' syntheticRefs.node; undefined (and reported) when unreadable. */
export async function readNodes(
  api: AuditApi,
  pageSize: number,
): Promise<{ nodes: Map<string, JsonObject>; unreadable: Unreadable[] }> {
  try {
    const all = await listAll(api, NODES, undefined, pageSize);
    return {
      nodes: new Map(all.map((n) => [identityOf(n).name, withoutManagedFields(n)])),
      unreadable: [],
    };
  } catch (err) {
    return { nodes: new Map(), unreadable: [unreadableOf(NODES, undefined, err)] };
  }
}

/** The dragnet webhook's rules from the live configuration, or the bundle's when it cannot be read. */
export async function readDragnetRules(
  api: AuditApi,
  configurationName: string,
): Promise<{ rules: readonly WebhookRule[]; note: string | undefined }> {
  try {
    const config = await api.get(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, configurationName);
    const rules = dragnetRulesOf(config);
    if (rules !== undefined) return { rules, note: undefined };
    return {
      rules: DEFAULT_DRAGNET_RULES,
      note: `MutatingWebhookConfiguration ${configurationName} has no dragnet.kubemod.io webhook; auditing the bundle's resource list`,
    };
  } catch (err) {
    return {
      rules: DEFAULT_DRAGNET_RULES,
      note: `cannot read MutatingWebhookConfiguration ${configurationName} (${describeError(err)}); auditing the bundle's resource list`,
    };
  }
}

/** Resources the webhook sees UPDATEs of, through discovery; problems are reported, not thrown. */
export async function discoverTargets(
  api: AuditApi,
  rules: readonly WebhookRule[],
): Promise<{ targets: TargetResource[]; unreadable: Unreadable[] }> {
  const discovery = await api.discover((group) => groupMayMatch(rules, group));
  return {
    targets: targetResources(rules, discovery.groupVersions),
    unreadable: discovery.problems.map((p) => ({
      resource: `discovery ${p.groupVersion}`,
      namespace: undefined,
      status: 0,
      reason: p.reason,
    })),
  };
}

/** Whether any rule may match Pods (then Nodes are read for syntheticRefs.node). */
export function rulesMayMatchPods(rules: readonly CompiledRule[]): boolean {
  return rules.some((rule) => rule.kinds === undefined || rule.kinds.includes('Pod'));
}
