import type { CompiledRule } from '../../engine/rule.js';
import { isJsonObject, type JsonObject } from '../../engine/json.js';
import type { TargetResource } from '../../kube/target-resources.js';

/** The label that makes the dragnet webhook skip a namespace (its namespaceSelector). */
export const IGNORE_LABEL = 'admission.kubemod.io/ignore';

/** One collection to list: a namespace, or all namespaces (and cluster-scoped) when undefined. */
export interface ListTask {
  readonly target: TargetResource;
  readonly namespace: string | undefined;
  /**
   * For a list across all namespaces: the namespaces to list one by one instead when the
   * cluster-wide list is forbidden (a user who may read only some namespaces).
   */
  readonly fallbackNamespaces: readonly string[];
}

export interface ScopeInput {
  /** The rules to audit. Rules that do not act on UPDATE are left out (see auditedRules). */
  readonly rules: readonly CompiledRule[];
  readonly targets: readonly TargetResource[];
  /** Namespace manifests by name, when the namespaces could be read. */
  readonly namespaces: ReadonlyMap<string, JsonObject> | undefined;
  /** Audit this namespace only (its namespaced objects; no cluster-scoped ones). */
  readonly onlyNamespace?: string | undefined;
}

/** True when the namespace manifest carries admission.kubemod.io/ignore=true. */
export function isIgnoredNamespace(manifest: JsonObject | undefined): boolean {
  const metadata = manifest?.metadata;
  if (!isJsonObject(metadata)) return false;
  const labels = metadata.labels;
  return isJsonObject(labels) && labels[IGNORE_LABEL] === 'true';
}

/** The rules an UPDATE can fire: those whose admissionOperations include UPDATE. */
export function auditedRules(rules: readonly CompiledRule[]): CompiledRule[] {
  return rules.filter((rule) => rule.operations.has('UPDATE'));
}

/** Kinds any of the rules can match; undefined when one of them may match any kind. */
function kindsOf(rules: readonly CompiledRule[]): ReadonlySet<string> | undefined {
  const kinds = new Set<string>();
  for (const rule of rules) {
    if (rule.kinds === undefined) return undefined;
    for (const kind of rule.kinds) kinds.add(kind);
  }
  return kinds;
}

function ruleAppliesToNamespace(rule: CompiledRule, namespace: string): boolean {
  if (rule.scope.kind === 'namespace') return rule.scope.namespace === namespace;
  return rule.scope.namespaces?.test(namespace) === true;
}

/**
 * The collections to list so that every object some rule could act on is seen, and as few others
 * as possible: only the kinds the rules can match, namespaced objects only in namespaces a rule
 * applies to (across all namespaces at once when a cluster-wide rule targets namespaces by
 * regex), cluster-scoped objects only when a cluster-wide rule applies to them. Namespaces
 * labelled admission.kubemod.io/ignore=true are not listed. Deterministic order.
 */
export function planListTasks(input: ScopeInput): ListTask[] {
  const rules = auditedRules(input.rules);
  const namespacedRules = rules.filter(
    (r) => r.scope.kind === 'namespace' || r.scope.namespaces !== undefined,
  );
  const clusterScopedRules = rules.filter(
    (r) => r.scope.kind === 'cluster' && r.scope.clusterScoped,
  );
  const known = input.namespaces;
  const ignored = (ns: string): boolean => isIgnoredNamespace(known?.get(ns));
  const inScope = (ns: string): boolean =>
    !ignored(ns) && namespacedRules.some((rule) => ruleAppliesToNamespace(rule, ns));

  // Namespaces in scope that are known by name: the rules' own namespaces, and the namespaces
  // cluster-wide rules' regexes match.
  const candidates = new Set<string>();
  for (const rule of namespacedRules)
    if (rule.scope.kind === 'namespace') candidates.add(rule.scope.namespace);
  for (const ns of known?.keys() ?? []) candidates.add(ns);
  const scoped = [...candidates].filter(inScope).sort();
  const byRegex = namespacedRules.some((r) => r.scope.kind === 'cluster');

  const tasks: ListTask[] = [];
  const namespacedKinds = kindsOf(namespacedRules);
  const clusterKinds = kindsOf(clusterScopedRules);
  for (const target of input.targets) {
    if (target.namespaced) {
      if (namespacedRules.length === 0) continue;
      if (namespacedKinds !== undefined && !namespacedKinds.has(target.kind)) continue;
      if (input.onlyNamespace !== undefined) {
        if (inScope(input.onlyNamespace))
          tasks.push({ target, namespace: input.onlyNamespace, fallbackNamespaces: [] });
      } else if (byRegex) {
        tasks.push({ target, namespace: undefined, fallbackNamespaces: scoped });
      } else {
        for (const ns of scoped) tasks.push({ target, namespace: ns, fallbackNamespaces: [] });
      }
    } else {
      if (input.onlyNamespace !== undefined || clusterScopedRules.length === 0) continue;
      if (clusterKinds !== undefined && !clusterKinds.has(target.kind)) continue;
      tasks.push({ target, namespace: undefined, fallbackNamespaces: [] });
    }
  }
  return tasks;
}
