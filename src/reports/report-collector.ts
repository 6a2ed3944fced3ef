import type { EnforcementMode } from '../api/annotations.js';
import type { EvaluationResult } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import type { RuleStore } from '../engine/store.js';
import { identityOf, type ObjectVerdict } from '../audit/run/object-verdict.js';
import { apiVersionOf, type TargetResource } from '../kube/target-resources.js';
import { admissionNamespace } from '../webhook/admission/admission-evaluation.js';
import { resultsForObject, type ReportResult } from './report-result.js';
import { BoundedResults, type PartialScope, type ReportBounds } from './report-quota.js';

export interface ReportCollectorOptions {
  /** The store the audit evaluates with: the rules an UPDATE of each object runs. */
  readonly store: RuleStore;
  /** A rule's enforcement mode; by default the compiled rule's own. */
  readonly enforcement?: ((rule: CompiledRule) => EnforcementMode) | undefined;
  /**
   * Whether the rule's results for objects of this collection may be reported (the operator: the
   * rule's author may list it). Undefined reports every rule (the CLI, with the user's own rights).
   */
  readonly mayReport?:
    | ((
        rule: CompiledRule,
        target: TargetResource,
        namespace: string | undefined,
      ) => Promise<boolean>)
    | undefined;
  /** The bounds of what is kept (DEFAULT_REPORT_BOUNDS when absent). */
  readonly bounds?: Partial<ReportBounds> | undefined;
}

export interface CollectedResults {
  readonly results: readonly ReportResult[];
  /** Results left out because a bound was reached. */
  readonly dropped: number;
  /**
   * The report scopes (scopeKey: the namespace, '' for the cluster report) that left results out:
   * their reports are partial, and none of them is deleted for want of results.
   */
  readonly partial?: ReadonlyMap<string, PartialScope> | undefined;
}

export interface ReportCollector {
  /** Called by the audit for every evaluated object (AuditRunOptions.onEvaluated). */
  observe(
    object: JsonObject,
    target: TargetResource,
    evaluation: EvaluationResult,
    verdict: ObjectVerdict,
  ): Promise<void>;
  collected(): CollectedResults;
}

/**
 * Gathers one audit's report results, one per object × rule that applies to it: the rules an
 * UPDATE of the object runs (its namespace's and the cluster-wide rules whose scope covers it,
 * for its kind, acting on UPDATE), minus those `mayReport` refuses. What is kept is bounded per
 * rule, per namespace and in all (BoundedResults); the scopes that lost results are `partial`.
 */
export function createReportCollector(options: ReportCollectorOptions): ReportCollector {
  const kept = new BoundedResults(options.bounds);

  const reportable = async (
    rules: readonly CompiledRule[],
    target: TargetResource,
    namespace: string | undefined,
  ): Promise<CompiledRule[]> => {
    if (options.mayReport === undefined) return [...rules];
    const out: CompiledRule[] = [];
    for (const rule of rules) if (await options.mayReport(rule, target, namespace)) out.push(rule);
    return out;
  };

  return {
    async observe(object, target, evaluation, verdict): Promise<void> {
      const { name, namespace, uid } = identityOf(object);
      const candidates = options.store.candidates({
        namespace: admissionNamespace(target.kind, namespace),
        kind: target.kind,
        operation: 'UPDATE',
      });
      if (candidates.length === 0) return;
      const rules = await reportable(candidates, target, namespace);
      const subject = { apiVersion: apiVersionOf(target), kind: target.kind, namespace, name, uid };
      for (const result of resultsForObject(
        subject,
        rules,
        evaluation,
        verdict,
        options.enforcement ?? ((rule) => rule.enforcement),
      ))
        kept.add(result);
    },
    collected(): CollectedResults {
      return { results: kept.results(), dropped: kept.dropped, partial: kept.partial() };
    },
  };
}
