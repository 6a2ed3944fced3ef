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
 * Bounds of the answers RuleStore.candidates keeps: at most this many (namespace, kind, operation)
 * answers, referring to at most CANDIDATE_CACHE_RULE_REFS rules in all (8 bytes each: 2 MiB),
 * for keys of at most MAX_CACHED_KEY_CHARS characters (a request's kind is any string).
 */
export const CANDIDATE_CACHE_ENTRIES = 4_096;
export const CANDIDATE_CACHE_RULE_REFS = 262_144;
const MAX_CACHED_KEY_CHARS = 512;

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
   * candidates() answers by namespace, kind and operation, until any rule changes. Requests name
   * kinds and namespaces that need not exist: the cache is emptied when it would go past its
   * bounds (CANDIDATE_CACHE_ENTRIES, CANDIDATE_CACHE_RULE_REFS), so it never holds more.
   */
  private readonly candidateCache = new Map<string, readonly CompiledRule[]>();
  /** The lengths of the cached answers, summed: bounded by CANDIDATE_CACHE_RULE_REFS. */
  private cachedRuleRefs = 0;
  /** patchTiers() of each answer, for as long as the answer lives (answers never change). */
  private readonly tiersOfAnswer = new WeakMap<
    readonly CompiledRule[],
    readonly (readonly CompiledRule[])[]
  >();

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
    this.forgetCandidates();
    if (rule.namespace === this.clusterNamespace) this.clusterRulesByNamespace.clear();
  }

  delete(namespace: string, name: string): boolean {
    const group = this.groups.get(namespace);
    if (group?.rules.delete(name) !== true) return false;
    group.invalidate();
    this.forgetCandidates();
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
  candidates(query: CandidateQuery): readonly CompiledRule[] {
    const namespace = query.namespace === '' ? undefined : query.namespace;
    // NUL separates: Kubernetes names never hold one, so distinct queries never share a key.
    const key = `${namespace ?? '\u0000'}\u0000${query.kind ?? '\u0000'}\u0000${query.operation}`;
    const cached = this.candidateCache.get(key);
    if (cached !== undefined) return cached;
    const found = this.findCandidates(namespace, query);
    if (key.length > MAX_CACHED_KEY_CHARS) return found;
    if (
      this.candidateCache.size >= CANDIDATE_CACHE_ENTRIES ||
      this.cachedRuleRefs + found.length > CANDIDATE_CACHE_RULE_REFS
    ) {
      this.candidateCache.clear();
      this.cachedRuleRefs = 0;
    }
    this.candidateCache.set(key, found);
    this.cachedRuleRefs += found.length;
    return found;
  }

  /**
   * The Patch rules of a candidates() answer grouped into tiers, lowest first (the answer is in
   * execution order). Kept with the answer: a request asks for it once per evaluation.
   */
  patchTiers(candidates: readonly CompiledRule[]): readonly (readonly CompiledRule[])[] {
    const known = this.tiersOfAnswer.get(candidates);
    if (known !== undefined) return known;
    const tiers: CompiledRule[][] = [];
    let current: CompiledRule[] = [];
    for (const rule of candidates) {
      if (rule.type !== 'Patch') continue;
      const last = current[current.length - 1];
      if (last !== undefined && last.tier !== rule.tier) {
        tiers.push(current);
        current = [];
      }
      current.push(rule);
    }
    if (current.length > 0) tiers.push(current);
    const frozen = Object.freeze(tiers.map((tier) => Object.freeze(tier)));
    this.tiersOfAnswer.set(candidates, frozen);
    return frozen;
  }

  private forgetCandidates(): void {
    this.candidateCache.clear();
    this.cachedRuleRefs = 0;
  }

  private findCandidates(
    namespace: string | undefined,
    query: CandidateQuery,
  ): readonly CompiledRule[] {
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
    if (lists.filter((l) => l.length > 0).length > 1) out.sort(compareRules);
    return Object.freeze(out);
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
