import { unchangedResult, type EvaluationResult } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import type { CompiledRule } from '../../engine/rule.js';
import type { RuleStore } from '../../engine/store.js';
import { type WorkLimits } from '../../engine/work-limits.js';
import { withMeter } from '../../engine/active-meter.js';
import { WorkMeter } from '../../engine/work-meter.js';
import { identityOf } from './object-verdict.js';
import type { TargetResource } from '../../kube/target-resources.js';

type Evaluate = (object: JsonObject, target: TargetResource) => EvaluationResult;

/**
 * The evaluation a job of `rule` runs per object, without the full evaluation for objects the
 * rule cannot patch: a job scans every object of its kinds in its scope, and evaluating each with
 * every rule of a namespace holding thousands of rules costs far more than matching the one rule.
 *
 * Exact: an object the rule does not match (as received) gets a result in which nothing is
 * applied, which is what the full evaluation says of the rule too, provided no Patch rule of a
 * lower tier could change the object first (then the full evaluation runs). The match runs under
 * the webhook's work limits; a match that fails or runs over falls back to the full evaluation.
 * Namespaced objects only (cluster-scoped ones are evaluated in full).
 */
export function prefilteredEvaluate(
  rule: CompiledRule,
  store: () => RuleStore,
  evaluate: Evaluate,
  limits: Partial<WorkLimits> = {},
): Evaluate {
  const lowestTier = (namespace: string, kind: string | undefined): boolean =>
    store()
      .candidates({ namespace, kind, operation: 'UPDATE' })
      .every((other) => other.type !== 'Patch' || other.tier >= rule.tier);

  return (object, target) => {
    const { namespace } = identityOf(object);
    if (namespace === undefined || target.kind === 'Namespace') return evaluate(object, target);
    let matches: boolean;
    try {
      matches = withMeter(new WorkMeter(limits), () => rule.match.matches(object));
    } catch {
      return evaluate(object, target);
    }
    if (matches || !lowestTier(namespace, target.kind)) return evaluate(object, target);
    return unchangedResult(object);
  };
}
