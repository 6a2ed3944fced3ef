import type { AdmissionOperation } from '../api/modrule-types.js';
import { DEFAULT_CLUSTER_NAMESPACE, type CompiledRule } from './rule.js';

/** What the store needs to know about an admission request to pick candidate rules. */
export interface CandidateQuery {
  /** The object's namespace; undefined (or '') for cluster-scoped objects, Namespaces included. */
  readonly namespace: string | undefined;
  readonly kind: string | undefined;
  readonly operation: AdmissionOperation;
}

/** Rules of one namespace, indexed by the kinds they can match. Rebuilt lazily after changes. */
class RuleGroup {
  readonly rules = new Map<string, CompiledRule>();
  private index:
    | { byKind: Map<string, CompiledRule[]>; anyKind: CompiledRule[]; all: CompiledRule[] }
    | undefined;

  invalidate(): void {
    this.index = undefined;
  }

  forKind(kind: string | undefined): {
    kinded: readonly CompiledRule[];
    anyKind: readonly CompiledRule[];
  } {
    const index = this.build();
    return {
      kinded: kind === undefined ? [] : (index.byKind.get(kind) ?? []),
      anyKind: index.anyKind,
    };
  }

  all(): readonly CompiledRule[] {
    return this.build().all;
  }

  private build(): {
    byKind: Map<string, CompiledRule[]>;
    anyKind: CompiledRule[];
    all: CompiledRule[];
  } {
    if (this.index !== undefined) return this.index;
    const all = [...this.rules.values()].sort(compareRules);
    const byKind = new Map<string, CompiledRule[]>();
    const anyKind: CompiledRule[] = [];
    for (const rule of all) {
      if (rule.kinds === undefined) {
        anyKind.push(rule);
        continue;
      }
      for (const kind of new Set(rule.kinds)) {
        const list = byKind.get(kind);
        if (list === undefined) byKind.set(kind, [rule]);
        else list.push(rule);
      }
    }
    this.index = { byKind, anyKind, all };
    return this.index;
  }
}

/**
 * Execution order: lowest tier first; within a tier, cluster-wide rules (the cluster namespace's)
 * before the namespace's own rules, as in KubeMod, and each of the two by name. KubeMod orders the
 * rules of each group as its store received them, which changes when the operator restarts; by
 * name, the order (and so the result when rules of one tier touch the same fields) is stable.
 */
export function compareRules(a: CompiledRule, b: CompiledRule): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  const scopeA = a.scope.kind === 'cluster' ? 0 : 1;
  const scopeB = b.scope.kind === 'cluster' ? 0 : 1;
  if (scopeA !== scopeB) return scopeA - scopeB;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The in-memory rule store, tiered per namespace. The controller (or a directory watcher) only
 * puts and deletes compiled rules; the webhook only asks for candidates.
 */
export class RuleStore {
  readonly clusterNamespace: string;
  private readonly groups = new Map<string, RuleGroup>();
  /** Cluster-wide rules that apply to each namespace, cached until a cluster-wide rule changes. */
  private readonly clusterRulesByNamespace = new Map<string, RuleGroup>();
  private readonly onDelete: ((key: string) => void) | undefined;

  /**
   * `onDelete` is told the key (`<namespace>/<name>`) of every rule that leaves the store (the
   * operator drops the rule's metric series with it).
   */
  constructor(options: { clusterNamespace?: string; onDelete?: (key: string) => void } = {}) {
    this.clusterNamespace = options.clusterNamespace ?? DEFAULT_CLUSTER_NAMESPACE;
    this.onDelete = options.onDelete;
  }

  put(rule: CompiledRule): void {
    const group = this.groups.get(rule.namespace) ?? new RuleGroup();
    this.groups.set(rule.namespace, group);
    group.rules.set(rule.name, rule);
    group.invalidate();
    if (rule.namespace === this.clusterNamespace) this.clusterRulesByNamespace.clear();
  }

  delete(namespace: string, name: string): boolean {
    const group = this.groups.get(namespace);
    if (group?.rules.delete(name) !== true) return false;
    group.invalidate();
    if (group.rules.size === 0) this.groups.delete(namespace);
    if (namespace === this.clusterNamespace) this.clusterRulesByNamespace.clear();
    this.onDelete?.(`${namespace}/${name}`);
    return true;
  }

  get(namespace: string, name: string): CompiledRule | undefined {
    return this.groups.get(namespace)?.rules.get(name);
  }

  get size(): number {
    let total = 0;
    for (const group of this.groups.values()) total += group.rules.size;
    return total;
  }

  /** Number of rules per namespace (for metrics). */
  countsByNamespace(): Map<string, number> {
    return new Map([...this.groups].map(([ns, group]) => [ns, group.rules.size]));
  }

  all(): CompiledRule[] {
    return [...this.groups.values()].flatMap((group) => group.all());
  }

  /**
   * Rules that may apply to the request, in execution order. Namespaced objects see the rules of
   * their namespace plus cluster-wide rules whose targetNamespaceRegex matches the namespace;
   * cluster-scoped objects see cluster-wide rules whose targetNamespaceRegex is empty or `.*`.
   */
  candidates(query: CandidateQuery): CompiledRule[] {
    const namespace = query.namespace === '' ? undefined : query.namespace;
    const lists: (readonly CompiledRule[])[] = [];
    const add = (group: RuleGroup | undefined): void => {
      if (group === undefined) return;
      const { kinded, anyKind } = group.forKind(query.kind);
      lists.push(kinded, anyKind);
    };
    if (namespace === undefined) {
      add(this.clusterScopedRules());
    } else {
      if (namespace !== this.clusterNamespace) add(this.groups.get(namespace));
      add(this.clusterRulesFor(namespace));
    }
    const out: CompiledRule[] = [];
    for (const list of lists)
      for (const rule of list) if (rule.operations.has(query.operation)) out.push(rule);
    return lists.filter((l) => l.length > 0).length > 1 ? out.sort(compareRules) : out;
  }

  private clusterScopedRules(): RuleGroup | undefined {
    return this.cachedClusterGroup(
      '\u0000cluster-scoped',
      (rule) => rule.scope.kind === 'cluster' && rule.scope.clusterScoped,
    );
  }

  private clusterRulesFor(namespace: string): RuleGroup | undefined {
    return this.cachedClusterGroup(
      namespace,
      (rule) => rule.scope.kind === 'cluster' && rule.scope.namespaces?.test(namespace) === true,
    );
  }

  private cachedClusterGroup(
    cacheKey: string,
    applies: (rule: CompiledRule) => boolean,
  ): RuleGroup | undefined {
    const cluster = this.groups.get(this.clusterNamespace);
    if (cluster === undefined) return undefined;
    let group = this.clusterRulesByNamespace.get(cacheKey);
    if (group === undefined) {
      group = new RuleGroup();
      for (const rule of cluster.rules.values()) if (applies(rule)) group.rules.set(rule.key, rule);
      if (this.clusterRulesByNamespace.size > 10_000) this.clusterRulesByNamespace.clear();
      this.clusterRulesByNamespace.set(cacheKey, group);
    }
    return group;
  }
}
