import type { CompiledRule } from '../rule.js';
import type { CandidateQuery, RuleStore } from '../store.js';
import type { RuleNode } from './schema.js';

export type SkipReason = NonNullable<RuleNode['skipped']>;

/** A rule of the store that was not a candidate for the request, and why. */
export interface SkippedRule {
  readonly rule: CompiledRule;
  readonly skipped: SkipReason;
}

/**
 * The rules of `store` that `store.candidates(query)` did not offer, in the store's order, each
 * with the first reason that excludes it, checked in the order the store applies them: the
 * namespace (a namespace's own rules, cluster-wide rules by targetNamespaceRegex), then the kind
 * index (rules whose literal `$.kind` criteria cannot accept the object's kind), then
 * admissionOperations. `index` is left for a rule none of these excludes (the explanation and the
 * store would disagree; tests check that it never happens).
 */
export function skippedRules(
  store: RuleStore,
  query: CandidateQuery,
  candidates: readonly CompiledRule[],
): SkippedRule[] {
  const offered = new Set(candidates);
  const out: SkippedRule[] = [];
  for (const rule of store.all()) {
    if (offered.has(rule)) continue;
    out.push({ rule, skipped: whyNotCandidate(rule, query, store.clusterNamespace) });
  }
  return out;
}

export function whyNotCandidate(
  rule: CompiledRule,
  query: CandidateQuery,
  clusterNamespace: string,
): SkipReason {
  const namespace = query.namespace === '' ? undefined : query.namespace;
  const byNamespace = namespaceReason(rule, namespace, clusterNamespace);
  if (byNamespace !== undefined) return { reason: 'namespace', message: byNamespace };
  if (rule.kinds !== undefined && (query.kind === undefined || !rule.kinds.includes(query.kind))) {
    const kinds = [...new Set(rule.kinds)].map((k) => JSON.stringify(k)).join(', ');
    const object = query.kind === undefined ? 'has no kind' : `is a ${query.kind}`;
    return {
      reason: 'kind',
      message: `its match accepts only kind ${kinds} (literal $.kind criteria); the object ${object}`,
    };
  }
  if (!rule.operations.has(query.operation)) {
    return {
      reason: 'operation',
      message: `admissionOperations is ${[...rule.operations].join(', ')}; the request is ${query.operation}`,
    };
  }
  return { reason: 'index', message: 'not offered by the rule index' };
}

function namespaceReason(
  rule: CompiledRule,
  namespace: string | undefined,
  clusterNamespace: string,
): string | undefined {
  const { scope } = rule;
  if (namespace === undefined) {
    if (scope.kind === 'cluster' && scope.clusterScoped) return undefined;
    return scope.kind === 'namespace'
      ? `a rule of namespace ${rule.namespace} applies only to objects of that namespace; the object is cluster-scoped`
      : `a cluster-wide rule with targetNamespaceRegex ${JSON.stringify(scope.namespaces?.source ?? '')} applies only to namespaced objects; the object is cluster-scoped`;
  }
  if (scope.kind === 'namespace') {
    if (rule.namespace === namespace && namespace !== clusterNamespace) return undefined;
    return `a rule of namespace ${rule.namespace} applies only to objects of that namespace; the object is in ${namespace}`;
  }
  if (scope.namespaces === undefined) {
    return `a cluster-wide rule without targetNamespaceRegex applies only to cluster-scoped objects; the object is in namespace ${namespace}`;
  }
  if (scope.namespaces.test(namespace)) return undefined;
  return `targetNamespaceRegex ${JSON.stringify(scope.namespaces.source)} does not match the object's namespace ${namespace}`;
}
